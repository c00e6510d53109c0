//! The fused scaled-dot-product-attention kernels (flash-attention style, f32).
//!
//! Operands are seen as `(B, H, rows, cols)` through an offset and three strides (batch, head,
//! row; the column stride is 1), so broadcast batches and heads (stride 0) need no copy. One
//! thread owns one row; its row of the other side is staged block by block in workgroup memory
//! and read by every thread at the same address (a broadcast). A thread's own vectors are held
//! in `vec4` registers, unrolled by the generator (`q0, q1, …`).
//!
//! - forward (1 dispatch): per query row, one pass over the keys in blocks of `bc` with an
//!   online softmax (running max and sum, the accumulator rescaled once per block); writes the
//!   output and the row's logsumexp (`+inf` for a row with no key, so the backward's
//!   probabilities are 0 there, as torch's `_safe_softmax` gives).
//! - backward (4 dispatches): `delta = rowsum(dO * O)`; dQ per query row; dK and dV per key row,
//!   each looping over the query blocks of every query head that reads that key head (GQA).
//!   The probabilities are recomputed from q, k and the saved logsumexp; nothing `L x S` is
//!   stored.
//!
//! Params (u32 words): 0 L, 1 S, 2 H (query heads), 3 query heads per key head, 4 per value
//! head, 5 scale (f32 bits), 6 causal, 7 B*H*L (the stats' second half: delta), 8..11 q
//! (offset, batch, head, row strides), 12..15 k, 16..19 v, 20..23 dO, 24..28 mask (offset,
//! batch, head, row and column strides). Stats: `[2, B*H*L]`, logsumexp then delta.
//!
//! Bounds: every global read is guarded (rows clamped to the last, columns compared with E,
//! keys with S), every write by `i < L` / `j < S`, and workgroup indices are bounded by the
//! loop limits, so the kernels run without wgpu's inserted checks (`tests/sdpa_fused.rs` and
//! the golden family `attention_fused` cross every block edge).

use borch_device::Kernel;

use super::dispatch_grid;

use crate::error::Result;
use crate::tensor::Tensor;

/// Threads (rows) per workgroup.
pub(crate) const T: u32 = 64;

/// The mask a kernel reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MaskKind {
    None,
    /// Added to the scores.
    Float,
    /// u32 0/1: 0 takes no part (-inf).
    Bool,
}

/// Which kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    Forward,
    Delta,
    GradQ,
    GradK,
    GradV,
}

/// One specialisation: head dims `e` (q, k) and `ev` (v), key/query block `bc`, mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spec {
    pub pass: Pass,
    pub e: u32,
    pub ev: u32,
    pub bc: u32,
    pub mask: MaskKind,
}

/// The largest head dim the fused kernels take (the registers of one row grow with it).
pub(crate) const MAX_HEAD_DIM: usize = 128;

/// The block of staged rows for head dims `e`, `ev` within `limit` bytes of workgroup memory
/// (None: not even 4 rows fit).
pub(crate) fn block_for(e: usize, ev: usize, limit: u32) -> Option<u32> {
    let (e4, v4) = (e.div_ceil(4) as u32, ev.div_ceil(4) as u32);
    [32u32, 16, 8, 4]
        .into_iter()
        .find(|&bc| bc * (e4 + v4) * 16 + bc * T * 4 + 2 * bc * 4 <= limit)
}

impl Spec {
    pub(crate) fn key(&self) -> String {
        format!(
            "sdpa|{:?}|{}|{}|{}|{:?}",
            self.pass, self.e, self.ev, self.bc, self.mask
        )
    }

    fn e4(&self) -> u32 {
        self.e.div_ceil(4)
    }

    fn v4(&self) -> u32 {
        self.ev.div_ceil(4)
    }

    pub(crate) fn source(&self) -> String {
        match self.pass {
            Pass::Forward => forward(self),
            Pass::Delta => delta(self),
            Pass::GradQ => grad_q(self),
            Pass::GradK | Pass::GradV => grad_kv(self),
        }
    }
}

