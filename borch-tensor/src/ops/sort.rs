//! `sort`, `argsort`, `topk`.
//!
//! Every sort here is stable: equal elements keep their order (ascending index), in either
//! direction. torch's CPU `sort` does the same; torch leaves the order of ties in `topk`
//! unspecified, and its CPU and CUDA kernels disagree with each other (for
//! `topk([1, 3, 3, 2, 3, 1, 1, 3], 3)` CPU gives indices `[4, 7, 2]`, CUDA `[4, 2, 1]`); borch
//! gives `[1, 2, 4]`, the stable order. Values always agree with torch.

use crate::autograd::{Op, ShapeOp, record};
use crate::dtype::DType;
use crate::error::{Result, not_impl, runtime};
use crate::kernels::sort::sort_rows;
use crate::layout::wrap_dim;
use crate::ops::creation::zeros;
use crate::scalar::Operand;
use crate::tensor::Tensor;

impl Tensor {
    /// torch's `sort(dim, descending, stable)`: the values sorted along `dim` and the int64
    /// indices they came from. NaN sorts as the largest value. The sort is always stable, so
    /// `stable` changes nothing.
    pub fn sort(&self, dim: isize, descending: bool, stable: bool) -> Result<(Tensor, Tensor)> {
        let _ = stable;
        let d = wrap_dim(dim, self.dim())?;
        if self.dim() == 0 {
            return Ok((self.clone_contiguous()?, zeros(&[], DType::Int64)?));
        }
        let sorted = sort_rows(&self.detach().contiguous()?, d, self.shape()[d], descending)?;
        Ok(self.taken_along(d, sorted))
    }

    /// torch's `argsort(dim, descending, stable)`: the indices of `sort`.
    pub fn argsort(&self, dim: isize, descending: bool, stable: bool) -> Result<Tensor> {
        Ok(self.sort(dim, descending, stable)?.1)
    }

    /// torch's `topk(k, dim, largest, sorted)`: the `k` largest (or smallest) values along `dim`
    /// and their int64 indices, in sorted order whatever `sorted` says (torch leaves the order
    /// unspecified when it is false). Ties come in ascending index order (see the module docs).
    pub fn topk(
        &self,
        k: usize,
        dim: isize,
        largest: bool,
        sorted: bool,
    ) -> Result<(Tensor, Tensor)> {
        let _ = sorted;
        let d = wrap_dim(dim, self.dim())?;
        let size = if self.dim() == 0 { 1 } else { self.shape()[d] };
        if k > size {
            return runtime("selected index k out of range");
        }
        if self.dtype() == DType::Bool {
            return not_impl("topk does not support bool dtypes on CPU");
        }
        if self.dim() == 0 {
            return Ok((self.clone_contiguous()?, zeros(&[], DType::Int64)?));
        }
        let picked = sort_rows(&self.detach().contiguous()?, d, k, largest)?;
        Ok(self.taken_along(d, picked))
    }

    /// `(values, indices)` picked from `self` along `dim`, with the values recorded for
    /// autograd.
    fn taken_along(&self, dim: usize, (values, indices): (Tensor, Tensor)) -> (Tensor, Tensor) {
        let op = ShapeOp::TakeAlong {
            dim,
            indices: indices.clone(),
            keepdim: true,
        };
        let values = record(Op::Shape(op), &[Operand::Tensor(self.clone())], values);
        (values, indices)
    }
}
