//! Reading by index: `gather`, `index_select`, `take`.
//!
//! Index values live on the GPU, so a value out of range cannot fail the call itself (that would
//! need an `await`). The kernel clamps it into range and records it; the next readback on the
//! device (`to_host`, `to_vec`, `item`, or `check_index_errors`) returns torch's error for it.
//! Shapes, dims and dtypes are checked at once, as in torch.

use crate::autograd::{Op, ShapeOp, record};
use crate::dtype::DType;
use crate::error::{BorchError, Result, index_err, runtime};
use crate::kernels::check::Fault;
use crate::kernels::gather::{Gather, gather};
use crate::layout::{fmt_list, wrap_dim};
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// A 0-d tensor seen as one element of one dim (torch's `ensure_nonempty_dim` view).
pub(crate) fn at_least_1d(t: &Tensor) -> Result<Tensor> {
    if t.dim() == 0 {
        t.view(&[1])
    } else {
        Ok(t.clone())
    }
}

impl Tensor {
    /// torch's `gather(dim, index)`: `out[i][j] = self[index[i][j]][j]` for dim 0 (and so on);
    /// `index` has `self`'s number of dims and no larger sizes apart from `dim`. An index out of
    /// range is reported at the next readback (see the module docs).
    pub fn gather(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim())?;
        let out = self.gather_unrecorded(d, index)?;
        let op = ShapeOp::Gather {
            dim: d,
            index: index.clone(),
        };
        Ok(record(Op::Shape(op), &[Operand::Tensor(self.clone())], out))
    }

    fn gather_unrecorded(&self, d: usize, index: &Tensor) -> Result<Tensor> {
        if index.numel() == 0 {
            return Tensor::uninit(self.device(), index.shape(), self.dtype());
        }
        if index.dtype() != DType::Int64 {
            return runtime("gather(): Expected dtype int32/int64 for index");
        }
        if self.dim().max(1) != index.dim().max(1) {
            return runtime("Index tensor must have the same number of dimensions as input tensor");
        }
        let (s, ix) = (at_least_1d(&self.detach())?, at_least_1d(index)?);
        for a in (0..s.dim()).filter(|&a| a != d) {
            if ix.shape()[a] > s.shape()[a] {
                return runtime(format!(
                    "Size does not match at dimension {a} expected index {} to be no larger than \
                     self {} apart from dimension {d}",
                    fmt_list(index.shape()),
                    fmt_list(self.shape())
                ));
            }
        }
        let mut src_strides = s.stride();
        src_strides[d] = 0;
        gather(&Gather {
            src: &s,
            index: &ix,
            out_shape: ix.shape(),
            index_strides: ix.stride(),
            src_strides,
            src_dim_stride: s.stride()[d],
            dim_size: s.shape()[d],
            dim: d,
            fault: Fault::OutOfBounds,
            wrap_negative: false,
        })?
        .view_as_shape(index.shape())
    }

    /// torch's `index_select(dim, index)`: the slices of `self` at the positions in the 1-D (or
    /// 0-d) `index`, along `dim`. An index out of range is reported at the next readback.
    pub fn index_select(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim())?;
        let out = self.index_select_unrecorded(d, index)?;
        let op = ShapeOp::IndexSelect {
            dim: d,
            index: index.clone(),
        };
        Ok(record(Op::Shape(op), &[Operand::Tensor(self.clone())], out))
    }

    fn index_select_unrecorded(&self, d: usize, index: &Tensor) -> Result<Tensor> {
        if index.dim() > 1 {
            return index_err("index_select(): Index is supposed to be a vector");
        }
        if index.dtype() != DType::Int64 {
            return runtime("index_select(): Expected dtype int32 or int64 for index");
        }
        if self.dim() == 0 && index.numel() != 1 {
            return runtime(format!(
                "index_select(): Index to scalar can have only 1 value, got {} value(s)",
                index.numel()
            ));
        }
        let s = at_least_1d(&self.detach())?;
        if s.shape()[d] == 0 && index.numel() > 0 {
            return runtime("index_select(): self indexing axis dim should be positive");
        }
        let mut out_shape = s.shape().to_vec();
        out_shape[d] = index.numel();
        let mut index_strides = vec![0; s.dim()];
        index_strides[d] = index.stride().first().copied().unwrap_or(0);
        let mut src_strides = s.stride();
        src_strides[d] = 0;
        let out = gather(&Gather {
            src: &s,
            index,
            out_shape: &out_shape,
            index_strides,
            src_strides,
            src_dim_stride: s.stride()[d],
            dim_size: s.shape()[d],
            dim: d,
            fault: Fault::IndexSelect,
            wrap_negative: false,
        })?;
        if self.dim() == 0 {
            return out.view(&[]);
        }
        Ok(out)
    }

    /// torch's `take(index)`: elements of `self` as if flattened, at `index` (negative counts
    /// from the end); the result has `index`'s shape. An index out of range is reported at the
    /// next readback.
    pub fn take(&self, index: &Tensor) -> Result<Tensor> {
        if index.dtype() != DType::Int64 {
            return runtime(format!(
                "take(): Expected a long tensor for index, but got {}",
                index.dtype().scalar_type_name()
            ));
        }
        if self.numel() == 0 && index.numel() > 0 {
            return Err(BorchError::Index(
                "take(): tried to take from an empty tensor".into(),
            ));
        }
        let src = self.detach().contiguous()?;
        let out = gather(&Gather {
            src: &src,
            index,
            out_shape: index.shape(),
            index_strides: index.stride(),
            src_strides: vec![0; index.dim()],
            src_dim_stride: 1,
            dim_size: self.numel(),
            dim: 0,
            fault: Fault::Take,
            wrap_negative: true,
        })?;
        let op = ShapeOp::Take {
            index: index.clone(),
        };
        Ok(record(Op::Shape(op), &[Operand::Tensor(self.clone())], out))
    }
}
