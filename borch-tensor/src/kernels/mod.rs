//! WGSL kernels and the Rust that launches them. Each file generates the source of one family.

pub(crate) mod batch_norm;
pub(crate) mod batch_norm_split;
pub(crate) mod check;
pub(crate) mod conv_gemm;
pub(crate) mod conv_gemm_wgsl;
pub(crate) mod conv_strip_wgsl;
pub(crate) mod conv_winograd;
pub(crate) mod gather;
pub(crate) mod layer_norm;
pub(crate) mod map;
pub(crate) mod matmul;
pub(crate) mod matmul_split_k;
pub(crate) mod one_hot;
pub mod prelude;
pub(crate) mod reduce;
pub(crate) mod reduce_wgsl;
pub(crate) mod rnn_gates;
pub(crate) mod rnn_layer;
pub(crate) mod scan;
pub(crate) mod scatter;
pub(crate) mod sdpa;
pub(crate) mod sort;
pub(crate) mod tri;
pub(crate) mod unfold;

use borch_device::{Binding, Device, Kernel, WORKGROUP_SIZE, grid_for};

use crate::error::Result;
use crate::tensor::Tensor;

/// Dispatch `groups` one-dimensional workgroups of `kernel` over `tensors` (bindings 1, 2, …).
pub(crate) fn launch(
    device: &Device,
    kernel: &Kernel<'_>,
    tensors: &[&Tensor],
    params: &[u32],
    groups: u32,
) -> Result<()> {
    let max_x = device.limits().max_compute_workgroups_per_dimension;
    dispatch_grid(device, kernel, tensors, params, grid_for(groups, max_x))
}

/// Dispatch `kernel` over `tensors` (bindings 1, 2, …) on the workgroup grid `grid`.
pub(crate) fn dispatch_grid(
    device: &Device,
    kernel: &Kernel<'_>,
    tensors: &[&Tensor],
    params: &[u32],
    grid: [u32; 3],
) -> Result<()> {
    let buffers = tensors
        .iter()
        .map(|t| t.buffer())
        .collect::<Result<Vec<_>>>()?;
    let bindings: Vec<Binding<'_>> = buffers.iter().map(|buffer| Binding { buffer }).collect();
    device.dispatch(kernel, &bindings, params, grid)?;
    Ok(())
}

/// Workgroups needed for `n` threads.
pub(crate) fn groups_for(n: usize) -> u32 {
    (n as u64).div_ceil(u64::from(WORKGROUP_SIZE)) as u32
}

/// Signed word for params.
pub(crate) fn w(x: isize) -> u32 {
    x as i32 as u32
}

/// The WGSL of the shape and indexing kernels in every specialisation, for validation.
pub(crate) fn shape_sources() -> Vec<(String, String)> {
    use crate::dtype::DType;
    let mut out = vec![("one_hot".to_string(), one_hot::source())];
    out.push(("im2col".to_string(), unfold::im2col_source::<2>()));
    out.push(("col2im".to_string(), unfold::col2im_source::<2>()));
    out.push(("im2col3d".to_string(), unfold::im2col_source::<3>()));
    out.push(("col2im3d".to_string(), unfold::col2im_source::<3>()));
    out.extend(conv_gemm::sources());
    out.extend(conv_winograd::sources());
    out.extend(batch_norm::sources());
    out.extend(batch_norm_split::sources());
    out.extend(layer_norm::sources());
    out.extend(sdpa::sources());
    out.extend(rnn_gates::sources());
    out.extend(rnn_layer::sources());
    for dt in [DType::Float32, DType::Int64, DType::Bool] {
        let n = dt.name();
        out.push((format!("gather|{n}"), gather::source(dt)));
        out.push((format!("sort|{n}"), sort::source(dt)));
        out.push((format!("tri|{n}"), tri::source(dt)));
        for mode in [scatter::Mode::Assign, scatter::Mode::Add] {
            for scalar in [false, true] {
                let name = format!("scatter|{n}|{mode:?}|{scalar}");
                out.push((name, scatter::source(dt, mode, scalar)));
            }
        }
    }
    out
}
