//! dQ by tiles (the forward's tiling, `tiled.rs`): a workgroup of 128 threads takes 64 query rows
//! of one (batch, head), stages them (pre-scaled) and their output gradients once, and walks the
//! keys in blocks of 32. Each thread holds a 4 x 4 tile of the block's scores and of `dP = dO Vᵀ`,
//! forms `dS = P (dP - delta)` there (P from the saved logsumexp), and after `dS` is staged
//! transposed in the values' memory adds `dS K` into its four rows of dQ.

use super::tiled::{column, dot_tile, each, mask_tile, rotation, stage_rotated, write_tile_to};
use super::{HELPERS, Spec, decls, loader, mask_binding, mask_fn};

/// Query rows per workgroup and keys per block.
const BR: u32 = 64;
const BC: u32 = 32;

/// Whether the tiled dQ for head dims `e`, `ev` fits in `limit` bytes of workgroup memory.
pub(crate) fn tiled_grad_q_fits(e: usize, ev: usize, limit: u32) -> bool {
    let (e4, v4) = ((e as u32).div_ceil(4), (ev as u32).div_ceil(4));
    e <= 64 && ev <= 64 && 16 * (BR * e4 + BR * v4 + BC * e4 + values_len(v4)) <= limit
}

/// The values' vec4s, which later hold the block's `dS` (`BC x BR/4`).
fn values_len(v4: u32) -> u32 {
    (BC * v4).max(BC * BR / 4)
}

pub(super) fn grad_q(spec: &Spec) -> String {
    let (e4, v4) = (spec.e4(), spec.v4());
    let tx = BC / 4;
    let nt = 16 * tx;
    let ko = e4.div_ceil(tx);
    let mut b = vec![
        ("dq", true, "f32"),
        ("st", false, "f32"),
        ("q", false, "f32"),
        ("k", false, "f32"),
        ("v", false, "f32"),
        ("g", false, "f32"),
    ];
    b.extend(mask_binding(spec.mask));
    let acc = (0..4)
        .flat_map(|a| (0..ko).map(move |k| format!("    var d{a}_{k} = vec4<f32>(0.0);\n")))
        .collect::<String>();
    let ds = each(4, |a| {
        format!(
            "        let ds{a} = select(exp(s{a} - vec4<f32>(lse[{a}])), vec4<f32>(0.0), s{a} == vec4<f32>(NEG)) * (t{a} - vec4<f32>(dl[{a}]));"
        )
    });
    let update = (0..ko)
        .map(|k| {
            let c = column(k, e4, tx, "E4");
            format!(
                "            let kv{k} = kp[jj * E4 + rot(({c}), jj)];\n{}",
                each(4, |a| format!("            d{a}_{k} = d{a}_{k} + w[{a}] * kv{k};"))
            )
        })
        .collect::<String>();
    let mut stores = String::new();
    for a in 0..4 {
        stores.push_str(&format!(
            "    {{\n        let i = i0 + ty * 4u + {a}u;\n        if (i < L) {{\n            let ob = (bh * L + i) * {e}u;\n",
            e = spec.e
        ));
        for k in 0..ko {
            for lane in 0..4 {
                let mut guard = String::new();
                if !e4.is_multiple_of(tx) {
                    guard.push_str(&format!("tx + {k}u * TX < E4 && "));
                }
                if !spec.e.is_multiple_of(4) {
                    guard.push_str(&format!("(tx + {k}u * TX) * 4u + {lane}u < {}u && ", spec.e));
                }
                stores.push_str(&format!(
                    "            if ({guard}true) {{ dq[ob + (tx + {k}u * TX) * 4u + {lane}u] = d{a}_{k}[{lane}] * scale; }}\n"
                ));
            }
        }
        stores.push_str("        }\n    }\n");
    }
    let stage_rows = |sh: &str, src: &str, w: &str, base: &str, stride: &str, mul: &str| {
        format!(
            r#"    for (var t = lid; t < BR * {w}; t = t + NT) {{
        let r = i0 + t / {w};
        var x = vec4<f32>(0.0);
        if (r < L) {{ x = ld_{src}({base} + r * {stride}, t % {w}){mul}; }}
        {sh}[t] = x;
    }}
"#
        )
    };
    format!(
        r#"{decls}const BR: u32 = {BR}u;
const BC: u32 = {BC}u;
const TX: u32 = {tx}u;
const NT: u32 = {nt}u;
const E4: u32 = {e4}u;
const V4: u32 = {v4}u;
const R4: u32 = {r4}u;
var<workgroup> qs: array<vec4<f32>, {qn}>;
var<workgroup> gs: array<vec4<f32>, {gn}>;
var<workgroup> kp: array<vec4<f32>, {kn}>;
var<workgroup> vs: array<vec4<f32>, {vn}>;
{HELPERS}{mask}{lq}{lk}{lv}{lg}{rot}{rotv}@compute @workgroup_size({nt})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let L = p[0];
    let S = p[1];
    let H = p[2];
    let NEG = ninf();
    let scale = pf(5u);
    let bh = wid.y;
    let b = bh / H;
    let h = bh % H;
    let i0 = wid.x * BR;
    let tx = lid % TX;
    let ty = lid / TX;
    let qhead = p[8] + b * p[9] + h * p[10];
    let ghead = p[20] + b * p[21] + h * p[22];
{stage_q}{stage_g}    var lse = vec4<f32>(0.0);
    var dl = vec4<f32>(0.0);
    for (var a = 0u; a < 4u; a = a + 1u) {{
        let ir = min(i0 + ty * 4u + a, L - 1u);
        lse[a] = st[bh * L + ir];
        dl[a] = st[p[7] + bh * L + ir];
    }}
    let kbase = p[12] + b * p[13] + (h / p[3]) * p[14];
    let vbase = p[16] + b * p[17] + (h / p[4]) * p[18];
{acc}    var send = S;
    if (p[6] == 1u) {{ send = min(S, i0 + BR); }}
    for (var r0 = 0u; r0 < send; r0 = r0 + BC) {{
        workgroupBarrier();
{stage_k}{stage_v}        workgroupBarrier();
{scores}{dp}{ds}        workgroupBarrier();
{write_ds}        workgroupBarrier();
        for (var jj = 0u; jj < BC; jj = jj + 1u) {{
            let w = vs[jj * R4 + ty];
{update}        }}
    }}
{stores}}}
"#,
        decls = decls(&b),
        r4 = BR / 4,
        qn = BR * e4,
        gn = BR * v4,
        kn = BC * e4,
        vn = values_len(v4),
        mask = mask_fn(spec.mask),
        lq = loader("q", spec.e),
        lk = loader("k", spec.e),
        lv = loader("v", spec.ev),
        lg = loader("g", spec.ev),
        rot = rotation("rot", e4),
        rotv = rotation("rotv", v4),
        stage_q = stage_rows("qs", "q", "E4", "qhead", "p[11]", " * scale"),
        stage_g = stage_rows("gs", "g", "V4", "ghead", "p[23]", ""),
        stage_k = stage_rotated("kp", "k", "E4", "kbase", "p[15]", "rot"),
        stage_v = stage_rotated("vs", "v", "V4", "vbase", "p[19]", "rotv"),
        scores = dot_tile("s", "qs", "kp", "E4", "rot") + &mask_tile(spec),
        dp = dot_tile("t", "gs", "vs", "V4", "rotv"),
        write_ds = write_tile_to("vs", "ds"),
    )
}