/// Binding declarations numbered from 1.
fn decls(list: &[(&str, bool, &str)]) -> String {
    let mut s = "@group(0) @binding(0) var<storage, read> p: array<u32>;\n".to_string();
    for (i, (name, write, ty)) in list.iter().enumerate() {
        let access = if *write { "read_write" } else { "read" };
        s.push_str(&format!(
            "@group(0) @binding({}) var<storage, {access}> {name}: array<{ty}>;\n",
            i + 1
        ));
    }
    s
}

/// `fn ld_NAME(base, c) -> vec4<f32>`: columns `4c..4c+4` of a row of `n` columns at `base`
/// (zero past `n`).
fn loader(name: &str, n: u32) -> String {
    let body = if n.is_multiple_of(4) {
        format!(
            "    return vec4<f32>({name}[b], {name}[b + 1u], {name}[b + 2u], {name}[b + 3u]);\n"
        )
    } else {
        let mut s = "    var x = vec4<f32>(0.0);\n".to_string();
        for lane in 0..4 {
            s.push_str(&format!(
                "    if (c * 4u + {lane}u < {n}u) {{ x[{lane}] = {name}[b + {lane}u]; }}\n"
            ));
        }
        s.push_str("    return x;\n");
        s
    };
    format!(
        "fn ld_{name}(base: u32, c: u32) -> vec4<f32> {{\n    let b = base + c * 4u;\n{body}}}\n"
    )
}

/// Stores of the `vec4` registers `{reg}0..` scaled by `mul` into a row of `n` columns.
fn store(buf: &str, reg: &str, n: u32, base: &str, mul: &str) -> String {
    let mut s = String::new();
    for c in 0..n.div_ceil(4) {
        for lane in 0..4 {
            let col = c * 4 + lane;
            if col < n {
                s.push_str(&format!(
                    "        {buf}[{base} + {col}u] = {reg}{c}[{lane}] * {mul};\n"
                ));
            }
        }
    }
    s
}

/// `{reg}0 = …; {reg}1 = …` for `n` vec4 registers.
fn regs(n: u32, f: impl Fn(u32) -> String) -> String {
    (0..n).map(|c| format!("    {}\n", f(c))).collect()
}

/// `dot(a0, sh[o + 0u]) + …`.
fn dot_sum(reg: &str, sh: &str, o: &str, n: u32) -> String {
    (0..n)
        .map(|c| format!("dot({reg}{c}, {sh}[{o} + {c}u])"))
        .collect::<Vec<_>>()
        .join(" + ")
}

const HELPERS: &str = r#"
fn pf(i: u32) -> f32 { return bitcast<f32>(p[i]); }
fn ninf() -> f32 { var bits = 0xff800000u; return bitcast<f32>(bits); }
fn pinf() -> f32 { var bits = 0x7f800000u; return bitcast<f32>(bits); }
"#;

/// `fn mval(b, h, i, j) -> f32`: the mask's term for a score (none: no function).
fn mask_fn(mask: MaskKind) -> String {
    let index = "p[24] + b * p[25] + h * p[26] + i * p[27] + j * p[28]";
    match mask {
        MaskKind::None => String::new(),
        MaskKind::Float => {
            format!("fn mval(b: u32, h: u32, i: u32, j: u32) -> f32 {{ return mk[{index}]; }}\n")
        }
        MaskKind::Bool => format!(
            "fn mval(b: u32, h: u32, i: u32, j: u32) -> f32 {{ return select(ninf(), 0.0, mk[{index}] != 0u); }}\n"
        ),
    }
}

fn mask_binding(mask: MaskKind) -> Option<(&'static str, bool, &'static str)> {
    match mask {
        MaskKind::None => None,
        MaskKind::Float => Some(("mk", false, "f32")),
        MaskKind::Bool => Some(("mk", false, "u32")),
    }
}

/// The score of query row `i` (registers `q*`, pre-scaled) with staged key `jj` (mask, causal).
fn score(spec: &Spec, qreg: &str, sh: &str, o: &str, i: &str, j: &str) -> String {
    let mut s = format!("            var s = {};\n", dot_sum(qreg, sh, o, spec.e4()));
    if spec.mask != MaskKind::None {
        s.push_str(&format!("            s = s + mval(b, h, {i}, {j});\n"));
    }
    s.push_str(&format!(
        "            if (p[6] == 1u && {j} > {i}) {{ s = NEG; }}\n"
    ));
    s
}

