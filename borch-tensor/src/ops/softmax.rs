//! softmax and log_softmax along one dim: per row, the max, then the sum of `exp(x - max)`,
//! then every element written (the reduction kernel's elementwise output).

use crate::dtype::DType;
use crate::error::{Result, not_impl};
use crate::kernels::reduce::{Output, Pre, ReduceSpec, reduce};
use crate::layout::wrap_dim;
use crate::ops::reduce::{fold, reduced_flags};
use crate::tensor::Tensor;

impl Tensor {
    /// torch's `softmax(dim)`, numerically stable. Floating point only.
    pub fn softmax(&self, dim: isize) -> Result<Tensor> {
        self.softmax_like("softmax", dim, "exp(x - pre) / acc")
    }

    /// torch's `log_softmax(dim)`: `x - max - log(sum(exp(x - max)))`.
    pub fn log_softmax(&self, dim: isize) -> Result<Tensor> {
        self.softmax_like("log_softmax", dim, "x - pre - log_f(acc)")
    }

    fn softmax_like(&self, name: &str, dim: isize, expr: &str) -> Result<Tensor> {
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
        let spec = ReduceSpec {
            compute: DType::Float32,
            pre: Some(Pre {
                fold: fold("f32", "-f_inf()", "x", "max_f(a, b)"),
                finalize: "acc".into(),
            }),
            fold: fold("f32", "0.0", "exp(x - pre)", "a + b"),
            output: Output::Elementwise {
                dtype: DType::Float32,
                expr: expr.to_string(),
            },
            extras: Vec::new(),
        };
        let (values, _) = reduce(&spec, self, &flags, self.shape())?;
        values.ok_or_else(|| crate::BorchError::Runtime(format!("{name} produced no result")))
    }
}
