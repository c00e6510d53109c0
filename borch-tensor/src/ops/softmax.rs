//! softmax and log_softmax along one dim: per row, the max, then the sum of `exp(x - max)`,
//! then every element written (the reduction kernel's elementwise output).

use crate::autograd::{AlongOp, Op, record};
use crate::dtype::DType;
use crate::error::{BorchError, Result, not_impl};
use crate::kernels::reduce::reduce;
use crate::layout::wrap_dim;
use crate::ops::reduce::reduced_flags;
use crate::ops::reduce_specs::softmax;
use crate::scalar::Operand;
use crate::tensor::Tensor;

impl Tensor {
    /// torch's `softmax(dim)`, numerically stable. Floating point only.
    pub fn softmax(&self, dim: isize) -> Result<Tensor> {
        self.softmax_like("softmax", dim, false)
    }

    /// torch's `log_softmax(dim)`: `x - max - log(sum(exp(x - max)))`.
    pub fn log_softmax(&self, dim: isize) -> Result<Tensor> {
        self.softmax_like("log_softmax", dim, true)
    }

    fn softmax_like(&self, name: &str, dim: isize, log: bool) -> Result<Tensor> {
        let w = wrap_dim(dim, self.dim())?;
        if self.numel() == 0 {
            return self.clone_contiguous();
        }
        if self.dtype() != DType::Float32 {
            let kernel = if self.dim() > 0 && w != self.dim() - 1 {
                "kernel_impl"
            } else {
                "lastdim_kernel_impl"
            };
            return not_impl(format!(
                "\"{name}_{kernel}\" not implemented for '{}'",
                self.dtype().scalar_type_name()
            ));
        }
        let flags = reduced_flags(self, Some(&[dim]), true)?;
        let (values, _) = reduce(&softmax(log), self, &flags, self.shape())?;
        let out =
            values.ok_or_else(|| BorchError::Runtime(format!("{name} produced no result")))?;
        let op = if log {
            AlongOp::LogSoftmax
        } else {
            AlongOp::Softmax
        };
        Ok(record(
            Op::Along { op, dim: w },
            &[Operand::Tensor(self.clone())],
            out,
        ))
    }
}
