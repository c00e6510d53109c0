//! Reductions to one value per output: sum, mean, prod, amax/amin, max/min over all, all/any,
//! logsumexp, norm. Each builds a `ReduceSpec` for the one reduction kernel.

use crate::dtype::DType;
use crate::error::{BorchError, Result, index_err, not_impl, runtime};
use crate::kernels::reduce::{Combine, Fold, Output, Pre, ReduceSpec, reduce, splits_rows};
use crate::layout::wrap_dims;
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

/// The WGSL zero of a dtype's storage type.
pub(crate) fn zero(dt: DType) -> &'static str {
    match dt {
        DType::Float32 => "0.0",
        DType::Int64 => "0",
        DType::Bool => "0u",
    }
}

/// The identity of max (`lowest`) or min over a dtype.
fn lowest(dt: DType, for_max: bool) -> &'static str {
    match (dt, for_max) {
        (DType::Float32, true) => "-f_inf()",
        (DType::Float32, false) => "f_inf()",
        (DType::Int64, true) => "i32(-2147483647 - 1)",
        (DType::Int64, false) => "2147483647",
        (DType::Bool, true) => "0u",
        (DType::Bool, false) => "1u",
    }
}

/// A fold with a plain combine expression.
pub(crate) fn fold(acc: &'static str, init: &str, map: &str, combine: &str) -> Fold {
    Fold {
        acc,
        init: init.to_string(),
        map: map.to_string(),
        combine: Combine::Expr(combine.to_string()),
    }
}

/// A spec producing one value of `dtype` per output.
pub(crate) fn value_spec(compute: DType, fold: Fold, dtype: DType, finalize: &str) -> ReduceSpec {
    ReduceSpec {
        compute,
        pre: None,
        fold,
        output: Output::Value {
            dtype,
            finalize: finalize.to_string(),
            index: false,
        },
        extras: Vec::new(),
    }
}

/// Run a one-value-per-output spec over the flagged dims.
pub(crate) fn run(t: &Tensor, spec: &ReduceSpec, flags: &[bool], keepdim: bool) -> Result<Tensor> {
    let shape = out_shape(t.shape(), flags, keepdim);
    reduce(spec, t, flags, &shape)?
        .0
        .ok_or_else(|| BorchError::Runtime("reduction produced no values".into()))
}

/// The dtype sums and products accumulate in: int64 for integers and bools, as torch.
fn accumulating(dt: DType) -> DType {
    if dt == DType::Float32 {
        DType::Float32
    } else {
        DType::Int64
    }
}

fn sum_like(t: &Tensor, op: &str, identity: &str, flags: &[bool], keepdim: bool) -> Result<Tensor> {
    let c = accumulating(t.dtype());
    let init = if c == DType::Float32 {
        format!("{identity}.0")
    } else {
        identity.to_string()
    };
    let f = fold(c.wgsl(), &init, "x", &format!("a {op} b"));
    run(t, &value_spec(c, f, c, "acc"), flags, keepdim)
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
    let dt = t.dtype();
    let combine = match (dt, for_max) {
        (DType::Float32, true) => "max_f(a, b)",
        (DType::Float32, false) => "min_f(a, b)",
        (_, true) => "max(a, b)",
        (_, false) => "min(a, b)",
    };
    let f = fold(dt.wgsl(), lowest(dt, for_max), "x", combine);
    run(t, &value_spec(dt, f, dt, "acc"), &flags, keepdim)
}

/// The p-norm's fold and finalizer, by p (`k(0u)` holds p for the general case).
fn norm_parts(p: f64) -> (Fold, &'static str) {
    let sum = |map: &str| fold("f32", "0.0", map, "a + b");
    if p == f64::INFINITY {
        (fold("f32", "0.0", "abs(x)", "max_f(a, b)"), "acc")
    } else if p == f64::NEG_INFINITY {
        (fold("f32", "f_inf()", "abs(x)", "min_f(a, b)"), "acc")
    } else if p == 0.0 {
        (sum("select(0.0, 1.0, nonzero_f(x))"), "acc")
    } else if p == 1.0 {
        (sum("abs(x)"), "acc")
    } else if p == 2.0 {
        (sum("x * x"), "sqrt(acc)")
    } else {
        (sum("pow_f(abs(x), k(0u))"), "pow_f(acc, 1.0 / k(0u))")
    }
}

impl Tensor {
    /// torch's `sum(dim, keepdim)`: `None` (or an empty list) sums every dim; ints and bools
    /// sum to int64.
    pub fn sum(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let flags = reduced_flags(self, dims, true)?;
        sum_like(self, "+", "0", &flags, keepdim)
    }

    /// torch's `prod(dim, keepdim)`: `None` multiplies every element; ints and bools give int64.
    pub fn prod(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor> {
        let flags = match dim {
            Some(d) => reduced_flags(self, Some(&[d]), true)?,
            None => reduced_flags(self, None, true)?,
        };
        sum_like(self, "*", "1", &flags, keepdim)
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
        let f = fold("f32", "0.0", "x", "a + b");
        let spec = value_spec(DType::Float32, f, DType::Float32, "div_or_nan(acc, n)");
        run(self, &spec, &flags, keepdim)
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
        self.truth(dims, keepdim, "1u", "a & b")
    }

    /// torch's `any(dim, keepdim)`.
    pub fn any(&self, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        self.truth(dims, keepdim, "0u", "a | b")
    }

    fn truth(
        &self,
        dims: Option<&[isize]>,
        keepdim: bool,
        init: &str,
        combine: &str,
    ) -> Result<Tensor> {
        let flags = reduced_flags(self, dims, false)?;
        let dt = self.dtype();
        // By bit pattern for floats, so that NaN counts as nonzero under any compiler.
        let map = if dt == DType::Float32 {
            "u32(nonzero_f(x))".to_string()
        } else {
            format!("u32(x != {})", zero(dt))
        };
        let f = fold("u32", init, &map, combine);
        run(
            self,
            &value_spec(dt, f, DType::Bool, "acc"),
            &flags,
            keepdim,
        )
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
            let f = fold("f32", "0.0", "exp(x)", "a + b");
            let spec = value_spec(DType::Float32, f, DType::Float32, "log_f(acc)");
            let sums = run(&x.sub(&m)?, &spec, &flags, keepdim)?;
            return sums.add(&m.view_as_shape(sums.shape())?);
        }
        let spec = ReduceSpec {
            compute: DType::Float32,
            pre: Some(Pre {
                fold: fold("f32", "-f_inf()", "x", "max_f(a, b)"),
                finalize: "select(acc, 0.0, is_inf(acc))".into(),
            }),
            fold: fold("f32", "0.0", "exp(x - pre)", "a + b"),
            output: Output::Value {
                dtype: DType::Float32,
                finalize: "log_f(acc) + pre".into(),
                index: false,
            },
            extras: Vec::new(),
        };
        run(self, &spec, &flags, keepdim)
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
        let (f, finalize) = norm_parts(p);
        let mut spec = value_spec(DType::Float32, f, DType::Float32, finalize);
        spec.extras = vec![p as f32];
        run(self, &spec, &flags, keepdim)
    }
}
