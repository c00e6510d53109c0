//! The forward by tiles (GPUs with 32 KB or more of workgroup memory, head dims up to 64): a
//! workgroup of `16 * BC / 4` threads takes 64 query rows of one (batch, head) and walks the keys
//! in blocks of `BC` (64 or 32). Each thread holds a 4 x 4 tile of the block's scores (rows
//! `4ty..4ty+4`, keys `tx + b * BC/4`) and the same four rows of the output (column vec4s
//! `tx + k * BC/4`), so every vec4 read from workgroup memory feeds 16 multiply-adds, where the
//! rows kernel's feed 4. The online softmax is the rows kernel's: a block's row maxima are read
//! back from its scores (staged transposed, `[key][row/4]`, in the keys' memory), the row sums
//! are kept per thread over its own keys and added up once at the end.
//!
//! Queries are staged once, pre-scaled; keys row-major with each row's vec4s rotated by the row
//! index, so the threads reading different key rows at one column hit different banks; values
//! row-major. Bounds as the rows kernels': every global read is guarded, every write by `i < L`,
//! workgroup indices are bounded by construction.

use super::{HELPERS, Spec, decls, loader, mask_binding, mask_fn};

/// Query rows per workgroup.
const BR: u32 = 64;

/// The first of `blocks` (64 and 32 keys) whose tiled forward for head dims `e`, `ev` fits in
/// `limit` bytes of workgroup memory (None: the rows kernel takes the call).
pub(crate) fn tiled_block(e: usize, ev: usize, limit: u32, blocks: &[u32]) -> Option<u32> {
    if e > 64 || ev > 64 {
        return None;
    }
    let (e4, v4) = ((e as u32).div_ceil(4), (ev as u32).div_ceil(4));
    blocks
        .iter()
        .copied()
        .find(|&bc| 16 * (BR * e4 + keys_len(e4, bc) + bc * v4) <= limit)
}

/// The keys' vec4s, which later hold the block's scores (`bc x BR/4`) and the row sums.
fn keys_len(e4: u32, bc: u32) -> u32 {
    (bc * e4).max(bc * BR / 4)
}

/// `f(0), f(1), …` over `0..n`, one line each.
fn each(n: u32, f: impl Fn(u32) -> String) -> String {
    (0..n).map(|i| format!("{}\n", f(i))).collect()
}

/// The 4 x 4 score tile: `s{a}[{b}]` for row `4ty + a`, key `tx + b * TX`.
fn score_tile(spec: &Spec) -> String {
    let loads = each(4, |a| {
        format!("            let q{a} = qs[(ty * 4u + {a}u) * E4 + c];")
    }) + &each(4, |b| {
        format!("            let k{b} = kp[(tx + {b}u * TX) * E4 + rot(c, tx + {b}u * TX)];")
    });
    let fma = each(4, |a| {
        format!(
            "            s{a} = s{a} + vec4<f32>(dot(q{a}, k0), dot(q{a}, k1), dot(q{a}, k2), dot(q{a}, k3));"
        )
    });
    let mask = if spec.mask == super::MaskKind::None {
        String::new()
    } else {
        "                else { SV = SV + mval(b, h, min(i, L - 1u), j); }\n".into()
    };
    let masks: String = (0..4)
        .flat_map(|a| (0..4).map(move |b| (a, b)))
        .map(|(a, b)| {
            let sv = format!("s{a}[{b}]");
            format!(
                "        {{\n            let i = i0 + ty * 4u + {a}u;\n            let j = r0 + tx + {b}u * TX;\n            if (j >= S || (p[6] == 1u && j > i)) {{ {sv} = NEG; }}\n{}        }}\n",
                mask.replace("SV", &sv)
            )
        })
        .collect();
    format!(
        "{}        for (var c = 0u; c < E4; c = c + 1u) {{\n{loads}{fma}        }}\n{masks}",
        each(4, |a| format!("        var s{a} = vec4<f32>(0.0);"))
    )
}

/// The block's tile `{reg}0..3`, transposed into the keys' memory.
fn write_tile(reg: &str) -> String {
    each(4, |b| {
        format!(
            "        kp[(tx + {b}u * TX) * R4 + ty] = vec4<f32>({reg}0[{b}], {reg}1[{b}], {reg}2[{b}], {reg}3[{b}]);"
        )
    })
}

/// The column vec4 `tx + k * TX` of the output, clamped where `V4` is not a multiple of `TX`.
fn column(k: u32, v4: u32, tx: u32) -> String {
    if v4.is_multiple_of(tx) {
        format!("tx + {k}u * TX")
    } else {
        format!("min(tx + {k}u * TX, V4 - 1u)")
    }
}

fn stores(ev: u32, ko: u32, v4: u32, tx: u32) -> String {
    let mut s = String::new();
    for a in 0..4 {
        s.push_str(&format!(
            "    {{\n        let i = i0 + ty * 4u + {a}u;\n        if (i < L) {{\n            let inv = select(1.0 / lt[{a}], 0.0, lt[{a}] == 0.0);\n            let ob = ((b * L + i) * H + h) * {ev}u;\n"
        ));
        for k in 0..ko {
            let guard = if v4.is_multiple_of(tx) {
                String::new()
            } else {
                format!("tx + {k}u * TX < V4 && ")
            };
            for lane in 0..4 {
                let lane_guard = if ev.is_multiple_of(4) {
                    String::new()
                } else {
                    format!("(tx + {k}u * TX) * 4u + {lane}u < {ev}u && ")
                };
                s.push_str(&format!(
                    "            if ({guard}{lane_guard}true) {{ out[ob + (tx + {k}u * TX) * 4u + {lane}u] = o{a}_{k}[{lane}] * inv; }}\n"
                ));
            }
        }
        s.push_str(&format!(
            "            if (tx == 0u) {{ st[bh * L + i] = select(m[{a}] + log(lt[{a}]), pinf(), lt[{a}] == 0.0); }}\n        }}\n    }}\n"
        ));
    }
    s
}

