//! Ops along a sequence, composed from recorded views, comparisons and sums: `diff`, `rot90`,
//! `repeat_interleave` (a number of repeats), `searchsorted`, `bucketize`, `histc`.

use crate::dtype::DType;
use crate::error::{BorchError, Result, not_impl, runtime};
use crate::layout::wrap_dim;
use crate::ops::{creation, join};
use crate::scalar::{Operand, Scalar};
use crate::tensor::Tensor;

fn isz(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

impl Tensor {
    /// torch's `diff(n, dim, prepend, append)`: the n-th forward difference along `dim`.
    pub fn diff(
        &self,
        n: i64,
        dim: isize,
        prepend: Option<&Tensor>,
        append: Option<&Tensor>,
    ) -> Result<Tensor> {
        if self.dim() == 0 {
            return runtime("diff expects input to be at least one-dimensional");
        }
        if n < 0 {
            return runtime(format!("order must be non-negative but got {n}"));
        }
        let d = wrap_dim(dim, self.dim())? as isize;
        let mut parts = Vec::new();
        if let Some(p) = prepend {
            parts.push(p.clone());
        }
        parts.push(self.clone());
        if let Some(a) = append {
            parts.push(a.clone());
        }
        let mut x = if parts.len() == 1 {
            self.clone()
        } else {
            join::cat(&parts, d)?
        };
        for _ in 0..n {
            let len = x.shape()[d as usize];
            if len == 0 {
                break;
            }
            let (hi, lo) = (x.narrow(d, 1, len - 1)?, x.narrow(d, 0, len - 1)?);
            x = if x.dtype() == DType::Bool {
                hi.logical_xor(&lo)?
            } else {
                hi.sub(&lo)?
            };
        }
        Ok(x)
    }

    /// torch's `rot90(k, dims)`: rotate by 90° k times from `dims[0]` towards `dims[1]`.
    pub fn rot90(&self, k: i64, dims: &[isize]) -> Result<Tensor> {
        if dims.len() != 2 {
            return runtime(format!(
                "expected total rotation dims == 2, but got dims = {}",
                dims.len()
            ));
        }
        if self.dim() < 2 {
            return runtime(format!(
                "expected total dims >= 2, but got total dims = {}",
                self.dim()
            ));
        }
        let (d0, d1) = (
            wrap_dim(dims[0], self.dim())?,
            wrap_dim(dims[1], self.dim())?,
        );
        if d0 == d1 {
            return runtime(format!(
                "expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
            ));
        }
        let (a, b) = (d0 as isize, d1 as isize);
        match k.rem_euclid(4) {
            1 => self.flip(&[b])?.transpose(a, b),
            2 => self.flip(&[a, b]),
            3 => self.flip(&[a])?.transpose(a, b),
            _ => self.clone_contiguous(),
        }
    }

    /// torch's `repeat_interleave(repeats, dim)` with a number of repeats: each element (or
    /// slice along `dim`) `repeats` times in a row; `dim=None` flattens first.
    pub fn repeat_interleave(&self, repeats: i64, dim: Option<isize>) -> Result<Tensor> {
        if repeats < 0 {
            return runtime("repeats can not be negative");
        }
        let (x, d) = match dim {
            None => (self.reshape(&[-1])?, 0),
            Some(dm) => {
                let x = if self.dim() == 0 {
                    self.reshape(&[1])?
                } else {
                    self.clone()
                };
                (x, wrap_dim(dm, self.dim().max(1))?)
            }
        };
        let too_many = || {
            BorchError::Runtime(format!(
                "repeat_interleave: {repeats} repeats of a dim of size {} overflow a tensor's size",
                x.shape()[d]
            ))
        };
        let r = isize::try_from(repeats).map_err(|_| too_many())?;
        let mut shape = isz(x.shape());
        shape.insert(d + 1, r);
        let mut merged = isz(x.shape());
        merged[d] = merged[d].checked_mul(r).ok_or_else(too_many)?;
        x.unsqueeze(d as isize + 1)?
            .expand(&shape)?
            .reshape(&merged)
    }
}

fn check_int32(out_int32: bool) -> Result<()> {
    if out_int32 {
        return not_impl("out_int32=True: borch's integer tensors are int64");
    }
    Ok(())
}

/// torch's `searchsorted(sorted_sequence, values, right=…)`: for each value, how many elements
/// of its (innermost) row of `sorted_sequence` come before it.
pub fn searchsorted(
    sorted_sequence: &Tensor,
    values: Operand,
    out_int32: bool,
    right: bool,
    side: Option<&str>,
) -> Result<Tensor> {
    check_int32(out_int32)?;
    let right = match side {
        None => right,
        Some("left") if right => {
            return runtime(
                "torch.searchsorted(): side and right can't be set to opposites, got side of \
                 left while right was True",
            );
        }
        Some("left") => false,
        Some("right") => true,
        Some(other) => {
            return runtime(format!(
                "torch.searchsorted(): side can only be 'left' or 'right' but got {other}"
            ));
        }
    };
    if sorted_sequence.dim() == 0 {
        return runtime(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 \
             dimensions of boundaries tensor and input value tensor must match, but we got \
             boundaries tensor [] and input value tensor []",
        );
    }
    let values = match values {
        Operand::Tensor(t) => t,
        Operand::Scalar(s) => {
            if sorted_sequence.dim() != 1 {
                return runtime(
                    "torch.searchsorted(): input value can be a scalar only when boundaries \
                     tensor dimension is 1",
                );
            }
            creation::full(&[], s, Some(sorted_sequence.dtype()))?
        }
    };
    let seq = if sorted_sequence.dim() == 1 {
        sorted_sequence.clone()
    } else {
        let lead = &sorted_sequence.shape()[..sorted_sequence.dim() - 1];
        if values.dim() != sorted_sequence.dim() || &values.shape()[..values.dim() - 1] != lead {
            return runtime(format!(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 \
                 dimensions of boundaries tensor and input value tensor must match, but we got \
                 boundaries tensor {} and input value tensor {}",
                crate::layout::fmt_list(sorted_sequence.shape()),
                crate::layout::fmt_list(values.shape())
            ));
        }
        sorted_sequence.unsqueeze(-2)?
    };
    let v = values.detach().unsqueeze(-1)?;
    let seq = seq.detach();
    let before = if right { seq.le(&v)? } else { seq.lt(&v)? };
    // torch's binary search moves past every boundary for a NaN value (`!(b >= v)` holds).
    let before = before.logical_or(&v.isnan()?)?;
    before.to_dtype(DType::Int64)?.sum(Some(&[-1]), false)
}

/// torch's `bucketize(input, boundaries, right=…)`: the bucket of each element among the 1-D
/// `boundaries`.
pub fn bucketize(
    input: Operand,
    boundaries: &Tensor,
    out_int32: bool,
    right: bool,
) -> Result<Tensor> {
    if boundaries.dim() != 1 {
        return runtime(format!(
            "boundaries tensor must be 1 dimension, but got dim({})",
            boundaries.dim()
        ));
    }
    searchsorted(boundaries, input, out_int32, right, None)
}

impl Tensor {
    /// torch's `histc(bins, min, max)`: counts of the elements in `bins` equal-width bins over
    /// [min, max] (the data's own range when min == max); elements outside are ignored.
    pub fn histc(&self, bins: i64, min: f64, max: f64) -> Result<Tensor> {
        if self.dtype() != DType::Float32 {
            return not_impl(format!(
                "\"histogram_cpu\" not implemented for '{}'",
                self.dtype().scalar_type_name()
            ));
        }
        if bins <= 0 {
            return runtime(
                "torch.histc(): bins must be > 0, but got 0 for dimension 0"
                    .replace(" 0 for", &format!(" {bins} for")),
            );
        }
        if min > max {
            return runtime("torch.histc: max must be larger than min");
        }
        let x = self.detach().reshape(&[-1])?;
        let (lo, hi) = if min == max {
            if x.numel() == 0 {
                (
                    creation::full(&[], min, None)?,
                    creation::full(&[], max, None)?,
                )
            } else {
                (x.amin(None, false)?, x.amax(None, false)?)
            }
        } else {
            (
                creation::full(&[], min, None)?,
                creation::full(&[], max, None)?,
            )
        };
        let same = lo.eq(&hi)?;
        let lo = crate::where_cond(
            &same,
            Operand::Tensor(lo.sub(1.0)?),
            Operand::Tensor(lo.clone()),
        )?;
        let hi = crate::where_cond(&same, Operand::Tensor(hi.add(1.0)?), Operand::Tensor(hi))?;
        let inside = x.ge(&lo)?.logical_and(&x.le(&hi)?)?;
        let pos = x.sub(&lo)?.mul(bins as f64)?.div(&hi.sub(&lo)?)?.floor()?;
        let pos = pos.clamp(
            Some(Operand::Scalar(Scalar::Float(0.0))),
            Some(Operand::Scalar(Scalar::Float((bins - 1) as f64))),
        )?;
        let bin = creation::arange(0, bins, 1)?
            .to_dtype(DType::Float32)?
            .unsqueeze(1)?;
        let hit = pos
            .unsqueeze(0)?
            .eq(&bin)?
            .logical_and(&inside.unsqueeze(0)?)?;
        hit.to_dtype(DType::Float32)?.sum(Some(&[1]), false)
    }
}
