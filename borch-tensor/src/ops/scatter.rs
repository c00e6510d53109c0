//! Writing by index: `scatter` (a tensor or a value), `scatter_add`, `index_add`, in place and
//! out of place.
//!
//! As with `gather`, an index out of range cannot fail the call itself: its element is skipped
//! and the next readback on the device returns torch's error (see `ops::index`). Where several
//! indices name one element, `scatter` keeps one of the values, unspecified which (as torch
//! documents); the adding ops add every value, in an order that may vary for floats.

use crate::autograd::{Op, ShapeOp, record};
use crate::dtype::DType;
use crate::error::{BorchError, Result, index_err, runtime};
use crate::kernels::scatter::{Mode, Scatter, Values, scatter};
use crate::layout::{fmt_list, wrap_dim};
use crate::ops::index::at_least_1d;
use crate::scalar::{Operand, Scalar};
use crate::tensor::Tensor;

/// torch refuses to write in place where one memory location is several elements.
fn check_no_internal_overlap(t: &Tensor) -> Result<()> {
    if t.shape()
        .iter()
        .zip(t.stride())
        .any(|(&n, s)| n > 1 && s == 0)
    {
        return runtime(
            "unsupported operation: more than one element of the written-to tensor refers to a \
             single memory location. Please clone() the tensor before performing the operation.",
        );
    }
    Ok(())
}

/// `t`, or a copy of it when it shares storage with the tensor being written.
fn unaliased(t: &Tensor, out: &Tensor) -> Result<Tensor> {
    if t.shares_storage(out) {
        t.clone_contiguous()
    } else {
        Ok(t.clone())
    }
}

impl Tensor {
    /// `scatter_` written directly (no autograd; see `inplace_ops.rs`).
    pub(crate) fn scatter_assign(&self, dim: isize, index: &Tensor, src: Operand) -> Result<()> {
        self.check_inplace()?;
        self.scatter_impl(dim, index, src, Mode::Assign)
    }

    /// torch's `scatter(dim, index, src)`: `scatter_` on a copy of `self`.
    pub fn scatter(&self, dim: isize, index: &Tensor, src: impl Into<Operand>) -> Result<Tensor> {
        let src = src.into();
        let out = self.detach().clone_contiguous()?;
        out.scatter_impl(dim, index, src.clone(), Mode::Assign)?;
        let op = ShapeOp::Scatter {
            dim: wrap_dim(dim, self.dim())?,
            index: index.clone(),
        };
        let mut inputs = vec![Operand::Tensor(self.clone())];
        if let Operand::Tensor(_) = &src {
            inputs.push(src);
        }
        Ok(record(Op::Shape(op), &inputs, out))
    }

    /// `scatter_add_` written directly (no autograd).
    pub(crate) fn scatter_add_direct(
        &self,
        dim: isize,
        index: &Tensor,
        src: &Tensor,
    ) -> Result<()> {
        self.check_inplace()?;
        self.scatter_impl(dim, index, Operand::Tensor(src.clone()), Mode::Add)
    }

    /// torch's `scatter_add(dim, index, src)`: `scatter_add_` on a copy of `self`.
    pub fn scatter_add(&self, dim: isize, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        let out = self.detach().clone_contiguous()?;
        out.scatter_impl(dim, index, Operand::Tensor(src.clone()), Mode::Add)?;
        let op = ShapeOp::ScatterAdd {
            dim: wrap_dim(dim, self.dim())?,
            index: index.clone(),
        };
        let inputs = [Operand::Tensor(self.clone()), Operand::Tensor(src.clone())];
        Ok(record(Op::Shape(op), &inputs, out))
    }

    fn scatter_impl(&self, dim: isize, index: &Tensor, src: Operand, mode: Mode) -> Result<()> {
        let d = wrap_dim(dim, self.dim())?;
        if index.numel() == 0 {
            return Ok(());
        }
        if index.dtype() != DType::Int64 {
            return runtime("scatter(): Expected dtype int32/int64 for index");
        }
        if let Operand::Tensor(t) = &src
            && t.dtype() != self.dtype()
        {
            return runtime("scatter(): Expected self.dtype to be equal to src.dtype");
        }
        if self.dim().max(1) != index.dim().max(1) {
            return runtime("Index tensor must have the same number of dimensions as self tensor");
        }
        if let Operand::Tensor(t) = &src {
            // torch reads `src.size(dim)` here, with the dim already wrapped against `self`.
            wrap_dim(d as isize, t.dim())?;
        }
        if let Operand::Tensor(t) = &src
            && t.dim().max(1) != index.dim().max(1)
        {
            return runtime("Index tensor must have the same number of dimensions as src tensor");
        }
        let (s, ix) = (at_least_1d(self)?, at_least_1d(index)?);
        let src_1d = match &src {
            Operand::Tensor(t) => Some(at_least_1d(&t.detach())?),
            Operand::Scalar(_) => None,
        };
        for a in 0..s.dim() {
            let too_big_self = a != d && ix.shape()[a] > s.shape()[a];
            let too_big_src = src_1d
                .as_ref()
                .is_some_and(|t| ix.shape()[a] > t.shape()[a]);
            if too_big_self || too_big_src {
                let mut msg = format!(
                    "Expected index {} to be no larger than self {} apart from dimension {d}",
                    fmt_list(index.shape()),
                    fmt_list(self.shape())
                );
                if let Operand::Tensor(t) = &src {
                    msg += &format!(" and to be no larger size than src {}", fmt_list(t.shape()));
                }
                return runtime(msg);
            }
        }
        check_no_internal_overlap(self)?;
        let ix = unaliased(&ix, self)?;
        let owned = src_1d.map(|t| unaliased(&t, self)).transpose()?;
        let values = match (owned.as_ref(), &src) {
            (Some(t), _) => Values::Tensor(t, t.stride()),
            (None, Operand::Scalar(v)) => Values::Scalar(v.bits_as(self.dtype())?),
            (None, Operand::Tensor(_)) => Values::Scalar(0),
        };
        let mut out_strides = s.stride();
        out_strides[d] = 0;
        scatter(&Scatter {
            out: &s,
            index: &ix,
            values,
            shape: ix.shape(),
            index_strides: ix.stride(),
            out_strides,
            out_dim_stride: s.stride()[d],
            dim_size: s.shape()[d],
            dim: d,
            mode,
            alpha: Scalar::Int(1).bits_as(self.dtype())?,
            op: match mode {
                Mode::Assign => "scatter",
                Mode::Add => "scatter_add",
            },
        })
    }

