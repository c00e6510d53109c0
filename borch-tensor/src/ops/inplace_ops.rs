//! torch's in-place ops (`add_`, `clamp_`, `masked_fill_`, `copy_`, `index_fill_`, …): a direct
//! write without autograd, or the out-of-place op on the previous value when autograd records
//! (see `inplace.rs`). Every one bumps the tensor's version counter.

use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::inplace::tensors_of;
use crate::kernels::map::{Dest, MapSpec, map};
use crate::layout::wrap_dim;
use crate::ops::creation;
use crate::ops::elementwise::apply_into;
use crate::ops::table::{self, MapOp};
use crate::scalar::{Operand, Scalar};
use crate::tensor::Tensor;

fn t(x: &Tensor) -> Operand {
    Operand::Tensor(x.clone())
}

fn with_first(first: &Tensor, others: &[Operand]) -> Vec<Operand> {
    let mut v = vec![t(first)];
    v.extend_from_slice(others);
    v
}

impl Tensor {
    /// torch's `op_` of a table op: `self = op(self, others…)`, written through `self`'s layout.
    pub fn map_(&self, op: &'static MapOp, others: &[Operand], params: &[f64]) -> Result<()> {
        if op.name.starts_with("logical_") {
            // torch's logical ops write in place outside autograd: no leaf check, no new node.
            self.check_live()?;
            apply_into(self, op, &with_first(self, others), params)?;
            self.bump_version();
            return Ok(());
        }
        if !self.inplace_records(&tensors_of(others)) {
            self.check_live()?;
            self.check_inplace()?;
            apply_into(self, op, &with_first(self, others), params)?;
            self.bump_version();
            return Ok(());
        }
        // Recorded: the op reads a copy of the previous value and writes `self`, which becomes
        // the node's output (so a later in-place write to it is caught, as torch catches it).
        self.check_live()?;
        self.check_inplace()?;
        let previous = self.take_history();
        let written = previous.clone_contiguous().and_then(|saved| {
            let operands = with_first(&saved, others);
            apply_into(self, op, &operands, params)?;
            Ok(operands)
        });
        let operands = match written {
            Ok(o) => o,
            Err(e) => {
                self.restore_history(&previous);
                return Err(e);
            }
        };
        self.bump_version();
        let params = op
            .params
            .iter()
            .enumerate()
            .map(|(i, &(_, d))| params.get(i).copied().unwrap_or(d))
            .collect();
        crate::autograd::record(
            crate::autograd::Op::Map { op, params },
            &operands,
            self.clone(),
        );
        Ok(())
    }

    /// torch's `add_(other, alpha=alpha)`.
    pub fn add_(&self, other: impl Into<Operand>, alpha: f64) -> Result<()> {
        self.map_(&table::ADD, &[other.into()], &[alpha])
    }

    /// torch's `sub_(other, alpha=alpha)`.
    pub fn sub_(&self, other: impl Into<Operand>, alpha: f64) -> Result<()> {
        self.map_(&table::SUB, &[other.into()], &[alpha])
    }

    /// torch's `mul_(other)`.
    pub fn mul_(&self, other: impl Into<Operand>) -> Result<()> {
        self.map_(&table::MUL, &[other.into()], &[])
    }

    /// torch's `div_(other, rounding_mode=…)`.
    pub fn div_(&self, other: impl Into<Operand>, rounding_mode: Option<&str>) -> Result<()> {
        let op = match rounding_mode {
            None => &table::DIV,
            Some("trunc") => &table::DIV_TRUNC,
            Some("floor") => &table::DIV_FLOOR,
            Some(other) => {
                return Err(crate::BorchError::Value(format!(
                    "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{other}'"
                )));
            }
        };
        self.map_(op, &[other.into()], &[])
    }

    /// torch's `clamp_(min, max)`.
    pub fn clamp_(&self, min: Option<Operand>, max: Option<Operand>) -> Result<()> {
        match (min, max) {
            (Some(lo), Some(hi)) => self.map_(&table::CLAMP, &[lo, hi], &[]),
            (Some(lo), None) => self.map_(&table::CLAMP_MIN, &[lo], &[]),
            (None, Some(hi)) => self.map_(&table::CLAMP_MAX, &[hi], &[]),
            (None, None) => runtime("torch.clamp: At least one of 'min' or 'max' must not be None"),
        }
    }

