//! The one reduction kernel: each output element folds the elements of a strided input over the
//! reduced dims, described as "map, combine, finalize" WGSL snippets. An optional first pass
//! (e.g. the max for logsumexp and softmax, the mean for var) gives the second pass `pre`.
//! Rows longer than `THREAD_ROW_MAX` are folded by one workgroup of 256 threads (strided loop,
//! then a shared-memory tree); shorter rows by one thread each. Softmax-like ops write every
//! element of the row (`Output::Elementwise`) instead of one value.

use std::fmt::Write;

use borch_device::Kernel;

use super::{groups_for, launch, prelude, w};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// Rows up to this length are reduced by one thread each, longer ones by a workgroup.
const THREAD_ROW_MAX: usize = 64;

/// Words before the shapes and strides: n_out, n_red, offset, kept rank, reduced rank.
const HEADER: usize = 5;

/// How elements fold into an accumulator of WGSL type `acc`.
pub(crate) struct Fold {
    pub acc: &'static str,
    pub init: String,
    /// Of `x` (the element converted to the spec's compute type) and `pre`.
    pub map: String,
    pub combine: Combine,
}

pub(crate) enum Combine {
    /// A new accumulator from `a` and `b`.
    Expr(String),
    /// Keep the value with an index: whether `(b, ib)` replaces `(a, ia)`; an empty slot has
    /// index -1 and never wins.
    Take(String),
}

/// The first pass: an f32 fold and its finalizer (of `acc` and `n`), giving `pre`.
pub(crate) struct Pre {
    pub fold: Fold,
    pub finalize: String,
}

pub(crate) enum Output {
    /// One value per output: `finalize` of `acc`, `n` (the row length as f32) and `pre`,
    /// yielding `dtype`'s WGSL type; with `index`, also the winning index (int64).
    Value {
        dtype: DType,
        finalize: String,
        index: bool,
    },
    /// Only the winning index (argmax).
    Index,
    /// Every element of the row: `expr` of `x`, `acc`, `n` and `pre`.
    Elementwise { dtype: DType, expr: String },
}

/// A whole reduction. Snippets may read the float extras as `k(0u)`, `k(1u)`, ….
pub(crate) struct ReduceSpec {
    pub compute: DType,
    pub pre: Option<Pre>,
    pub fold: Fold,
    pub output: Output,
    pub extras: Vec<f32>,
}

/// Dims of one side (kept or reduced) after dropping size-1 dims and merging neighbours.
#[derive(Default)]
struct Dims {
    shape: Vec<usize>,
    strides: Vec<isize>,
    out_strides: Vec<isize>,
}

impl Dims {
    fn push(&mut self, n: usize, stride: isize, out_stride: isize) {
        if n == 1 {
            return;
        }
        if let (Some(last_n), Some(last_s), Some(last_o)) = (
            self.shape.last_mut(),
            self.strides.last_mut(),
            self.out_strides.last_mut(),
        ) {
            if *last_s == stride * n as isize && *last_o == out_stride * n as isize {
                *last_n *= n;
                *last_s = stride;
                *last_o = out_stride;
                return;
            }
        }
        self.shape.push(n);
        self.strides.push(stride);
        self.out_strides.push(out_stride);
    }
}

fn compute_wgsl(c: DType) -> &'static str {
    c.wgsl()
}

fn convert(x: &str, from: DType, to: DType) -> String {
    if from == to {
        x.to_string()
    } else {
        format!("{}({x})", to.wgsl())
    }
}

const HELPERS: &str = r#"
fn k(i: u32) -> f32 { return bitcast<f32>(p[5u + i]); }
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
fn log_f(x: f32) -> f32 {
    if (x == 0.0) { return -f_inf(); }
    if (is_inf(x) && x > 0.0) { return x; }
    return log(x);
}
"#;

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