/// Stage rows `r0..r0+BC` (of `n` rows) of `src` at `base + r * stride` into `sh`, `w` vec4s a
/// row, pre-multiplied by `mul`.
fn stage(sh: &str, src: &str, w: u32, base: &str, stride: &str, n: &str, mul: &str) -> String {
    format!(
        r#"        for (var t = lid; t < BC * {w}u; t = t + T) {{
            let r = r0 + t / {w}u;
            var x = vec4<f32>(0.0);
            if (r < {n}) {{ x = ld_{src}({base} + r * {stride}, t % {w}u) * {mul}; }}
            {sh}[t] = x;
        }}
"#
    )
}

fn head(spec: &Spec, shared: &str) -> String {
    format!(
        "const T: u32 = {T}u;\nconst BC: u32 = {bc}u;\n{shared}{HELPERS}{mask}",
        bc = spec.bc,
        mask = mask_fn(spec.mask)
    )
}

const MAIN: &str = "@compute @workgroup_size(64)\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n    let L = p[0];\n    let S = p[1];\n    let H = p[2];\n    let NEG = ninf();\n    let scale = pf(5u);\n";

fn forward(spec: &Spec) -> String {
    let (e4, v4) = (spec.e4(), spec.v4());
    let mut b = vec![
        ("out", true, "f32"),
        ("st", true, "f32"),
        ("q", false, "f32"),
        ("k", false, "f32"),
        ("v", false, "f32"),
    ];
    b.extend(mask_binding(spec.mask));
    let shared = format!(
        "var<workgroup> kb: array<vec4<f32>, {}>;\nvar<workgroup> vb: array<vec4<f32>, {}>;\nvar<workgroup> sc: array<f32, {}>;\n",
        spec.bc * e4,
        spec.bc * v4,
        spec.bc * T
    );
    format!(
        r#"{decls}{head}{lq}{lk}{lv}{MAIN}    let bh = wid.y;
    let b = bh / H;
    let h = bh % H;
    let i0 = wid.x * T;
    let i = i0 + lid;
    let ir = min(i, L - 1u);
    let qbase = p[8] + b * p[9] + h * p[10] + ir * p[11];
{qregs}{aregs}    var m = NEG;
    var l = 0.0;
    let kbase = p[12] + b * p[13] + (h / p[3]) * p[14];
    let vbase = p[16] + b * p[17] + (h / p[4]) * p[18];
    var send = S;
    if (p[6] == 1u) {{ send = min(S, i0 + T); }}
    for (var r0 = 0u; r0 < send; r0 = r0 + BC) {{
        workgroupBarrier();
{stage_k}{stage_v}        workgroupBarrier();
        let nj = min(BC, S - r0);
        var bm = NEG;
        for (var jj = 0u; jj < nj; jj = jj + 1u) {{
            let j = r0 + jj;
            let o = jj * {e4}u;
{score}            sc[jj * T + lid] = s;
            bm = max(bm, s);
        }}
        let mn = max(m, bm);
        if (mn > NEG) {{
            let corr = select(exp(m - mn), 0.0, m == NEG);
            l = l * corr;
{rescale}            for (var jj = 0u; jj < nj; jj = jj + 1u) {{
                let s = sc[jj * T + lid];
                let pj = select(exp(s - mn), 0.0, s == NEG);
                l = l + pj;
                let o = jj * {v4}u;
{accum}            }}
            m = mn;
        }}
    }}
    if (i < L) {{
        let inv = select(1.0 / l, 0.0, l == 0.0);
        let ob = (bh * L + i) * {ev}u;
{stores}        st[bh * L + i] = select(m + log(l), pinf(), l == 0.0);
    }}
}}
"#,
        decls = decls(&b),
        head = head(spec, &shared),
        lq = loader("q", spec.e),
        lk = loader("k", spec.e),
        lv = loader("v", spec.ev),
        qregs = regs(e4, |c| format!("let q{c} = ld_q(qbase, {c}u) * scale;")),
        aregs = regs(v4, |c| format!("var a{c} = vec4<f32>(0.0);")),
        stage_k = stage("kb", "k", e4, "kbase", "p[15]", "S", "1.0"),
        stage_v = stage("vb", "v", v4, "vbase", "p[19]", "S", "1.0"),
        score = score(spec, "q", "kb", "o", "ir", "j"),
        rescale = regs(v4, |c| format!("        a{c} = a{c} * corr;")),
        accum = regs(v4, |c| format!(
            "            a{c} = a{c} + pj * vb[o + {c}u];"
        )),
        ev = spec.ev,
        stores = store("out", "a", spec.ev, "ob", "inv"),
    )
}