pub(super) fn forward(spec: &Spec) -> String {
    let (e4, v4, bc) = (spec.e4(), spec.v4(), spec.bc);
    let tx = bc / 4;
    let nt = 16 * tx;
    let ko = v4.div_ceil(tx);
    let mut b = vec![
        ("out", true, "f32"),
        ("st", true, "f32"),
        ("q", false, "f32"),
        ("k", false, "f32"),
        ("v", false, "f32"),
    ];
    b.extend(mask_binding(spec.mask));
    let rot = if e4.is_power_of_two() {
        format!("(c + j) & {}u", e4 - 1)
    } else {
        "(c + j) % E4".to_string()
    };
    let oregs = (0..4)
        .flat_map(|a| (0..ko).map(move |k| format!("    var o{a}_{k} = vec4<f32>(0.0);\n")))
        .collect::<String>();
    let rescale = (0..4)
        .flat_map(|a| (0..ko).map(move |k| format!("        o{a}_{k} = o{a}_{k} * corr[{a}];\n")))
        .collect::<String>();
    let pv = (0..ko)
        .map(|k| {
            format!(
                "            let v{k} = vs[jj * V4 + {}];\n{}",
                column(k, v4, tx),
                each(4, |a| format!(
                    "            o{a}_{k} = o{a}_{k} + pr[{a}] * v{k};"
                ))
            )
        })
        .collect::<String>();
    format!(
        r#"{decls}const BR: u32 = {BR}u;
const BC: u32 = {bc}u;
const TX: u32 = {tx}u;
const NT: u32 = {nt}u;
const E4: u32 = {e4}u;
const V4: u32 = {v4}u;
const R4: u32 = {r4}u;
var<workgroup> qs: array<vec4<f32>, {qn}>;
var<workgroup> kp: array<vec4<f32>, {kn}>;
var<workgroup> vs: array<vec4<f32>, {vn}>;
{HELPERS}{mask}{lq}{lk}{lv}fn rot(c: u32, j: u32) -> u32 {{ return {rot}; }}
@compute @workgroup_size({nt})
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
    for (var t = lid; t < BR * E4; t = t + NT) {{
        let r = i0 + t / E4;
        var x = vec4<f32>(0.0);
        if (r < L) {{ x = ld_q(qhead + r * p[11], t % E4) * scale; }}
        qs[t] = x;
    }}
    let kbase = p[12] + b * p[13] + (h / p[3]) * p[14];
    let vbase = p[16] + b * p[17] + (h / p[4]) * p[18];
    var m = vec4<f32>(NEG);
    var l = vec4<f32>(0.0);
{oregs}    var send = S;
    if (p[6] == 1u) {{ send = min(S, i0 + BR); }}
    for (var r0 = 0u; r0 < send; r0 = r0 + BC) {{
        workgroupBarrier();
        for (var t = lid; t < BC * E4; t = t + NT) {{
            let r = t / E4;
            let c = t % E4;
            var x = vec4<f32>(0.0);
            if (r0 + r < S) {{ x = ld_k(kbase + (r0 + r) * p[15], c); }}
            kp[r * E4 + rot(c, r)] = x;
        }}
        for (var t = lid; t < BC * V4; t = t + NT) {{
            let r = t / V4;
            var x = vec4<f32>(0.0);
            if (r0 + r < S) {{ x = ld_v(vbase + (r0 + r) * p[19], t % V4); }}
            vs[t] = x;
        }}
        workgroupBarrier();
{scores}        workgroupBarrier();
{write_s}        workgroupBarrier();
        var bm = vec4<f32>(NEG);
        for (var jj = 0u; jj < BC; jj = jj + 1u) {{ bm = max(bm, kp[jj * R4 + ty]); }}
        let mn = max(m, bm);
        let corr = select(exp(m - mn), vec4<f32>(0.0), m == vec4<f32>(NEG));
        l = l * corr;
{rescale}{probs}        l = l + vec4<f32>(dot(p0, vec4<f32>(1.0)), dot(p1, vec4<f32>(1.0)), dot(p2, vec4<f32>(1.0)), dot(p3, vec4<f32>(1.0)));
        workgroupBarrier();
{write_p}        workgroupBarrier();
        for (var jj = 0u; jj < BC; jj = jj + 1u) {{
            let pr = kp[jj * R4 + ty];
{pv}        }}
        m = mn;
    }}
    workgroupBarrier();
    kp[ty * TX + tx] = l;
    workgroupBarrier();
    var lt = vec4<f32>(0.0);
    for (var t = 0u; t < TX; t = t + 1u) {{ lt = lt + kp[ty * TX + t]; }}
{stores}}}
"#,
        decls = decls(&b),
        r4 = BR / 4,
        qn = BR * e4,
        kn = keys_len(e4, bc),
        vn = bc * v4,
        mask = mask_fn(spec.mask),
        lq = loader("q", spec.e),
        lk = loader("k", spec.e),
        lv = loader("v", spec.ev),
        scores = score_tile(spec),
        write_s = write_tile("s"),
        probs = each(4, |a| format!(
            "        let p{a} = select(exp(s{a} - vec4<f32>(mn[{a}])), vec4<f32>(0.0), s{a} == vec4<f32>(NEG));"
        )),
        write_p = write_tile("p"),
        stores = stores(spec.ev, ko, v4, tx),
    )
}