/// WGSL folding row `o` with `fold` (functions named `prefix…`) into `acc` (and `ai`).
/// `wg`: a strided loop then a tree over `shared` (and `shared`i); else a plain loop.
fn fold_body(s: &mut String, prefix: &str, fold: &Fold, wg: bool, shared: &str) {
    let indexed = matches!(fold.combine, Combine::Take(_));
    let (start, step) = if wg { ("lid", "256u") } else { ("0u", "1u") };
    let _ = writeln!(s, "    var {prefix}acc = {prefix}init();");
    if indexed {
        let _ = writeln!(s, "    var {prefix}ai = -1;");
    }
    let _ = writeln!(
        s,
        "    for (var r = {start}; r < nred; r = r + {step}) {{\n        let x = load(base + offs(r, rr, rs, rs + rr));\n        let v = {prefix}map(x, pre);"
    );
    if indexed {
        let _ = writeln!(
            s,
            "        if ({prefix}take({prefix}acc, {prefix}ai, v, i32(r))) {{ {prefix}acc = v; {prefix}ai = i32(r); }}"
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

fn source(spec: &ReduceSpec, input: DType, wg: bool) -> String {
    let ct = compute_wgsl(spec.compute);
    let indexed = matches!(spec.fold.combine, Combine::Take(_));
    let mut s = String::new();
    s.push_str("@group(0) @binding(0) var<storage, read> p: array<u32>;\n");
    let mut binding = 1;
    let (writes_value, writes_index) = match &spec.output {
        Output::Value { index, .. } => (true, *index),
        Output::Index => (false, true),
        Output::Elementwise { .. } => (true, false),
    };
    if writes_value {
        let dt = match &spec.output {
            Output::Value { dtype, .. } | Output::Elementwise { dtype, .. } => *dtype,
            Output::Index => DType::Int64,
        };
        let _ = writeln!(
            s,
            "@group(0) @binding({binding}) var<storage, read_write> out: array<{}>;",
            dt.wgsl()
        );
        binding += 1;
    }
    if writes_index {
        let _ = writeln!(
            s,
            "@group(0) @binding({binding}) var<storage, read_write> outi: array<i32>;"
        );
        binding += 1;
    }
    let _ = writeln!(
        s,
        "@group(0) @binding({binding}) var<storage, read> inp: array<{}>;",
        input.wgsl()
    );
    s.push_str(prelude::INDEX);
    s.push_str(prelude::MATH);
    s.push_str(HELPERS);
    let _ = writeln!(
        s,
        "fn load(i: i32) -> {ct} {{ return {}; }}",
        convert("inp[i]", input, spec.compute)
    );
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
        let _ = writeln!(s, "var<workgroup> sh: array<{}, 256>;", spec.fold.acc);
        if indexed {
            s.push_str("var<workgroup> shi: array<i32, 256>;\n");
        }
        if let Some(pre) = &spec.pre {
            let _ = writeln!(s, "var<workgroup> shp: array<{}, 256>;", pre.fold.acc);
        }
    }
    s.push_str("@compute @workgroup_size(256)\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    if wg {
        s.push_str("    let o = wid.y * nwg.x + wid.x;\n");
    } else {
        s.push_str("    let o = flat_index(wid, nwg, lid);\n");
    }
    let _ = writeln!(
        s,
        "    if (o >= p[0]) {{ return; }}\n    let nred = p[1];\n    let n = f32(nred);\n    let kr = p[3];\n    let rr = p[4];\n    let ks = {HEADER}u + {}u;",
        spec.extras.len()
    );
    // Layout of the tail: kept shape, kept strides, reduced shape, reduced strides, then (for
    // elementwise output) kept out-strides and reduced out-strides.
    s.push_str("    let rs = ks + 2u * kr;\n    let base = sp(2u) + offs(o, kr, ks, ks + kr);\n");
    if let Some(pre) = &spec.pre {
        s.push_str("    var pre = 0.0;\n");
        fold_body(&mut s, "p_", &pre.fold, wg, "shp");
        s.push_str("    pre = p_fin(p_acc, n);\n");
    } else {
        s.push_str("    let pre = 0.0;\n");
    }
    fold_body(&mut s, "m_", &spec.fold, wg, "sh");
    let mut tail = String::new();
    if let Output::Value { finalize, .. } = &spec.output {
        let _ = writeln!(
            tail,
            "        let acc = m_acc;\n        out[o] = {finalize};"
        );
    }
    if writes_index && !matches!(spec.output, Output::Elementwise { .. }) {
        tail.push_str("        outi[o] = max(m_ai, 0);\n");
    }
    match &spec.output {
        Output::Value { .. } | Output::Index => {
            let _ = write!(s, "    if (lid == 0u || {}) {{\n{tail}    }}\n", !wg);
        }
        Output::Elementwise { expr, .. } => {
            let (start, step) = if wg { ("lid", "256u") } else { ("0u", "1u") };
            let _ = writeln!(
                s,
                "    let acc = m_acc;\n    let os = rs + 2u * rr;\n    let obase = offs(o, kr, ks, os);\n    for (var r = {start}; r < nred; r = r + {step}) {{\n        let x = load(base + offs(r, rr, rs, rs + rr));\n        out[obase + offs(r, rr, rs, os + kr)] = {expr};\n    }}"
            );
        }
    }
    s.push_str("}\n");
    s
}

fn key(spec: &ReduceSpec, input: DType, wg: bool) -> String {
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
        "reduce|{input:?}|{:?}|{wg}|{}|{pre}|{out}|e{}",
        spec.compute,
        fold_key(&spec.fold),
        spec.extras.len()
    )
}

/// Run `spec` over `input`, reducing the dims marked in `reduced` (one flag per dim).
/// The outputs are new contiguous tensors: for `Value`/`Index` of the kept dims' shape
/// (`out_shape`, which may hold keepdim's 1s), for `Elementwise` of the input's shape.
/// Returns (values, indices), each present when the output kind writes it.
pub(crate) fn reduce(
    spec: &ReduceSpec,
    input: &Tensor,
    reduced: &[bool],
    out_shape: &[usize],
) -> Result<(Option<Tensor>, Option<Tensor>)> {
    let device = input.device().clone();
    let layout = input.layout();
    let elementwise = matches!(spec.output, Output::Elementwise { .. });
    let (values, indices) = match &spec.output {
        Output::Value { dtype, index, .. } => (
            Some(Tensor::uninit(&device, out_shape, *dtype)?),
            index
                .then(|| Tensor::uninit(&device, out_shape, DType::Int64))
                .transpose()?,
        ),
        Output::Index => (
            None,
            Some(Tensor::uninit(&device, out_shape, DType::Int64)?),
        ),
        Output::Elementwise { dtype, .. } => {
            (Some(Tensor::uninit(&device, input.shape(), *dtype)?), None)
        }
    };
    let out_layout = Layout::contiguous(input.shape());
    let (mut kept, mut red) = (Dims::default(), Dims::default());
    let (mut n_out, mut n_red) = (1usize, 1usize);
    for (d, &is_reduced) in reduced.iter().enumerate() {
        let n = layout.shape[d];
        let (st, ost) = (layout.strides[d], out_layout.strides[d]);
        if is_reduced {
            n_red *= n;
            red.push(n, st, ost);
        } else {
            n_out *= n;
            kept.push(n, st, ost);
        }
    }
    if n_out == 0 || (elementwise && n_red == 0) {
        return Ok((values, indices));
    }
    if n_red == 0 {
        red = Dims::default();
    }
    let wg = n_red > THREAD_ROW_MAX;
    let mut params: Vec<u32> = vec![
        n_out as u32,
        n_red as u32,
        layout.offset as u32,
        kept.shape.len() as u32,
        red.shape.len() as u32,
    ];
    params.extend(spec.extras.iter().map(|x| x.to_bits()));
    params.extend(kept.shape.iter().map(|&n| n as u32));
    params.extend(kept.strides.iter().map(|&s| w(s)));
    params.extend(red.shape.iter().map(|&n| n as u32));
    params.extend(red.strides.iter().map(|&s| w(s)));
    if elementwise {
        params.extend(kept.out_strides.iter().map(|&s| w(s)));
        params.extend(red.out_strides.iter().map(|&s| w(s)));
    }
    let key = key(spec, input.dtype(), wg);
    let make_source = || source(spec, input.dtype(), wg);
    let kernel = Kernel {
        key: &key,
        source: &make_source,
        bounds_checked: true,
    };
    let mut bound: Vec<&Tensor> = Vec::new();
    bound.extend(values.iter());
    bound.extend(indices.iter());
    bound.push(input);
    let groups = if wg { n_out as u32 } else { groups_for(n_out) };
    launch(&device, &kernel, &bound, &params, groups)?;
    Ok((values, indices))
}