/// `delta = rowsum(dO * O)` into the stats' second half. One thread per row.
fn delta(spec: &Spec) -> String {
    let v4 = spec.v4();
    let b = decls(&[
        ("st", true, "f32"),
        ("o", false, "f32"),
        ("g", false, "f32"),
    ]);
    format!(
        r#"{b}{lo}{lg}@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let L = p[0];
    let H = p[2];
    let bh = wid.y;
    let i = wid.x * 64u + lid;
    if (i >= L) {{ return; }}
    let b = bh / H;
    let h = bh % H;
    let obase = (bh * L + i) * {ev}u;
    let gbase = p[20] + b * p[21] + h * p[22] + i * p[23];
    var d = 0.0;
{sum}    st[p[7] + bh * L + i] = d;
}}
"#,
        lo = loader("o", spec.ev),
        lg = loader("g", spec.ev),
        ev = spec.ev,
        sum = regs(v4, |c| format!(
            "d = d + dot(ld_o(obase, {c}u), ld_g(gbase, {c}u));"
        )),
    )
}

/// dQ: per query row, `scale * sum_j P_ij (dO_i . v_j - delta_i) k_j`.
fn grad_q(spec: &Spec) -> String {
    let (e4, v4) = (spec.e4(), spec.v4());
    let mut b = vec![
        ("dq", true, "f32"),
        ("st", false, "f32"),
        ("q", false, "f32"),
        ("k", false, "f32"),
        ("v", false, "f32"),
        ("g", false, "f32"),
    ];
    b.extend(mask_binding(spec.mask));
    let shared = format!(
        "var<workgroup> kb: array<vec4<f32>, {}>;\nvar<workgroup> vb: array<vec4<f32>, {}>;\n",
        spec.bc * e4,
        spec.bc * v4
    );
    format!(
        r#"{decls}{head}{lq}{lk}{lv}{lg}{MAIN}    let bh = wid.y;
    let b = bh / H;
    let h = bh % H;
    let i0 = wid.x * T;
    let i = i0 + lid;
    let ir = min(i, L - 1u);
    let qbase = p[8] + b * p[9] + h * p[10] + ir * p[11];
    let gbase = p[20] + b * p[21] + h * p[22] + ir * p[23];
{qregs}{gregs}{dregs}    let lse = st[bh * L + ir];
    let dl = st[p[7] + bh * L + ir];
    let kbase = p[12] + b * p[13] + (h / p[3]) * p[14];
    let vbase = p[16] + b * p[17] + (h / p[4]) * p[18];
    var send = S;
    if (p[6] == 1u) {{ send = min(S, i0 + T); }}
    for (var r0 = 0u; r0 < send; r0 = r0 + BC) {{
        workgroupBarrier();
{stage_k}{stage_v}        workgroupBarrier();
        let nj = min(BC, S - r0);
        for (var jj = 0u; jj < nj; jj = jj + 1u) {{
            let j = r0 + jj;
            let o = jj * {e4}u;
            let ov = jj * {v4}u;
{score}            let pj = select(exp(s - lse), 0.0, s == NEG);
            let dp = {dp};
            let ds = pj * (dp - dl);
{accum}        }}
    }}
    if (i < L) {{
        let ob = (bh * L + i) * {e}u;
{stores}    }}
}}
"#,
        decls = decls(&b),
        head = head(spec, &shared),
        lq = loader("q", spec.e),
        lk = loader("k", spec.e),
        lv = loader("v", spec.ev),
        lg = loader("g", spec.ev),
        qregs = regs(e4, |c| format!("let q{c} = ld_q(qbase, {c}u) * scale;")),
        gregs = regs(v4, |c| format!("let g{c} = ld_g(gbase, {c}u);")),
        dregs = regs(e4, |c| format!("var d{c} = vec4<f32>(0.0);")),
        stage_k = stage("kb", "k", e4, "kbase", "p[15]", "S", "1.0"),
        stage_v = stage("vb", "v", v4, "vbase", "p[19]", "S", "1.0"),
        score = score(spec, "q", "kb", "o", "ir", "j"),
        dp = dot_sum("g", "vb", "ov", v4),
        accum = regs(e4, |c| format!("        d{c} = d{c} + ds * kb[o + {c}u];")),
        e = spec.e,
        stores = store("dq", "d", spec.e, "ob", "scale"),
    )
}

