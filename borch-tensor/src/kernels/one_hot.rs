//! The kernel behind `one_hot`: row `j` of the result is 1 at column `index[j]`, 0 elsewhere. A
//! class out of `0..num_classes` is reported through `check`, and its row stays zero.

use borch_device::Kernel;

use super::check::{Fault, flag_for};
use super::{groups_for, launch, prelude};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

pub(crate) fn source() -> String {
    format!(
        r#"@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
@group(0) @binding(2) var<storage, read> idx: array<i32>;
@group(0) @binding(3) var<storage, read_write> flag: array<atomic<i32>>;
{index}
// torch checks for negative classes before classes too large, so a negative report replaces a
// too-large one of the same kernel; any other earlier report stays.
fn report_class(code: i32) {{
    loop {{
        let old = atomicLoad(&flag[0]);
        if (old == code || (old != 0 && !(old == i32(p[3] | {large}u) && code == i32(p[3] | {negative}u)))) {{ return; }}
        if (atomicCompareExchangeWeak(&flag[0], old, code).exchanged) {{ return; }}
    }}
}}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) {{ return; }}
    let classes = p[1];
    let c = i % classes;
    let v = idx[sp(2u) + i32(i / classes)];
    if (c == 0u) {{
        if (v < 0) {{ report_class(i32(p[3] | {negative}u)); }}
        else if (v >= i32(classes)) {{ report_class(i32(p[3] | {large}u)); }}
    }}
    out[i] = select(0, 1, v == i32(c));
}}
"#,
        index = prelude::INDEX,
        negative = Fault::ClassNegative as u32,
        large = Fault::ClassTooLarge as u32,
    )
}

/// One-hot rows (int64) for the contiguous int64 `index`, with `num_classes > 0` columns.
pub(crate) fn one_hot(index: &Tensor, num_classes: usize) -> Result<Tensor> {
    let mut shape = index.shape().to_vec();
    shape.push(num_classes);
    let out = Tensor::uninit(index.device(), &shape, DType::Int64)?;
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let (flag, base) = flag_for(index.device(), "one_hot")?;
    let params = [
        n as u32,
        num_classes as u32,
        index.storage_offset() as u32,
        base,
    ];
    let make = source;
    let kernel = Kernel {
        key: "one_hot",
        source: &make,
        bounds_checked: true,
    };
    launch(
        index.device(),
        &kernel,
        &[&out, index, &flag],
        &params,
        groups_for(n),
    )?;
    Ok(out)
}
