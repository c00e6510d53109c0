//! WGSL source of the reduction kernel (see reduce.rs for the specs and the launcher).
//!
//! Params: n_out, n_red (this dispatch's row length), input offset, kept rank, reduced rank,
//! n (the row length finalizers see), chunks per row, chunk length; the float extras; then kept
//! shape, kept strides, reduced shape, reduced strides and, for elementwise output, kept and
//! reduced out-strides.

use std::fmt::Write;

use super::prelude;
use super::reduce::{Combine, Fold, Output, ReduceSpec};
use crate::dtype::DType;

/// Words before the extras.
pub(crate) const HEADER: usize = 8;

/// Which part of a reduction one dispatch does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Stage {
    /// Whole rows, finalized.
    Whole,
    /// One chunk of a row per workgroup, written unfinalized (accumulator and index).
    Partial,
    /// The partials of each row combined and finalized; its input is the partials.
    Final,
}

const HELPERS: &str = r#"
fn k(i: u32) -> f32 { return bitcast<f32>(p[8u + i]); }
fn offs(i: u32, rank: u32, shape_at: u32, stride_at: u32) -> i32 {
    var rem = i;
    var off = 0;
    for (var d = i32(rank) - 1; d >= 0; d = d - 1) {
        let ud = u32(d);
        let n = p[shape_at + ud];
        off = off + i32(rem % n) * sp(stride_at + ud);
        rem = rem / n;
    }
    return off;
}
fn div_or_nan(a: f32, d: f32) -> f32 {
    if (d == 0.0) {
        if (is_nan(a) || a == 0.0) { return f_nan(); }
        return select(-f_inf(), f_inf(), a > 0.0);
    }
    return a / d;
}
fn nonzero_f(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) != 0u; }
fn log_f(x: f32) -> f32 { return log_(x); }
"#;

fn convert(x: &str, from: DType, to: DType) -> String {
    if from == to {
        x.to_string()
    } else {
        format!("{}({x})", to.wgsl())
    }
}

fn fold_fns(s: &mut String, prefix: &str, fold: &Fold, ct: &str) {
    let acc = fold.acc;
    let _ = writeln!(
        s,
        "fn {prefix}map(x: {ct}, pre: f32) -> {acc} {{ return {}; }}",
        fold.map
    );
    let _ = writeln!(s, "fn {prefix}init() -> {acc} {{ return {}; }}", fold.init);
    match &fold.combine {
        Combine::Expr(e) => {
            let _ = writeln!(
                s,
                "fn {prefix}comb(a: {acc}, b: {acc}) -> {acc} {{ return {e}; }}"
            );
        }
        Combine::Take(e) => {
            let _ = writeln!(
                s,
                "fn {prefix}take(a: {acc}, ia: i32, b: {acc}, ib: i32) -> bool {{\n    if (ib < 0) {{ return false; }}\n    if (ia < 0) {{ return true; }}\n    return {e};\n}}"
            );
        }
    }
}