/// dK (`sum_i dS_ij q_i scale`) or dV (`sum_i P_ij dO_i`): per key row of one key (value) head,
/// over the query blocks of every query head that reads it.
fn grad_kv(spec: &Spec) -> String {
    let (e4, v4) = (spec.e4(), spec.v4());
    let dk = spec.pass == Pass::GradK;
    let mut b = vec![
        (if dk { "dk" } else { "dv" }, true, "f32"),
        ("st", false, "f32"),
        ("q", false, "f32"),
        ("k", false, "f32"),
    ];
    if dk {
        b.push(("v", false, "f32"));
    }
    b.push(("g", false, "f32"));
    b.extend(mask_binding(spec.mask));
    let shared = format!(
        "var<workgroup> qb: array<vec4<f32>, {}>;\nvar<workgroup> gb: array<vec4<f32>, {}>;\nvar<workgroup> ls: array<f32, {bc}>;\nvar<workgroup> dls: array<f32, {bc}>;\n",
        spec.bc * e4,
        spec.bc * v4,
        bc = spec.bc
    );
    // The head this kernel's grid runs over: per key head (dK) or value head (dV).
    let group = if dk { "p[3]" } else { "p[4]" };
    let (acc_n, out_cols) = if dk { (e4, spec.e) } else { (v4, spec.ev) };
    let vregs = if dk {
        regs(v4, |c| format!("let v{c} = ld_v(vbase, {c}u);"))
    } else {
        String::new()
    };
    let grad = if dk {
        format!(
            "            let dp = {};\n            let ds = pj * (dp - dls[ii]);\n{}",
            (0..v4)
                .map(|c| format!("dot(v{c}, gb[ov + {c}u])"))
                .collect::<Vec<_>>()
                .join(" + "),
            regs(e4, |c| format!("        d{c} = d{c} + ds * qb[o + {c}u];"))
        )
    } else {
        regs(v4, |c| format!("        d{c} = d{c} + pj * gb[ov + {c}u];"))
    };
    let stage_delta = if dk {
        "            dls[lid] = st[p[7] + qs + r0 + lid];\n"
    } else {
        ""
    };
    let ldv = if dk {
        loader("v", spec.ev)
    } else {
        String::new()
    };
    format!(
        r#"{decls}{head}{lq}{lk}{ldv}{lg}{MAIN}    let HX = H / {group};
    let bh = wid.y;
    let b = bh / HX;
    let hx = bh % HX;
    let jb = wid.x * T;
    let j = jb + lid;
    let jr = min(j, S - 1u);
{dregs}    var istart = 0u;
    if (p[6] == 1u) {{ istart = (jb / BC) * BC; }}
    for (var h = hx * {group}; h < (hx + 1u) * {group}; h = h + 1u) {{
        let kbase = p[12] + b * p[13] + (h / p[3]) * p[14] + jr * p[15];
        let vbase = p[16] + b * p[17] + (h / p[4]) * p[18] + jr * p[19];
{kregs}{vregs}        let qhead = p[8] + b * p[9] + h * p[10];
        let ghead = p[20] + b * p[21] + h * p[22];
        let qs = (b * H + h) * L;
        for (var r0 = istart; r0 < L; r0 = r0 + BC) {{
            workgroupBarrier();
{stage_q}{stage_g}            if (lid < BC && r0 + lid < L) {{
                ls[lid] = st[qs + r0 + lid];
{stage_delta}            }}
            workgroupBarrier();
            let ni = min(BC, L - r0);
            for (var ii = 0u; ii < ni; ii = ii + 1u) {{
                let i = r0 + ii;
                let o = ii * {e4}u;
                let ov = ii * {v4}u;
{score}                let pj = select(exp(s - ls[ii]), 0.0, s == NEG);
{grad}            }}
        }}
    }}
    if (j < S) {{
        let ob = (bh * S + j) * {out_cols}u;
{stores}    }}
}}
"#,
        decls = decls(&b),
        head = head(spec, &shared),
        lq = loader("q", spec.e),
        lk = loader("k", spec.e),
        lg = loader("g", spec.ev),
        dregs = regs(acc_n, |c| format!("var d{c} = vec4<f32>(0.0);")),
        kregs = regs(e4, |c| format!("let k{c} = ld_k(kbase, {c}u);")),
        stage_q = stage("qb", "q", e4, "qhead", "p[11]", "L", "scale"),
        stage_g = stage("gb", "g", v4, "ghead", "p[23]", "L", "1.0"),
        score = kv_score(spec),
        stores = store(if dk { "dk" } else { "dv" }, "d", out_cols, "ob", "1.0"),
    )
}

