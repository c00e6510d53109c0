//! The one-row-per-thread kernels: each thread owns one query (forward, dQ) or key row (dK,
//! dV) and reads the other side's staged rows as broadcasts.

use super::*;

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

pub(super) fn forward(spec: &Spec) -> String {
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
        let ob = ((b * L + i) * H + h) * {ev}u;
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
pub(super) fn delta(spec: &Spec) -> String {
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
    let obase = ((b * L + i) * H + h) * {ev}u;
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
pub(super) fn grad_q(spec: &Spec) -> String {
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
pub(super) fn grad_kv(spec: &Spec) -> String {
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