/// WGSL folding this thread's elements of row `o` (from `lo` to `hi`) into `{prefix}acc` (and
/// `{prefix}ai`); with `wg`, a strided loop then a tree over `shared` (and `shared`i).
/// `value` and `index` are WGSL for one element at offset `at` (loaded as `x`, row index `r`).
fn fold_body(
    s: &mut String,
    prefix: &str,
    fold: &Fold,
    wg: bool,
    shared: &str,
    elem: (&str, &str),
) {
    let (value, index) = elem;
    let indexed = matches!(fold.combine, Combine::Take(_));
    let (start, step) = if wg {
        ("lo + lid", "256u")
    } else {
        ("lo", "1u")
    };
    let _ = writeln!(s, "    var {prefix}acc = {prefix}init();");
    if indexed {
        let _ = writeln!(s, "    var {prefix}ai = -1;");
    }
    let _ = writeln!(
        s,
        "    for (var r = {start}; r < hi; r = r + {step}) {{\n        let at = base + offs(r, rr, rs, rs + rr);\n        let x = load(at);\n        let v = {value};"
    );
    if indexed {
        let _ = writeln!(
            s,
            "        let iv = {index};\n        if ({prefix}take({prefix}acc, {prefix}ai, v, iv)) {{ {prefix}acc = v; {prefix}ai = iv; }}"
        );
    } else {
        let _ = writeln!(s, "        {prefix}acc = {prefix}comb({prefix}acc, v);");
    }
    s.push_str("    }\n");
    if !wg {
        return;
    }
    let _ = writeln!(s, "    {shared}[lid] = {prefix}acc;");
    if indexed {
        let _ = writeln!(s, "    {shared}i[lid] = {prefix}ai;");
    }
    s.push_str("    workgroupBarrier();\n    for (var h = 128u; h > 0u; h = h >> 1u) {\n        if (lid < h) {\n");
    if indexed {
        let _ = writeln!(
            s,
            "            if ({prefix}take({shared}[lid], {shared}i[lid], {shared}[lid + h], {shared}i[lid + h])) {{ {shared}[lid] = {shared}[lid + h]; {shared}i[lid] = {shared}i[lid + h]; }}"
        );
    } else {
        let _ = writeln!(
            s,
            "            {shared}[lid] = {prefix}comb({shared}[lid], {shared}[lid + h]);"
        );
    }
    s.push_str("        }\n        workgroupBarrier();\n    }\n");
    let _ = writeln!(s, "    {prefix}acc = {shared}[0];");
    if indexed {
        let _ = writeln!(s, "    {prefix}ai = {shared}i[0];");
    }
}

fn out_dtype(output: &Output) -> DType {
    match output {
        Output::Value { dtype, .. } | Output::Elementwise { dtype, .. } => *dtype,
        Output::Index => DType::Int64,
    }
}