/// The score of staged query `ii` (pre-scaled) with this thread's key (registers `k*`).
fn kv_score(spec: &Spec) -> String {
    let mut s = format!(
        "            var s = {};\n",
        (0..spec.e4())
            .map(|c| format!("dot(k{c}, qb[o + {c}u])"))
            .collect::<Vec<_>>()
            .join(" + ")
    );
    if spec.mask != MaskKind::None {
        s.push_str("                s = s + mval(b, h, i, jr);\n");
    }
    s.push_str("                if (p[6] == 1u && jr > i) { s = NEG; }\n");
    s
}

/// A normalised operand: its tensor, offset and (batch, head, row) strides.
pub(crate) struct View4<'a> {
    pub t: &'a Tensor,
    pub offset: usize,
    pub strides: [usize; 3],
}

impl View4<'_> {
    fn words(&self) -> [u32; 4] {
        [
            self.offset as u32,
            self.strides[0] as u32,
            self.strides[1] as u32,
            self.strides[2] as u32,
        ]
    }
}

/// The mask operand: offset and (batch, head, row, column) strides.
pub(crate) struct Mask4<'a> {
    pub t: &'a Tensor,
    pub kind: MaskKind,
    pub offset: usize,
    pub strides: [usize; 4],
}

/// Everything one SDPA's kernels read.
pub(crate) struct Problem<'a> {
    pub b: usize,
    pub h: usize,
    pub l: usize,
    pub s: usize,
    pub e: usize,
    pub ev: usize,
    pub gk: usize,
    pub gv: usize,
    pub scale: f32,
    pub causal: bool,
    pub bc: u32,
    pub q: View4<'a>,
    pub k: View4<'a>,
    pub v: View4<'a>,
    pub mask: Option<Mask4<'a>>,
}

