//! Catalog entries of the products, norms, order statistics, sequence ops and data-dependent ops
//! (`torch.linalg.*` under flat `linalg_*` names). Data-dependent ops block on native targets;
//! in a browser they are refused, naming the core's async method.

use crate::error::{BorchError, Result};
use crate::ops::linalg::MatrixOrd;
use crate::ops::{einsum, sequence};
use crate::tensor::Tensor;

use super::args::Args;
use super::signature::{Call, Entry, Form, Returns, parse_params};
use super::value::Value;

type Body = fn(&Args) -> Result<Value>;

fn entry(form: Form, name: &'static str, params: &str, returns: Returns, body: Body) -> Entry {
    Entry {
        name,
        form,
        params: parse_params(params),
        returns,
        call: Call::Fn(body),
    }
}

fn ok<T: Into<Value>>(r: Result<T>) -> Result<Value> {
    r.map(Into::into)
}

/// A data-dependent op: blocking natively; refused in a browser (a synchronous call cannot
/// await the read), naming the async method of the core.
fn blocking<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = what;
        f()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = f;
        Err(BorchError::NotImplemented(format!(
            "{what}: its result's shape depends on the values, which borch cannot read back \
             inside a synchronous call in a browser (the core's async {what} can)"
        )))
    }
}

/// A matrix norm's `ord`: 'fro', 'nuc' or a number.
fn ord(v: &Value) -> Result<Option<MatrixOrd>> {
    Ok(match v {
        Value::None => None,
        Value::Str(s) => Some(MatrixOrd::parse(s)?),
        Value::Int(i) => Some(MatrixOrd::Num(*i as f64)),
        Value::Float(f) => Some(MatrixOrd::Num(*f)),
        other => {
            return Err(BorchError::Type(format!(
                "linalg.norm(): argument 'ord' must be str or number, not {}",
                other.type_name()
            )));
        }
    })
}

fn vector_ord(v: &Value) -> Result<f64> {
    match ord(v)? {
        None => Ok(2.0),
        Some(MatrixOrd::Num(p)) => Ok(p),
        Some(_) => Err(BorchError::Runtime(
            "linalg.vector_norm: argument 'ord' must be a number".into(),
        )),
    }
}

fn two_dims(a: &Args, i: usize, default: [isize; 2]) -> Result<[isize; 2]> {
    match a.dims(i)? {
        None => Ok(default),
        Some(d) if d.len() == 2 => Ok([d[0], d[1]]),
        Some(d) => Err(BorchError::Runtime(format!(
            "linalg.matrix_norm: dim must be a 2-tuple. Got {}",
            d.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ))),
    }
}

fn pair(r: Result<(Tensor, Tensor)>) -> Result<Value> {
    r.map(Value::from)
}

fn unique(a: &Args) -> Result<Value> {
    if !a.get(4).is_none() {
        return Err(BorchError::NotImplemented(
            "unique(dim=...): borch computes unique over every element only (dim=None)".into(),
        ));
    }
    let (inverse, counts) = (a.bool(2)?, a.bool(3)?);
    let t = a.tensor(0)?;
    let (u, i, c) = blocking("unique", || crate::ops::nonzero_unique(&t, inverse, counts))?;
    if i.is_none() && c.is_none() {
        return Ok(Value::Tensor(u));
    }
    let mut out = vec![Value::Tensor(u)];
    out.extend(i.map(Value::Tensor));
    out.extend(c.map(Value::Tensor));
    Ok(Value::List(out))
}

fn repeat_interleave(a: &Args) -> Result<Value> {
    let t = a.tensor(0)?;
    let dim = a.opt_int(2)?;
    match a.get(1) {
        Value::Tensor(r) => {
            let r = r.clone();
            ok(blocking("repeat_interleave", || {
                crate::ops::nonzero_repeat(&t, &r, dim)
            }))
        }
        Value::None => {
            // torch.repeat_interleave(repeats): the repeats tensor is the input.
            let idx = crate::ops::creation::arange(0, t.numel() as i64, 1)?;
            ok(blocking("repeat_interleave", || {
                crate::ops::nonzero_repeat(&idx, &t, None)
            }))
        }
        _ => ok(t.repeat_interleave(a.i64(1)?, dim)),
    }
}