/// The source of one dispatch of `spec` over an input of dtype `input` (the accumulator's
/// dtype for `Stage::Final`), by workgroups per row (`wg`) or threads.
pub(crate) fn source(spec: &ReduceSpec, input: DType, wg: bool, stage: Stage) -> String {
    let ct = spec.compute.wgsl();
    let acc = spec.fold.acc;
    let indexed = matches!(spec.fold.combine, Combine::Take(_));
    let (writes_value, writes_index) = match (&spec.output, stage) {
        (_, Stage::Partial) => (true, indexed),
        (Output::Value { index, .. }, _) => (true, *index),
        (Output::Index, _) => (false, true),
        (Output::Elementwise { .. }, _) => (true, false),
    };
    let mut s = String::new();
    s.push_str("@group(0) @binding(0) var<storage, read> p: array<u32>;\n");
    let mut binding = 1;
    let mut bind = |s: &mut String, decl: String| {
        let _ = writeln!(s, "@group(0) @binding({binding}) {decl};");
        binding += 1;
    };
    if writes_value {
        let t = if stage == Stage::Partial {
            acc
        } else {
            out_dtype(&spec.output).wgsl()
        };
        bind(&mut s, format!("var<storage, read_write> out: array<{t}>"));
    }
    if writes_index {
        bind(&mut s, "var<storage, read_write> outi: array<i32>".into());
    }
    bind(
        &mut s,
        format!("var<storage, read> inp: array<{}>", input.wgsl()),
    );
    if stage == Stage::Final && indexed {
        bind(&mut s, "var<storage, read> inpi: array<i32>".into());
    }
    s.push_str(prelude::INDEX);
    s.push_str(prelude::MATH);
    s.push_str(HELPERS);
    let elem = if stage == Stage::Final {
        let _ = writeln!(s, "fn load(i: i32) -> {acc} {{ return inp[i]; }}");
        ("x", "inpi[at]")
    } else {
        let _ = writeln!(
            s,
            "fn load(i: i32) -> {ct} {{ return {}; }}",
            convert("inp[i]", input, spec.compute)
        );
        ("m_map(x, pre)", "i32(r)")
    };
    if let Some(pre) = &spec.pre {
        fold_fns(&mut s, "p_", &pre.fold, ct);
        let _ = writeln!(
            s,
            "fn p_fin(acc: f32, n: f32) -> f32 {{ return {}; }}",
            pre.finalize
        );
    }
    fold_fns(&mut s, "m_", &spec.fold, ct);
    if wg {
        let _ = writeln!(s, "var<workgroup> sh: array<{acc}, 256>;");
        if indexed {
            s.push_str("var<workgroup> shi: array<i32, 256>;\n");
        }
        if let Some(pre) = &spec.pre {
            let _ = writeln!(s, "var<workgroup> shp: array<{}, 256>;", pre.fold.acc);
        }
    }
    s.push_str("@compute @workgroup_size(256)\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    s.push_str(if wg {
        "    let wgi = wid.y * nwg.x + wid.x;\n"
    } else {
        "    let wgi = flat_index(wid, nwg, lid);\n"
    });
    let _ = writeln!(
        s,
        "    let o = wgi / p[6];
    if (o >= p[0]) {{ return; }}
    let nred = p[1];
    let n = f32(p[5]);
    let kr = p[3];
    let rr = p[4];
    let lo = (wgi % p[6]) * p[7];
    let hi = min(nred, lo + p[7]);
    let ks = {}u;
    let rs = ks + 2u * kr;
    let base = sp(2u) + offs(o, kr, ks, ks + kr);",
        HEADER + spec.extras.len()
    );
    if let Some(pre) = &spec.pre {
        s.push_str("    var pre = 0.0;\n");
        fold_body(&mut s, "p_", &pre.fold, wg, "shp", ("p_map(x, 0.0)", ""));
        s.push_str("    pre = p_fin(p_acc, n);\n");
    } else {
        s.push_str("    let pre = 0.0;\n");
    }
    fold_body(&mut s, "m_", &spec.fold, wg, "sh", elem);
    let mut tail = String::new();
    match (&spec.output, stage) {
        (_, Stage::Partial) => {
            tail.push_str("        out[wgi] = m_acc;\n");
            if indexed {
                tail.push_str("        outi[wgi] = m_ai;\n");
            }
        }
        (Output::Value { finalize, .. }, _) => {
            let _ = writeln!(
                tail,
                "        let acc = m_acc;\n        out[o] = {finalize};"
            );
            if writes_index {
                tail.push_str("        outi[o] = max(m_ai, 0);\n");
            }
        }
        (Output::Index, _) => tail.push_str("        outi[o] = max(m_ai, 0);\n"),
        (Output::Elementwise { expr, .. }, _) => {
            let (start, step) = if wg { ("lid", "256u") } else { ("0u", "1u") };
            let _ = writeln!(
                s,
                "    let acc = m_acc;\n    let os = rs + 2u * rr;\n    let obase = offs(o, kr, ks, os);\n    for (var r = {start}; r < nred; r = r + {step}) {{\n        let x = load(base + offs(r, rr, rs, rs + rr));\n        out[obase + offs(r, rr, rs, os + kr)] = {expr};\n    }}"
            );
        }
    }
    if !tail.is_empty() {
        let _ = write!(s, "    if (lid == 0u || {}) {{\n{tail}    }}\n", !wg);
    }
    s.push_str("}\n");
    s
}

/// The pipeline-cache key of `source`'s arguments.
pub(crate) fn key(spec: &ReduceSpec, input: DType, wg: bool, stage: Stage) -> String {
    let fold_key = |f: &Fold| {
        let c = match &f.combine {
            Combine::Expr(e) => format!("e:{e}"),
            Combine::Take(e) => format!("t:{e}"),
        };
        format!("{}|{}|{}|{c}", f.acc, f.init, f.map)
    };
    let out = match &spec.output {
        Output::Value {
            dtype,
            finalize,
            index,
        } => format!("v:{dtype:?}:{finalize}:{index}"),
        Output::Index => "i".to_string(),
        Output::Elementwise { dtype, expr } => format!("w:{dtype:?}:{expr}"),
    };
    let pre = spec
        .pre
        .as_ref()
        .map(|p| format!("{}|{}", fold_key(&p.fold), p.finalize))
        .unwrap_or_default();
    format!(
        "reduce|{input:?}|{:?}|{wg}|{stage:?}|{}|{pre}|{out}|e{}",
        spec.compute,
        fold_key(&spec.fold),
        spec.extras.len()
    )
}
