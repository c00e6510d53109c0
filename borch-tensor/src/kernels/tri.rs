//! The kernel behind `tril` and `triu`: a contiguous copy of a batch of matrices that keeps the
//! elements on one side of a diagonal and zeroes the rest.

use borch_device::Kernel;

use super::{groups_for, launch, prelude, w};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

pub(crate) fn source(dtype: DType) -> String {
    format!(
        r#"@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<{t}>;
@group(0) @binding(2) var<storage, read> src: array<{t}>;
{index}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) {{ return; }}
    let cols = p[2];
    let diff = i32(i % cols) - i32((i / cols) % p[1]);
    let diagonal = sp(3u);
    let keep = select(diff >= diagonal, diff <= diagonal, p[4] == 1u);
    out[i] = select({t}(0), src[sp(5u) + i32(i)], keep);
}}
"#,
        t = dtype.wgsl(),
        index = prelude::INDEX,
    )
}

/// `tril` (`lower`) or `triu` of a contiguous tensor of at least two dims.
pub(crate) fn tri(src: &Tensor, diagonal: isize, lower: bool) -> Result<Tensor> {
    let out = Tensor::uninit(src.device(), src.shape(), src.dtype())?;
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let rank = src.dim();
    let diagonal = diagonal.clamp(-(i32::MAX as isize), i32::MAX as isize);
    let params = [
        n as u32,
        src.shape()[rank - 2] as u32,
        src.shape()[rank - 1] as u32,
        w(diagonal),
        u32::from(lower),
        src.storage_offset() as u32,
    ];
    let key = format!("tri|{}", src.dtype().name());
    let make = || source(src.dtype());
    let kernel = Kernel {
        key: &key,
        source: &make,
        bounds_checked: true,
    };
    launch(src.device(), &kernel, &[&out, src], &params, groups_for(n))?;
    Ok(out)
}
