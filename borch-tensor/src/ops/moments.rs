//! var and std: two passes over each row (the mean, then the squared deviations), divided by
//! `max(0, n - correction)` as torch does, so a correction >= n gives inf (or NaN for 0/0).

use crate::dtype::DType;
use crate::error::{Result, not_impl};
use crate::kernels::reduce::{Output, Pre, ReduceSpec, splits_rows};
use crate::ops::reduce::{fold, reduced_flags, run, value_spec};
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
        let var = "div_or_nan(acc, max(n - k(0u), 0.0))";
        let finalize = if root {
            format!("sqrt({var})")
        } else {
            var.to_string()
        };
        if splits_rows(self.shape(), &flags) {
            // Few very long rows: the mean and the sum of squares each split across workgroups.
            let mean = self.mean(dims, true)?;
            let squares = self.sub(&mean)?.square()?;
            let f = fold("f32", "0.0", "x", "a + b");
            let mut spec = value_spec(DType::Float32, f, DType::Float32, &finalize);
            spec.extras = vec![correction as f32];
            return run(&squares, &spec, &flags, keepdim);
        }
        let spec = ReduceSpec {
            compute: DType::Float32,
            pre: Some(Pre {
                fold: fold("f32", "0.0", "x", "a + b"),
                finalize: "div_or_nan(acc, n)".into(),
            }),
            fold: fold("f32", "0.0", "(x - pre) * (x - pre)", "a + b"),
            output: Output::Value {
                dtype: DType::Float32,
                finalize,
                index: false,
            },
            extras: vec![correction as f32],
        };
        run(self, &spec, &flags, keepdim)
    }
}
