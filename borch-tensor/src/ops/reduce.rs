//! Reductions to one value per output: sum, mean, prod, amax/amin, max/min over all, all/any,
//! logsumexp, norm. Each checks its arguments as torch does and runs a spec of reduce_specs.rs.

use crate::autograd::{Op, ReduceOp, record};
use crate::dtype::DType;
use crate::error::{BorchError, Result, index_err, not_impl, runtime};
use crate::kernels::reduce::{ReduceSpec, reduce, splits_rows};
use crate::layout::wrap_dims;
use crate::ops::reduce_specs as specs;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// One flag per dim: whether it is reduced. `None` reduces every dim; so does an empty list
/// where `empty_is_all` (torch's rule for sum, mean, amax, var, norm, …, but not all/any).
pub(crate) fn reduced_flags(
    t: &Tensor,
    dims: Option<&[isize]>,
    empty_is_all: bool,
) -> Result<Vec<bool>> {
    let rank = t.dim();
    match dims {
        None => Ok(vec![true; rank]),
        Some([]) if empty_is_all => Ok(vec![true; rank]),
        Some(ds) => {
            let wrapped = wrap_dims(ds, rank)?;
            let mut flags = vec![false; rank];
            if rank > 0 {
                for d in wrapped {
                    flags[d] = true;
                }
            }
            Ok(flags)
        }
    }
}

