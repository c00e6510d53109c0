//! The gather kernel behind `gather`, `index_select` and `take`: one thread per output element
//! reads an index (through strides), and copies the source element at that index along one dim.
//! A bad index is clamped into range and reported through `check` (so no read leaves the tensor).

use borch_device::Kernel;

use super::check::{Fault, REPORT, code, flag_for};
use super::{groups_for, launch, prelude, w};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// One gather: `out[c] = src[src_offset + Σ c_d·src_strides[d] + k·src_dim_stride]` where
/// `k = index[index_offset + Σ c_d·index_strides[d]]`, over every coordinate `c` of `out_shape`.
pub(crate) struct Gather<'a> {
    pub src: &'a Tensor,
    pub index: &'a Tensor,
    pub out_shape: &'a [usize],
    pub index_strides: Vec<isize>,
    pub src_strides: Vec<isize>,
    pub src_dim_stride: isize,
    /// Valid indices are `0..dim_size` (and `-dim_size..0` when `wrap_negative`).
    pub dim_size: usize,
    /// The dim named in the error message.
    pub dim: usize,
    pub fault: Fault,
    pub wrap_negative: bool,
}

const HEADER: usize = 10;

pub(crate) fn source(dtype: DType) -> String {
    format!(
        r#"@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<{t}>;
@group(0) @binding(2) var<storage, read> src: array<{t}>;
@group(0) @binding(3) var<storage, read> idx: array<i32>;
@group(0) @binding(4) var<storage, read_write> flag: array<atomic<i32>>;
{index}{report}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) {{ return; }}
    let rank = p[1];
    var rem = i;
    var io = sp(3u);
    var so = sp(4u);
    for (var d = i32(rank) - 1; d >= 0; d = d - 1) {{
        let ud = u32(d);
        let n = p[{HEADER}u + ud];
        let c = i32(rem % n);
        rem = rem / n;
        io = io + c * sp({HEADER}u + rank + ud);
        so = so + c * sp({HEADER}u + 2u * rank + ud);
    }}
    let size = sp(6u);
    let given = idx[io];
    var k = given;
    if (p[9] == 1u && k < 0) {{ k = k + size; }}
    if (k < 0 || k >= size) {{
        report(p[7], given, size, sp(8u));
        k = clamp(k, 0, max(size - 1, 0));
    }}
    out[i] = src[so + k * sp(5u)];
}}
"#,
        t = dtype.wgsl(),
        index = prelude::INDEX,
        report = REPORT,
    )
}

/// Run one gather into a new contiguous tensor of `out_shape` and the source's dtype.
pub(crate) fn gather(g: &Gather<'_>) -> Result<Tensor> {
    let device = g.src.device().clone();
    g.index.check_same_device_as(&device)?;
    let out = Tensor::uninit(&device, g.out_shape, g.src.dtype())?;
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let op = match g.fault {
        Fault::IndexSelect => "index_select",
        Fault::Take => "take",
        _ => "gather",
    };
    let (flag, base) = flag_for(&device, op)?;
    let mut params = vec![
        n as u32,
        g.out_shape.len() as u32,
        0,
        g.index.storage_offset() as u32,
        g.src.storage_offset() as u32,
        w(g.src_dim_stride),
        g.dim_size as u32,
        code(base, g.fault),
        g.dim as u32,
        u32::from(g.wrap_negative),
    ];
    params.extend(g.out_shape.iter().map(|&s| s as u32));
    params.extend(g.index_strides.iter().map(|&s| w(s)));
    params.extend(g.src_strides.iter().map(|&s| w(s)));
    let key = format!("gather|{}", g.src.dtype().name());
    let make = || source(g.src.dtype());
    let kernel = Kernel {
        key: &key,
        source: &make,
        bounds_checked: true,
    };
    launch(
        &device,
        &kernel,
        &[&out, g.src, g.index, &flag],
        &params,
        groups_for(n),
    )?;
    Ok(out)
}
