//! var and std: two passes over each row (the mean, then the squared deviations), divided by
//! `max(0, n - correction)` as torch does, so a correction >= n gives inf (or NaN for 0/0).

use crate::autograd::ReduceOp;
use crate::dtype::DType;
use crate::error::{Result, not_impl};
use crate::kernels::reduce::splits_rows;
use crate::ops::reduce::recorded;
use crate::ops::reduce::{reduced_flags, run};
use crate::ops::reduce_specs::{moment, moment_of_squares};
use crate::tensor::Tensor;

impl Tensor {
    /// torch's `var(dim, correction=…, keepdim)`: `None` or an empty list reduces every dim;
    /// torch's default correction is 1 (Bessel's). Floating point only.
    pub fn var(&self, dims: Option<&[isize]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        self.moment(dims, correction, keepdim, false)
    }

    /// torch's `std(dim, correction=…, keepdim)`: the square root of `var`.
    pub fn std(&self, dims: Option<&[isize]>, correction: f64, keepdim: bool) -> Result<Tensor> {
        self.moment(dims, correction, keepdim, true)
    }

    fn moment(
        &self,
        dims: Option<&[isize]>,
        correction: f64,
        keepdim: bool,
        root: bool,
    ) -> Result<Tensor> {
        if self.dtype() != DType::Float32 {
            return not_impl("std and var only support floating point and complex dtypes");
        }
        let flags = reduced_flags(self, dims, true)?;
        let op = if root {
            ReduceOp::Std { correction }
        } else {
            ReduceOp::Var { correction }
        };
        if splits_rows(self.shape(), &flags) {
            // Few very long rows: the mean and the sum of squares each split across workgroups.
            let mean = self.mean(dims, true)?;
            let squares = self.sub(&mean)?.square()?;
            let out = run(
                &squares,
                &moment_of_squares(correction, root),
                &flags,
                keepdim,
            )?;
            return Ok(recorded(self, op, &flags, keepdim, out.detach()));
        }
        let out = run(self, &moment(correction, root), &flags, keepdim)?;
        Ok(recorded(self, op, &flags, keepdim, out))
    }
}
