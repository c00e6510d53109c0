//! The scatter kernel behind `scatter`, `scatter_add` and `index_add`: one thread per source
//! element reads its index and writes (or adds) the element at that index along one dim of the
//! destination, in place through the destination's strides. A bad index is reported through
//! `check` and its element skipped.
//!
//! Adding uses atomics: `atomicAdd` for int64 (i32 storage), `atomicOr` for bool, and for f32 a
//! compare-exchange loop on the value's bits. The work is one thread per source element whatever
//! the number of collisions (an embedding's backward pass adds many rows into a few), where a
//! deterministic one-thread-per-output formulation would loop over every source for every
//! output. The price is the order of float additions into one element, which varies between
//! runs: the same nondeterminism torch documents for `scatter_add_`/`index_add_` on CUDA.
//! Integer and bool results are exact.

use borch_device::Kernel;

use super::check::{Fault, REPORT, code, flag_for};
use super::{groups_for, launch, prelude, w};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Assign,
    Add,
}

/// The values to write: a tensor read through strides, or one value's bits.
pub(crate) enum Values<'a> {
    Tensor(&'a Tensor, Vec<isize>),
    Scalar(u32),
}

/// One scatter over every coordinate `c` of `shape`: with `k = index[Σ c_d·index_strides[d]]`,
/// `out[Σ c_d·out_strides[d] + k·out_dim_stride] (+)= alpha · value(c)`.
pub(crate) struct Scatter<'a> {
    pub out: &'a Tensor,
    pub index: &'a Tensor,
    pub values: Values<'a>,
    pub shape: &'a [usize],
    pub index_strides: Vec<isize>,
    pub out_strides: Vec<isize>,
    pub out_dim_stride: isize,
    pub dim_size: usize,
    pub dim: usize,
    pub mode: Mode,
    /// The bits of `alpha` in the destination's dtype (adding only).
    pub alpha: u32,
    /// torch's name of the op, for a deferred index error.
    pub op: &'static str,
}

const HEADER: usize = 11;

pub(crate) fn source(dtype: DType, mode: Mode, scalar: bool) -> String {
    let t = dtype.wgsl();
    let out_ty = match (mode, dtype) {
        (Mode::Assign, _) => t.to_string(),
        (Mode::Add, DType::Int64) => "atomic<i32>".into(),
        (Mode::Add, _) => "atomic<u32>".into(),
    };
    let mut binding = 2;
    let mut decls = String::new();
    if !scalar {
        decls += &format!("@group(0) @binding({binding}) var<storage, read> src: array<{t}>;\n");
        binding += 1;
    }
    decls += &format!(
        "@group(0) @binding({}) var<storage, read> idx: array<i32>;\n\
         @group(0) @binding({}) var<storage, read_write> flag: array<atomic<i32>>;\n",
        binding,
        binding + 1
    );
    let value = if scalar {
        format!("bitcast<{t}>(p[9])")
    } else {
        "src[so]".into()
    };
    let write = match (mode, dtype) {
        (Mode::Assign, _) => "out[at] = v;".to_string(),
        (Mode::Add, DType::Float32) => "add_f32(at, v * bitcast<f32>(p[10]));".into(),
        (Mode::Add, DType::Int64) => "atomicAdd(&out[at], v * bitcast<i32>(p[10]));".into(),
        (Mode::Add, DType::Bool) => {
            "if (v != 0u && p[10] != 0u) { atomicOr(&out[at], 1u); }".into()
        }
    };
    let add_f32 = if mode == Mode::Add && dtype == DType::Float32 {
        r#"
fn add_f32(at: i32, v: f32) {
    var old = atomicLoad(&out[at]);
    loop {
        let r = atomicCompareExchangeWeak(&out[at], old, bitcast<u32>(bitcast<f32>(old) + v));
        if (r.exchanged) { return; }
        old = r.old_value;
    }
}
"#
    } else {
        ""
    };
    format!(
        r#"@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<{out_ty}>;
{decls}{index}{report}{add_f32}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) {{ return; }}
    let rank = p[1];
    var rem = i;
    var oo = sp(2u);
    var io = sp(3u);
    var so = sp(4u);
    for (var d = i32(rank) - 1; d >= 0; d = d - 1) {{
        let ud = u32(d);
        let n = p[{HEADER}u + ud];
        let c = i32(rem % n);
        rem = rem / n;
        io = io + c * sp({HEADER}u + rank + ud);
        so = so + c * sp({HEADER}u + 2u * rank + ud);
        oo = oo + c * sp({HEADER}u + 3u * rank + ud);
    }}
    let size = sp(6u);
    let k = idx[io];
    if (k < 0 || k >= size) {{
        report(p[7], k, size, sp(8u));
        return;
    }}
    let at = oo + k * sp(5u);
    let v = {value};
    {write}
}}
"#,
        index = prelude::INDEX,
        report = REPORT,
    )
}

/// Run one scatter into `s.out` (in place).
pub(crate) fn scatter(s: &Scatter<'_>) -> Result<()> {
    let device = s.out.device().clone();
    s.index.check_same_device_as(&device)?;
    let n: usize = s.shape.iter().product();
    if n == 0 {
        return Ok(());
    }
    let (flag, base) = flag_for(&device, s.op)?;
    let rank = s.shape.len();
    let (src, src_offset, src_strides, bits) = match &s.values {
        Values::Tensor(t, strides) => {
            t.check_same_device_as(&device)?;
            (Some(*t), t.storage_offset(), strides.clone(), 0)
        }
        Values::Scalar(bits) => (None, 0, vec![0; rank], *bits),
    };
    let mut params = vec![
        n as u32,
        rank as u32,
        s.out.storage_offset() as u32,
        s.index.storage_offset() as u32,
        src_offset as u32,
        w(s.out_dim_stride),
        s.dim_size as u32,
        code(base, Fault::OutOfBounds),
        s.dim as u32,
        bits,
        s.alpha,
    ];
    params.extend(s.shape.iter().map(|&d| d as u32));
    params.extend(s.index_strides.iter().map(|&st| w(st)));
    params.extend(src_strides.iter().map(|&st| w(st)));
    params.extend(s.out_strides.iter().map(|&st| w(st)));
    let dtype = s.out.dtype();
    let key = format!("scatter|{}|{:?}|{}", dtype.name(), s.mode, src.is_none());
    let make = || source(dtype, s.mode, src.is_none());
    let kernel = Kernel {
        key: &key,
        source: &make,
        bounds_checked: true,
    };
    let mut bound = vec![s.out];
    bound.extend(src);
    bound.extend([s.index, &flag]);
    launch(&device, &kernel, &bound, &params, groups_for(n))
}