    /// `index_add_` written directly (no autograd).
    pub(crate) fn index_add_direct(
        &self,
        dim: isize,
        index: &Tensor,
        source: &Tensor,
        alpha: f64,
    ) -> Result<()> {
        self.check_inplace()?;
        self.index_add_impl(dim, index, source, alpha)
    }

    fn index_add_impl(
        &self,
        dim: isize,
        index: &Tensor,
        source: &Tensor,
        alpha: f64,
    ) -> Result<()> {
        let d = wrap_dim(dim, self.dim())?;
        if index.dim() > 1 {
            return index_err(format!(
                "index_add_(): Index is supposed to be a vector, but got dim: {} with type: {} \
                 and size: {}",
                index.dim(),
                index.dtype().scalar_type_name(),
                fmt_list(index.shape())
            ));
        }
        if index.dtype() != DType::Int64 {
            return runtime(format!(
                "index_add_(): Expected dtype int32/int64 for index but got: {}",
                index.dtype().scalar_type_name()
            ));
        }
        if self.dtype() != source.dtype() {
            return runtime(format!(
                "index_add_(): self ({}) and source ({}) must have the same scalar type",
                self.dtype().scalar_type_name(),
                source.dtype().scalar_type_name()
            ));
        }
        if d != 0 && d >= source.dim() {
            return runtime(format!(
                "index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {}",
                source.dim()
            ));
        }
        let indices = index.numel();
        if source.dim() == 0 && indices != 1 {
            return Err(BorchError::Index(
                "Dimension specified as 0 but tensor has no dimensions".into(),
            ));
        }
        if source.dim() > 0 && indices != source.shape()[d] {
            return runtime(format!(
                "index_add_(): Number of indices ({indices}) should be equal to \
                 source.size(dim): ({}), for dim: {d}",
                source.shape()[d]
            ));
        }
        let (mut self_rest, mut source_rest) = (self.size(), source.size());
        if self.dim() > 0 && source.dim() > 0 {
            self_rest.remove(d);
            source_rest.remove(d);
        }
        if self_rest != source_rest {
            return runtime(format!(
                "source tensor shape must match self tensor shape, excluding the specified \
                 dimension. Got self.shape = {} source.shape = {}",
                fmt_list(self.shape()),
                fmt_list(source.shape())
            ));
        }
        check_no_internal_overlap(self)?;
        let s = at_least_1d(self)?;
        let src = unaliased(&at_least_1d(&source.detach())?, self)?;
        let ix = unaliased(index, self)?;
        let mut index_strides = vec![0; s.dim()];
        index_strides[d] = ix.stride().first().copied().unwrap_or(0);
        let mut out_strides = s.stride();
        out_strides[d] = 0;
        scatter(&Scatter {
            out: &s,
            index: &ix,
            values: Values::Tensor(&src, src.stride()),
            shape: src.shape(),
            index_strides,
            out_strides,
            out_dim_stride: s.stride()[d],
            dim_size: s.shape()[d],
            dim: d,
            mode: Mode::Add,
            alpha: Scalar::Float(alpha).bits_as(self.dtype())?,
            op: "index_add",
        })
    }

    /// torch's `index_add(dim, index, source, alpha=alpha)`: `index_add_` on a copy of `self`.
    pub fn index_add(
        &self,
        dim: isize,
        index: &Tensor,
        source: &Tensor,
        alpha: f64,
    ) -> Result<Tensor> {
        let out = self.detach().clone_contiguous()?;
        out.index_add_impl(dim, index, source, alpha)?;
        let op = ShapeOp::IndexAdd {
            dim: wrap_dim(dim, self.dim())?,
            index: index.clone(),
            alpha,
        };
        let inputs = [
            Operand::Tensor(self.clone()),
            Operand::Tensor(source.clone()),
        ];
        Ok(record(Op::Shape(op), &inputs, out))
    }
}