/// The result's shape: reduced dims dropped, or kept as 1 with `keepdim`.
pub(crate) fn out_shape(shape: &[usize], flags: &[bool], keepdim: bool) -> Vec<usize> {
    shape
        .iter()
        .zip(flags)
        .filter_map(|(&n, &r)| match (r, keepdim) {
            (false, _) => Some(n),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// Run a one-value-per-output spec over the flagged dims.
pub(crate) fn run(t: &Tensor, spec: &ReduceSpec, flags: &[bool], keepdim: bool) -> Result<Tensor> {
    let shape = out_shape(t.shape(), flags, keepdim);
    reduce(spec, t, flags, &shape)?
        .0
        .ok_or_else(|| BorchError::Runtime("reduction produced no values".into()))
}

/// The message torch gives when max/min over all dims meets an empty tensor.
fn unspecified_dim_err<T>(name: &str) -> Result<T> {
    runtime(format!(
        "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the \
         reduction dim with the 'dim' argument."
    ))
}

/// amax/amin and max()/min(): the extreme value, NaN propagating, dtype kept.
fn extreme(
    t: &Tensor,
    name: &str,
    for_max: bool,
    dims: Option<&[isize]>,
    keepdim: bool,
) -> Result<Tensor> {
    let flags = reduced_flags(t, dims, true)?;
    if t.numel() == 0 {
        match dims {
            None | Some([]) => return unspecified_dim_err(name),
            Some(ds) => {
                for (&d, w) in ds.iter().zip(wrap_dims(ds, t.dim())?) {
                    if t.shape()[w] == 0 {
                        return index_err(format!(
                            "{name}(): Expected reduction dim {d} to have non-zero size."
                        ));
                    }
                }
            }
        }
    }
    let out = run(t, &specs::extreme(t.dtype(), for_max), &flags, keepdim)?;
    let op = match (for_max, name) {
        (true, "max") => ReduceOp::Max,
        (false, "min") => ReduceOp::Min,
        (true, _) => ReduceOp::Amax,
        (false, _) => ReduceOp::Amin,
    };
    Ok(recorded(t, op, &flags, keepdim, out))
}

/// Record a reduction of `input` over the flagged dims for autograd.
pub(crate) fn recorded(
    input: &Tensor,
    op: ReduceOp,
    flags: &[bool],
    keepdim: bool,
    out: Tensor,
) -> Tensor {
    let dims = flags
        .iter()
        .enumerate()
        .filter_map(|(i, &f)| f.then_some(i))
        .collect();
    record(
        Op::Reduce { op, dims, keepdim },
        &[Operand::Tensor(input.clone())],
        out,
    )
}

impl Tensor {
    /// torch's `sum(dim, keepdim)`: `None` (or an empty list) sums every dim; ints and bools
    /// sum to int64.
    pub fn sum(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let flags = reduced_flags(self, dims, true)?;
        let out = run(self, &specs::sum(self.dtype(), false), &flags, keepdim)?;
        Ok(recorded(self, ReduceOp::Sum, &flags, keepdim, out))
    }

    /// torch's `prod(dim, keepdim)`: `None` multiplies every element; ints and bools give int64.
    pub fn prod(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        let flags = match dim {
            Some(d) => reduced_flags(self, Some(&[d]), true)?,
            None => reduced_flags(self, None, true)?,
        };
        let out = run(self, &specs::sum(self.dtype(), true), &flags, keepdim)?;
        Ok(recorded(self, ReduceOp::Prod, &flags, keepdim, out))
    }

    /// torch's `mean(dim, keepdim)`, floating point only; the mean of nothing is NaN.
    pub fn mean(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        if self.dtype() != DType::Float32 {
            return not_impl(format!(
                "mean(): could not infer output dtype. Input dtype must be either a floating \
                 point or complex dtype. Got: {}",
                self.dtype().scalar_type_name()
            ));
        }
        let flags = reduced_flags(self, dims, true)?;
        let out = run(self, &specs::mean(), &flags, keepdim)?;
        Ok(recorded(self, ReduceOp::Mean, &flags, keepdim, out))
    }

    /// torch's `amax(dim, keepdim)`: the maximum over `dims` (`None` or empty: all), NaN
    /// propagating, dtype kept.
    pub fn amax(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        extreme(self, "amax", true, dims, keepdim)
    }

    /// torch's `amin(dim, keepdim)`.
    pub fn amin(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        extreme(self, "amin", false, dims, keepdim)
    }

    /// torch's `max()`: the largest element as a 0-d tensor (NaN if any is NaN).
    pub fn max(&self) -> Result<Tensor> {
        extreme(self, "max", true, None, false)
    }

    /// torch's `min()`.
    pub fn min(&self) -> Result<Tensor> {
        extreme(self, "min", false, None, false)
    }

    /// torch's `all(dim, keepdim)`: whether every element is nonzero (NaN counts as nonzero);
    /// an empty list of dims reduces nothing. The result is bool.
    pub fn all(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let flags = reduced_flags(self, dims, false)?;
        run(self, &specs::truth(self.dtype(), true), &flags, keepdim)
    }

    /// torch's `any(dim, keepdim)`.
    pub fn any(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let flags = reduced_flags(self, dims, false)?;
        run(self, &specs::truth(self.dtype(), false), &flags, keepdim)
    }

    /// torch's `logsumexp(dim, keepdim)`, stable against overflow; an empty list reduces every
    /// dim. Integer inputs give float.
    pub fn logsumexp(&self, dims: &[isize], keepdim: bool) -> Result<Tensor> {
        let flags = reduced_flags(self, Some(dims), true)?;
        if splits_rows(self.shape(), &flags) {
            // Few very long rows: the max and the sum of exponentials each split across
            // workgroups.
            let x = self.to_dtype(DType::Float32)?;
            let m = x.amax(Some(dims), true)?;
            let m = m.masked_fill(&m.isinf()?, 0.0)?;
            let sums = run(&x.sub(&m)?, &specs::log_sum_exp_shifted(), &flags, keepdim)?;
            let out = sums.add(&m.view_as_shape(sums.shape())?)?;
            return Ok(recorded(
                self,
                ReduceOp::LogSumExp,
                &flags,
                keepdim,
                out.detach(),
            ));
        }
        let out = run(self, &specs::logsumexp(), &flags, keepdim)?;
        Ok(recorded(self, ReduceOp::LogSumExp, &flags, keepdim, out))
    }

    /// torch's `norm(p, dim, keepdim)` (a vector norm): p = 2, 1, inf, -inf, 0 or any other
    /// number; `None` or an empty list reduces every dim. Floating point only.
    pub fn norm(&self, p: f64, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        if self.dtype() != DType::Float32 {
            return not_impl(format!(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                self.dtype().scalar_type_name()
            ));
        }
        let flags = reduced_flags(self, dims, true)?;
        if p < 0.0 || p.is_infinite() {
            let no_identity = "because the operation does not have an identity";
            match dims {
                None | Some([]) if self.numel() == 0 => {
                    return runtime(format!(
                        "linalg.vector_norm cannot compute the {p} norm on an empty tensor \
                         {no_identity}"
                    ));
                }
                Some(ds) => {
                    for w in wrap_dims(ds, self.dim())? {
                        if self.dim() > 0 && self.shape()[w] == 0 {
                            return runtime(format!(
                                "linalg.vector_norm cannot compute the {p} norm on the dimension \
                                 {w}because this dimension is empty and the operation does not \
                                 have an identity"
                            ));
                        }
                    }
                }
                None => {}
            }
        }
        let out = run(self, &specs::norm(p), &flags, keepdim)?;
        Ok(recorded(self, ReduceOp::Norm(p), &flags, keepdim, out))
    }
}
