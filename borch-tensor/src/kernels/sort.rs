//! The sort kernel behind `sort`, `argsort` and `topk`: a stable rank-by-counting sort. One
//! thread per element counts the elements of its row that come before it (smaller, or equal and
//! earlier) and writes itself at that rank, when the rank is below `k`. Each row costs
//! `len²` comparisons, read from global memory: simple and exact, and fine for rows up to a few
//! thousand elements; longer rows would want a bitonic or radix sort.
//!
//! NaN sorts as larger than every number (and equal to other NaNs), as in torch; -0.0 and 0.0
//! are equal, so they keep their order.

use borch_device::Kernel;

use super::{groups_for, launch, prelude};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

pub(crate) fn source(dtype: DType) -> String {
    let t = dtype.wgsl();
    let less = if dtype == DType::Float32 {
        "return a < b || (!is_nan(a) && is_nan(b));"
    } else {
        "return a < b;"
    };
    format!(
        r#"@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> values: array<{t}>;
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;
@group(0) @binding(3) var<storage, read> src: array<{t}>;
{index}{math}
fn less(a: {t}, b: {t}) -> bool {{ {less} }}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) {{ return; }}
    let len = p[1];
    let inner = p[2];
    let k = p[3];
    let descending = p[4] == 1u;
    let q = i % inner;
    let j = (i / inner) % len;
    let o = i / (inner * len);
    let base = sp(5u) + i32(o * len * inner + q);
    let x = src[base + i32(j * inner)];
    var rank = 0u;
    for (var m = 0u; m < len; m = m + 1u) {{
        let y = src[base + i32(m * inner)];
        var before: bool;
        if (descending) {{
            before = less(x, y) || (m < j && !less(y, x));
        }} else {{
            before = less(y, x) || (m < j && !less(x, y));
        }}
        if (before) {{ rank = rank + 1u; }}
    }}
    if (rank < k) {{
        let at = (o * k + rank) * inner + q;
        values[at] = x;
        indices[at] = i32(j);
    }}
}}
"#,
        index = prelude::INDEX,
        math = prelude::MATH,
    )
}

/// The first `k` of each row of `src` (contiguous) along `dim` in sorted order: values and
/// int64 indices, with `k` in place of the size of `dim`.
pub(crate) fn sort_rows(
    src: &Tensor,
    dim: usize,
    k: usize,
    descending: bool,
) -> Result<(Tensor, Tensor)> {
    let shape = src.shape();
    let len = shape[dim];
    let inner: usize = shape[dim + 1..].iter().product();
    let mut out_shape = shape.to_vec();
    out_shape[dim] = k;
    let values = Tensor::uninit(src.device(), &out_shape, src.dtype())?;
    let indices = Tensor::uninit(src.device(), &out_shape, DType::Int64)?;
    let n = src.numel();
    if n == 0 || k == 0 {
        return Ok((values, indices));
    }
    let params = [
        n as u32,
        len as u32,
        inner as u32,
        k as u32,
        u32::from(descending),
        src.storage_offset() as u32,
    ];
    let key = format!("sort|{}", src.dtype().name());
    let make = || source(src.dtype());
    let kernel = Kernel {
        key: &key,
        source: &make,
        bounds_checked: true,
    };
    launch(
        src.device(),
        &kernel,
        &[&values, &indices, src],
        &params,
        groups_for(n),
    )?;
    Ok((values, indices))
}
