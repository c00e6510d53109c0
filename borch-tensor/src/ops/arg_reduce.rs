//! Reductions that keep an index: max/min along a dim (values and indices), argmax/argmin.
//! torch returns the first index of the extreme; a NaN wins and its first index is returned.

use crate::dtype::DType;
use crate::error::{BorchError, Result, index_err, not_impl};
use crate::kernels::reduce::{Combine, Fold, Output, ReduceSpec, reduce};
use crate::layout::wrap_dim;
use crate::ops::reduce::{out_shape, reduced_flags, zero};
use crate::tensor::Tensor;

/// Whether `(b, ib)` beats `(a, ia)` for max (`>`) or min (`<`).
fn take(dt: DType, for_max: bool) -> String {
    let cmp = if for_max { ">" } else { "<" };
    let ordered = format!("b {cmp} a || (b == a && ib < ia)");
    if dt == DType::Float32 {
        format!("(is_nan(b) && (!is_nan(a) || ib < ia)) || (!is_nan(a) && ({ordered}))")
    } else {
        ordered
    }
}

fn spec(dt: DType, for_max: bool, output: Output) -> ReduceSpec {
    ReduceSpec {
        compute: dt,
        pre: None,
        fold: Fold {
            acc: dt.wgsl(),
            init: zero(dt).to_string(),
            map: "x".into(),
            combine: Combine::Take(take(dt, for_max)),
        },
        output,
        extras: Vec::new(),
    }
}

fn missing(what: &str) -> BorchError {
    BorchError::Runtime(format!("{what} produced no result"))
}

impl Tensor {
    /// torch's `max(dim, keepdim)`: (values, int64 indices) of the maximum along `dim`.
    pub fn max_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extreme_dim("max", true, dim, keepdim)
    }

    /// torch's `min(dim, keepdim)`: (values, int64 indices) of the minimum along `dim`.
    pub fn min_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.extreme_dim("min", false, dim, keepdim)
    }

    fn extreme_dim(
        &self,
        name: &str,
        for_max: bool,
        dim: isize,
        keepdim: bool,
    ) -> Result<(Tensor, Tensor)> {
        let flags = self.nonempty_dim(name, dim)?;
        let dt = self.dtype();
        let output = Output::Value {
            dtype: dt,
            finalize: "acc".into(),
            index: true,
        };
        let shape = out_shape(self.shape(), &flags, keepdim);
        let (values, indices) = reduce(&spec(dt, for_max, output), self, &flags, &shape)?;
        Ok((
            values.ok_or_else(|| missing(name))?,
            indices.ok_or_else(|| missing(name))?,
        ))
    }

    /// The flags reducing `dim`, refusing an empty one with torch's message.
    fn nonempty_dim(&self, name: &str, dim: isize) -> Result<Vec<bool>> {
        let w = wrap_dim(dim, self.dim())?;
        if self.dim() > 0 && self.shape()[w] == 0 {
            return index_err(format!(
                "{name}(): Expected reduction dim {w} to have non-zero size."
            ));
        }
        reduced_flags(self, Some(&[dim]), true)
    }

    /// torch's `argmax(dim, keepdim)`: int64 indices of the first maximum along `dim`, or into
    /// the flattened tensor when `dim` is `None` (then `keepdim` keeps every dim as 1).
    pub fn argmax(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        self.arg_extreme("argmax", true, dim, keepdim)
    }

    /// torch's `argmin(dim, keepdim)`.
    pub fn argmin(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        self.arg_extreme("argmin", false, dim, keepdim)
    }

    fn arg_extreme(
        &self,
        name: &str,
        for_max: bool,
        dim: Option<isize>,
        keepdim: bool,
    ) -> Result<Tensor> {
        if self.dtype() == DType::Bool {
            return not_impl(format!("{name}(): does not support bool input"));
        }
        let flags = match dim {
            Some(d) => self.nonempty_dim(name, d)?,
            None if self.numel() == 0 => {
                return index_err(format!(
                    "{name}(): Expected reduction dim to be specified for input.numel() == 0."
                ));
            }
            None => reduced_flags(self, None, true)?,
        };
        let shape = out_shape(self.shape(), &flags, keepdim);
        let (_, indices) = reduce(
            &spec(self.dtype(), for_max, Output::Index),
            self,
            &flags,
            &shape,
        )?;
        indices.ok_or_else(|| missing(name))
    }
}