#[rustfmt::skip]
pub(super) fn listed() -> Vec<Entry> {
    use Form::{Both, Function as Func};
    use Returns::{MaybePair, Pair, Tensor as T};
    vec![
        entry(Both, "baddbmm", "batch1: Tensor, batch2: Tensor, beta: Float = 1, alpha: Float = 1", T,
            |a| ok(a.tensor(0)?.baddbmm(&a.tensor(1)?, &a.tensor(2)?, a.f64(3)?, a.f64(4)?))),
        entry(Both, "addbmm", "batch1: Tensor, batch2: Tensor, beta: Float = 1, alpha: Float = 1", T,
            |a| ok(a.tensor(0)?.addbmm(&a.tensor(1)?, &a.tensor(2)?, a.f64(3)?, a.f64(4)?))),
        entry(Both, "cross", "other: Tensor, dim: Int = None", T,
            |a| ok(a.tensor(0)?.cross(&a.tensor(1)?, a.opt_int(2)?))),
        entry(Func, "linalg_cross", "input: Tensor, other: Tensor, dim: Int = -1", T,
            |a| ok(a.tensor(0)?.linalg_cross(&a.tensor(1)?, a.int(2)?))),
        entry(Func, "cdist", "x1: Tensor, x2: Tensor, p: Float = 2.0, compute_mode: Str = None", T,
            |a| ok(a.tensor(0)?.cdist(&a.tensor(1)?, a.f64(2)?))),
        entry(Func, "linalg_vector_norm", "x: Tensor, ord: Scalar = 2, dim: Dims = None, keepdim: Bool = False, dtype: DType = None", T,
            |a| ok(a.tensor(0)?.linalg_vector_norm(vector_ord(a.get(1))?, a.dims(2)?.as_deref(), a.bool(3)?))),
        entry(Func, "linalg_matrix_norm", "A: Tensor, ord: Scalar = 'fro', dim: Dims = None, keepdim: Bool = False, dtype: DType = None", T,
            |a| ok(a.tensor(0)?.linalg_matrix_norm(ord(a.get(1))?.unwrap_or(MatrixOrd::Fro), two_dims(a, 2, [-2, -1])?, a.bool(3)?))),
        entry(Func, "linalg_norm", "A: Tensor, ord: Scalar = None, dim: Dims = None, keepdim: Bool = False, dtype: DType = None", T,
            |a| ok(a.tensor(0)?.linalg_norm(ord(a.get(1))?, a.dims(2)?.as_deref(), a.bool(3)?))),
        entry(Func, "einsum", "equation: Str, *operands: Tensors", T,
            |a| ok(einsum::einsum(a.str(0)?, &a.tensors(1)?))),
        entry(Both, "diff", "n: Int = 1, dim: Int = -1, prepend: Tensor = None, append: Tensor = None", T,
            |a| ok(a.tensor(0)?.diff(a.i64(1)?, a.int(2)?, a.opt_tensor(3)?.as_ref(), a.opt_tensor(4)?.as_ref()))),
        entry(Both, "rot90", "k: Int = 1, dims: Ints = None", T,
            |a| ok(a.tensor(0)?.rot90(a.i64(1)?, &a.opt_ints(2)?.unwrap_or(vec![0, 1])))),
        entry(Both, "median", "dim: Int = None, keepdim: Bool = False", MaybePair, |a| match a.opt_int(1)? {
            None => ok(a.tensor(0)?.median()),
            Some(d) => pair(a.tensor(0)?.median_dim(d, a.bool(2)?)),
        }),
        entry(Both, "nanmedian", "dim: Int = None, keepdim: Bool = False", MaybePair, |a| match a.opt_int(1)? {
            None => ok(a.tensor(0)?.nanmedian()),
            Some(d) => pair(a.tensor(0)?.nanmedian_dim(d, a.bool(2)?)),
        }),
        entry(Both, "kthvalue", "k: Int, dim: Int = -1, keepdim: Bool = False", Pair,
            |a| pair(a.tensor(0)?.kthvalue(a.i64(1)?, a.int(2)?, a.bool(3)?))),
        entry(Both, "quantile", "q: Operand, dim: Int = None, keepdim: Bool = False, interpolation: Str = 'linear'", T,
            |a| ok(a.tensor(0)?.quantile(a.operand(1)?, a.opt_int(2)?, a.bool(3)?, a.str(4)?, false))),
        entry(Both, "nanquantile", "q: Operand, dim: Int = None, keepdim: Bool = False, interpolation: Str = 'linear'", T,
            |a| ok(a.tensor(0)?.quantile(a.operand(1)?, a.opt_int(2)?, a.bool(3)?, a.str(4)?, true))),
        entry(Both, "mode", "dim: Int = -1, keepdim: Bool = False", Pair,
            |a| pair(a.tensor(0)?.mode(a.int(1)?, a.bool(2)?))),
        entry(Both, "cummax", "dim: Int", Pair, |a| pair(a.tensor(0)?.cummax(a.int(1)?))),
        entry(Both, "cummin", "dim: Int", Pair, |a| pair(a.tensor(0)?.cummin(a.int(1)?))),
        entry(Func, "searchsorted", "sorted_sequence: Tensor, input: Operand, out_int32: Bool = False, right: Bool = False, side: Str = None, sorter: Tensor = None", T, |a| {
            if a.opt_tensor(5)?.is_some() {
                return Err(BorchError::NotImplemented("searchsorted(sorter=...): pass the sequence sorted".into()));
            }
            ok(sequence::searchsorted(&a.tensor(0)?, a.operand(1)?, a.bool(2)?, a.bool(3)?, a.opt_str(4)?))
        }),
        entry(Func, "bucketize", "input: Operand, boundaries: Tensor, out_int32: Bool = False, right: Bool = False", T,
            |a| ok(sequence::bucketize(a.operand(0)?, &a.tensor(1)?, a.bool(2)?, a.bool(3)?))),
        entry(Both, "histc", "bins: Int = 100, min: Float = 0, max: Float = 0", T,
            |a| ok(a.tensor(0)?.histc(a.i64(1)?, a.f64(2)?, a.f64(3)?))),
        entry(Both, "repeat_interleave", "repeats: Operand = None, dim: Int = None, output_size: Int = None", T, repeat_interleave),
        // data-dependent shapes
        entry(Both, "nonzero", "as_tuple: Bool = False", MaybePair, |a| {
            let t = a.tensor(0)?;
            if a.bool(1)? {
                ok(blocking("nonzero", || crate::ops::nonzero_tuple(&t)))
            } else {
                ok(blocking("nonzero", || crate::ops::nonzero_all(&t)))
            }
        }),
        entry(Both, "masked_select", "mask: Tensor", T, |a| {
            let (t, m) = (a.tensor(0)?, a.tensor(1)?);
            ok(blocking("masked_select", || crate::ops::nonzero_masked_select(&t, &m)))
        }),
        entry(Both, "unique", "sorted: Bool = True, return_inverse: Bool = False, return_counts: Bool = False, dim: Int = None", MaybePair, unique),
    ]
}