    /// torch's `lerp_(end, weight)`.
    pub fn lerp_(&self, end: &Tensor, weight: impl Into<Operand>) -> Result<()> {
        self.map_(&table::LERP, &[t(end), weight.into()], &[])
    }

    /// torch's `addcmul_(tensor1, tensor2, value=value)`.
    pub fn addcmul_(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<()> {
        self.map_(&table::ADDCMUL, &[t(tensor1), t(tensor2)], &[value])
    }

    /// torch's `addcdiv_(tensor1, tensor2, value=value)`.
    pub fn addcdiv_(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<()> {
        self.map_(&table::ADDCDIV, &[t(tensor1), t(tensor2)], &[value])
    }

    /// torch's `nan_to_num_(nan, posinf, neginf)`.
    pub fn nan_to_num_(
        &self,
        nan: Option<f64>,
        posinf: Option<f64>,
        neginf: Option<f64>,
    ) -> Result<()> {
        if self.dtype() != DType::Float32 {
            return self.inplace_with(&[], || Ok(()), |prev| Ok(prev.clone()));
        }
        let max = f64::from(f32::MAX);
        let params = [
            nan.unwrap_or(0.0),
            posinf.unwrap_or(max),
            neginf.unwrap_or(-max),
        ];
        self.map_(&table::NAN_TO_NUM, &[], &params)
    }

    /// torch's `masked_fill_(mask, value)`.
    pub fn masked_fill_(&self, mask: &Tensor, value: impl Into<Operand>) -> Result<()> {
        let value = value.into();
        let mut others = vec![mask];
        if let Operand::Tensor(v) = &value {
            others.push(v);
        }
        let shape = crate::layout::broadcast_shapes(self.shape(), mask.shape())?;
        if shape != self.shape() {
            return runtime(format!(
                "output with shape {} doesn't match the broadcast shape {}",
                crate::layout::fmt_list(self.shape()),
                crate::layout::fmt_list(&shape)
            ));
        }
        self.inplace_from(&others, |prev| prev.masked_fill(mask, value.clone()))
    }

    /// torch's `copy_(src)`: `src` broadcast to `self`'s shape and converted to its dtype.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        // torch's broadcast message first ("The size of tensor a (3) must match …").
        crate::layout::broadcast_shapes(self.shape(), src.shape())?;
        self.inplace_with(
            &[src],
            || {
                let compute = if self.dtype() == DType::Float32 || src.dtype() == DType::Float32 {
                    DType::Float32
                } else {
                    DType::Int64
                };
                let spec = MapSpec {
                    expr: "a",
                    compute,
                    result_bool: false,
                    out_dtype: self.dtype(),
                    extras: &[],
                };
                map(&spec, &[t(src)], Dest::Into(self)).map(|_| ())
            },
            |prev| {
                let all = creation::full(prev.shape(), true, None)?;
                let src = src.to_dtype(prev.dtype())?;
                crate::where_cond(&all, t(&src), t(prev))
            },
        )
    }

    /// torch's `fill_(value)`.
    pub fn fill_(&self, value: impl Into<Scalar>) -> Result<()> {
        let value = value.into();
        self.inplace_with(
            &[],
            || {
                let compute = if self.dtype() == DType::Float32 {
                    DType::Float32
                } else {
                    DType::Int64
                };
                let spec = MapSpec {
                    expr: "a",
                    compute,
                    result_bool: false,
                    out_dtype: self.dtype(),
                    extras: &[],
                };
                map(&spec, &[Operand::Scalar(value)], Dest::Into(self)).map(|_| ())
            },
            |prev| {
                let all = creation::full(prev.shape(), true, None)?;
                crate::where_cond(&all, Operand::Scalar(value), t(prev))
            },
        )
    }

    /// torch's `zero_()`.
    pub fn zero_(&self) -> Result<()> {
        self.fill_(0)
    }

    /// torch's `index_fill(dim, index, value)`: the slices at `index` along `dim` set to `value`
    /// (a number or a 0-dim tensor).
    pub fn index_fill(
        &self,
        dim: isize,
        index: &Tensor,
        value: impl Into<Operand>,
    ) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim())?;
        if index.dim() > 1 {
            return Err(crate::BorchError::Index(
                "index_fill_(): Expected index to be a vector".into(),
            ));
        }
        if index.dtype() != DType::Int64 {
            return Err(crate::BorchError::Index(
                "index_fill_(): Expected dtype int64 for index.".into(),
            ));
        }
        let value = value.into();
        if let Operand::Tensor(v) = &value
            && v.dim() != 0
        {
            return runtime(format!(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} \
                 dimension(s).",
                v.dim()
            ));
        }
        let n = if self.dim() == 0 { 1 } else { self.shape()[d] };
        // torch counts a negative index from the end.
        let index = index.reshape(&[-1])?;
        let index = crate::where_cond(
            &index.lt(0)?,
            Operand::Tensor(index.add(n as i64)?),
            Operand::Tensor(index.clone()),
        )?;
        let hits = creation::zeros(&[n], DType::Int64)?.index_add(
            0,
            &index,
            &creation::ones(&[index.numel()], DType::Int64)?,
            1.0,
        )?;
        let mut shape = vec![1isize; self.dim()];
        if self.dim() > 0 {
            shape[d] = n as isize;
        }
        let mask = hits.gt(0)?.reshape(&shape)?;
        self.masked_fill(&mask, value)
    }

    /// torch's `index_fill_(dim, index, value)`.
    pub fn index_fill_(&self, dim: isize, index: &Tensor, value: impl Into<Operand>) -> Result<()> {
        let value = value.into();
        let mut others = vec![];
        if let Operand::Tensor(v) = &value {
            others.push(v);
        }
        self.inplace_from(&others, |prev| prev.index_fill(dim, index, value.clone()))
    }

    /// torch's `masked_scatter(mask, source)`: where `mask` is true, the elements of `source`
    /// in order (row-major), computed on the device by a running count of the mask.
    pub fn masked_scatter(&self, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
        if mask.dtype() != DType::Bool {
            return runtime(format!(
                "masked_scatter_ only supports boolean masks, but got mask with dtype {}",
                mask.dtype().scalar_type_name()
            ));
        }
        if source.dtype() != self.dtype() {
            return runtime(format!(
                "masked_scatter_: expected self and source to have same dtypes but got {} and {}",
                self.dtype().scalar_type_name(),
                source.dtype().scalar_type_name()
            ));
        }
        let mask = mask.expand(&self.shape().iter().map(|&d| d as isize).collect::<Vec<_>>())?;
        let flat = mask.reshape(&[-1])?;
        let position = flat
            .to_dtype(DType::Int64)?
            .cumsum(0)?
            .sub(1)?
            .clamp_min(0)?;
        if source.numel() == 0 {
            return self.clone_contiguous();
        }
        let picked = source.reshape(&[-1])?.take(&position)?;
        let shape: Vec<isize> = self.shape().iter().map(|&d| d as isize).collect();
        crate::where_cond(&mask, t(&picked.reshape(&shape)?), t(self))
    }

    /// torch's `masked_scatter_(mask, source)`.
    pub fn masked_scatter_(&self, mask: &Tensor, source: &Tensor) -> Result<()> {
        self.inplace_from(&[source], |prev| prev.masked_scatter(mask, source))
    }

    /// torch's `scatter_(dim, index, src)` with `src` a tensor or a value: for dim 0,
    /// `self[index[i][j]][j] = src[i][j]` (or the value). Where indices repeat, one of the
    /// values lands, unspecified which.
    pub fn scatter_(&self, dim: isize, index: &Tensor, src: impl Into<Operand>) -> Result<()> {
        let src = src.into();
        let others = tensors_of(std::slice::from_ref(&src));
        self.inplace_with(
            &others,
            || self.scatter_assign(dim, index, src.clone()),
            |prev| prev.scatter(dim, index, src.clone()),
        )
    }

    /// torch's `scatter_add_(dim, index, src)`: for dim 0, `self[index[i][j]][j] += src[i][j]`,
    /// every repeat of an index adding.
    pub fn scatter_add_(&self, dim: isize, index: &Tensor, src: &Tensor) -> Result<()> {
        self.inplace_with(
            &[src],
            || self.scatter_add_direct(dim, index, src),
            |prev| prev.scatter_add(dim, index, src),
        )
    }

    /// torch's `index_add_(dim, index, source, alpha=alpha)`: for dim 0,
    /// `self[index[i]] += alpha * source[i]`, every repeat of an index adding. For int64 `alpha`
    /// is truncated to an integer, as torch does.
    pub fn index_add_(
        &self,
        dim: isize,
        index: &Tensor,
        source: &Tensor,
        alpha: f64,
    ) -> Result<()> {
        self.inplace_with(
            &[source],
            || self.index_add_direct(dim, index, source, alpha),
            |prev| prev.index_add(dim, index, source, alpha),
        )
    }
}