impl Problem<'_> {
    fn mask_kind(&self) -> MaskKind {
        self.mask.as_ref().map_or(MaskKind::None, |m| m.kind)
    }

    fn spec(&self, pass: Pass) -> Spec {
        Spec {
            pass,
            e: self.e as u32,
            ev: self.ev as u32,
            bc: self.bc,
            mask: self.mask_kind(),
        }
    }

    fn params(&self, g: Option<&View4<'_>>) -> Vec<u32> {
        let mut p = vec![
            self.l as u32,
            self.s as u32,
            self.h as u32,
            self.gk as u32,
            self.gv as u32,
            self.scale.to_bits(),
            u32::from(self.causal),
            (self.b * self.h * self.l) as u32,
        ];
        p.extend(self.q.words());
        p.extend(self.k.words());
        p.extend(self.v.words());
        p.extend(g.map_or([0; 4], |g| g.words()));
        match &self.mask {
            Some(m) => {
                p.push(m.offset as u32);
                p.extend(m.strides.iter().map(|&s| s as u32));
            }
            None => p.extend([0; 5]),
        }
        p
    }

    fn run(
        &self,
        pass: Pass,
        tensors: &[&Tensor],
        g: Option<&View4<'_>>,
        grid: [u32; 3],
    ) -> Result<()> {
        let spec = self.spec(pass);
        let key = spec.key();
        let source = || spec.source();
        let kernel = Kernel {
            key: &key,
            source: &source,
            // Every global access is guarded by construction (see the module's doc).
            bounds_checked: false,
        };
        let mut all: Vec<&Tensor> = tensors.to_vec();
        if let Some(m) = self.mask.as_ref().filter(|_| pass != Pass::Delta) {
            all.push(m.t);
        }
        dispatch_grid(self.q.t.device(), &kernel, &all, &self.params(g), grid)
    }

    fn rows(&self, n: usize, heads: usize) -> [u32; 3] {
        [n.div_ceil(T as usize) as u32, (self.b * heads) as u32, 1]
    }

    /// The output `(B, H, L, Ev)` and the stats `[2, B*H*L]` (logsumexp filled).
    pub(crate) fn forward(&self) -> Result<(Tensor, Tensor)> {
        let dev = self.q.t.device();
        let out = Tensor::uninit(
            dev,
            &[self.b, self.h, self.l, self.ev],
            crate::DType::Float32,
        )?;
        let st = Tensor::uninit(dev, &[2 * self.b * self.h * self.l], crate::DType::Float32)?;
        let grid = self.rows(self.l, self.h);
        self.run(
            Pass::Forward,
            &[&out, &st, self.q.t, self.k.t, self.v.t],
            None,
            grid,
        )?;
        Ok((out, st))
    }

    /// dQ `(B, H, L, E)`, dK `(B, H / gk, S, E)` and dV `(B, H / gv, S, Ev)` of `g` (the output's
    /// gradient), given the forward's output and stats; `want` picks which.
    pub(crate) fn backward(
        &self,
        out: &Tensor,
        st: &Tensor,
        g: &View4<'_>,
        want: [bool; 3],
    ) -> Result<[Option<Tensor>; 3]> {
        let dev = self.q.t.device();
        let f32 = crate::DType::Float32;
        // delta: written into the stats' second half (the first, the logsumexp, is kept).
        self.run(
            Pass::Delta,
            &[st, out, g.t],
            Some(g),
            self.rows(self.l, self.h),
        )?;
        let dq = if want[0] {
            let dq = Tensor::uninit(dev, &[self.b, self.h, self.l, self.e], f32)?;
            let t = [&dq, st, self.q.t, self.k.t, self.v.t, g.t];
            self.run(Pass::GradQ, &t, Some(g), self.rows(self.l, self.h))?;
            Some(dq)
        } else {
            None
        };
        let dk = if want[1] {
            let hk = self.h / self.gk;
            let dk = Tensor::uninit(dev, &[self.b, hk, self.s, self.e], f32)?;
            let t = [&dk, st, self.q.t, self.k.t, self.v.t, g.t];
            self.run(Pass::GradK, &t, Some(g), self.rows(self.s, hk))?;
            Some(dk)
        } else {
            None
        };
        let dv = if want[2] {
            let hv = self.h / self.gv;
            let dv = Tensor::uninit(dev, &[self.b, hv, self.s, self.ev], f32)?;
            let t = [&dv, st, self.q.t, self.k.t, g.t];
            self.run(Pass::GradV, &t, Some(g), self.rows(self.s, hv))?;
            Some(dv)
        } else {
            None
        };
        Ok([dq, dk, dv])
    }
}

/// Every specialisation the tests compile, for validation by naga.
pub(crate) fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let passes = [
        Pass::Forward,
        Pass::Delta,
        Pass::GradQ,
        Pass::GradK,
        Pass::GradV,
    ];
    for (e, ev) in [(4, 6), (8, 8), (64, 64), (3, 5), (128, 128), (80, 96)] {
        for mask in [MaskKind::None, MaskKind::Float, MaskKind::Bool] {
            for pass in passes {
                let bc = block_for(e, ev, 16384).unwrap_or(4);
                let spec = Spec {
                    pass,
                    e: e as u32,
                    ev: ev as u32,
                    bc,
                    mask,
                };
                out.push((spec.key(), spec.source()));
            }
        }
    }
    out
}
