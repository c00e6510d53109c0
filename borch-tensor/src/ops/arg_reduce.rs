//! Reductions that keep an index: max/min along a dim (values and indices), argmax/argmin.
//! torch returns the first index of the extreme; a NaN wins and its first index is returned.

use crate::autograd::{Op, ShapeOp, record};
use crate::dtype::DType;
use crate::error::{BorchError, Result, index_err, not_impl};
use crate::kernels::reduce::reduce;
use crate::layout::wrap_dim;
use crate::ops::reduce::{out_shape, reduced_flags};
use crate::ops::reduce_specs::arg_extreme;
use crate::scalar::Operand;
use crate::tensor::Tensor;

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
        let shape = out_shape(self.shape(), &flags, keepdim);
        let spec = arg_extreme(self.dtype(), for_max, true);
        let (values, indices) = reduce(&spec, self, &flags, &shape)?;
        let (values, indices) = (
            values.ok_or_else(|| missing(name))?,
            indices.ok_or_else(|| missing(name))?,
        );
        let w = wrap_dim(dim, self.dim())?;
        let op = ShapeOp::TakeAlong {
            dim: w,
            indices: indices.clone(),
            keepdim,
        };
        let values = record(Op::Shape(op), &[Operand::Tensor(self.clone())], values);
        Ok((values, indices))
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
        let spec = arg_extreme(self.dtype(), for_max, false);
        let (_, indices) = reduce(&spec, self, &flags, &shape)?;
        indices.ok_or_else(|| missing(name))
    }
}
