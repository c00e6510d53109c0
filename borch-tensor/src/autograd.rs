//! The tensor's side of autograd: whether it requires grad, its `.grad`, and the node that made
//! it. The engine (graph walk, derivatives) lives in borch-autograd.

use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::tensor::Tensor;

/// Autograd state of one tensor object.
#[derive(Default)]
pub struct AutogradMeta {
    pub requires_grad: bool,
    pub grad: Option<Tensor>,
    pub retains_grad: bool,
}

impl Tensor {
    /// torch's `requires_grad`.
    pub fn requires_grad(&self) -> bool {
        self.autograd().requires_grad
    }

    /// torch's `requires_grad_(flag)`; only floating point tensors can require gradients.
    pub fn set_requires_grad(&self, flag: bool) -> Result<&Tensor> {
        if flag && self.dtype() != DType::Float32 {
            return runtime(
                "only Tensors of floating point and complex dtype can require gradients",
            );
        }
        self.autograd().requires_grad = flag;
        Ok(self)
    }

    /// torch's `.grad`: the accumulated gradient, if any.
    pub fn grad(&self) -> Option<Tensor> {
        self.autograd().grad.clone()
    }

    /// Set or clear `.grad` (what optimizers' `zero_grad(set_to_none)` and the engine use).
    pub fn set_grad(&self, grad: Option<Tensor>) {
        self.autograd().grad = grad;
    }
}
