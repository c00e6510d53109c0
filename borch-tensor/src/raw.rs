//! Kernels of sibling crates (fused optimizer steps, fused layers) launched over tensors.
//!
//! The contract is the same as borch-tensor's own kernels: binding 0 is the parameter words
//! (`var<storage, read> p: array<u32>`), the tensors' storage buffers take bindings 1, 2, … in
//! order, and a tensor's elements start at `storage_offset()` within its buffer. Kernels written
//! this way must read and write only the elements of the tensors they are given.

use crate::error::Result;
use crate::tensor::Tensor;

pub use crate::kernels::prelude::{INDEX as WGSL_INDEX, MATH as WGSL_MATH};
pub use borch_device::Kernel;

/// Record `groups` workgroups of 256 threads of `kernel` over `tensors` on their device.
pub fn launch(kernel: &Kernel<'_>, tensors: &[&Tensor], params: &[u32], groups: u32) -> Result<()> {
    let Some(first) = tensors.first() else {
        return Ok(());
    };
    for t in tensors {
        t.check_same_device_as(first.device())?;
    }
    crate::kernels::launch(first.device(), kernel, tensors, params, groups)
}

/// Workgroups of 256 threads needed for `n` threads.
pub fn groups_for(n: usize) -> u32 {
    crate::kernels::groups_for(n)
}
