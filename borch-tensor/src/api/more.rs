//! Catalog entries of the products, norms, order statistics, sequence ops and data-dependent ops
//! (`torch.linalg.*` under flat `linalg_*` names). Data-dependent ops (their result's shape
//! depends on the values) are async entries: `api::call` blocks on them natively, bindings that
//! can await offer them as async methods (a Promise in borch-ts).

use crate::error::{BorchError, Result};
use crate::ops::linalg::MatrixOrd;
use crate::ops::{einsum, sequence};
use crate::tensor::Tensor;

use super::args::Args;
use super::signature::{
    Call, Entry, Form, Pending, Returns, async_entry as entry_async, parse_params,
};
use super::value::Value;

type Body = fn(&Args) -> Result<Value>;

const REPEAT_INTERLEAVE: &str = "repeats: Operand = None, dim: Int = None, output_size: Int = None";

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

fn unique(a: &Args) -> Result<Pending> {
    if !a.get(4).is_none() {
        return Err(BorchError::NotImplemented(
            "unique(dim=...): borch computes unique over every element only (dim=None)".into(),
        ));
    }
    let (t, inverse, counts) = (a.tensor(0)?, a.bool(2)?, a.bool(3)?);
    Ok(Box::pin(async move {
        let (u, i, c) = t.unique(inverse, counts).await?;
        if i.is_none() && c.is_none() {
            return Ok(Value::Tensor(u));
        }
        let mut out = vec![Value::Tensor(u)];
        out.extend(i.map(Value::Tensor));
        out.extend(c.map(Value::Tensor));
        Ok(Value::List(out))
    }))
}

/// `repeat_interleave`: an int repeats is computed at once; a repeats tensor (or the tensor
/// alone, as `torch.repeat_interleave(repeats)`) is read back to size the result, which blocks
/// natively and is refused in a browser, naming `repeat_interleave_async`.
fn repeat_interleave(a: &Args) -> Result<Value> {
    match a.get(1) {
        Value::Tensor(_) | Value::None => super::block_on(
            "repeat_interleave with a repeats tensor (its async form: repeat_interleave_async, \
             borch-ts's repeatInterleaveAsync)",
            repeat_interleave_async(a)?,
        ),
        _ => ok(a.tensor(0)?.repeat_interleave(a.i64(1)?, a.opt_int(2)?)),
    }
}

/// `repeat_interleave_async`: `repeat_interleave` whose result is awaited (a repeats tensor is
/// read back to size the result).
fn repeat_interleave_async(a: &Args) -> Result<Pending> {
    let t = a.tensor(0)?;
    let dim = a.opt_int(2)?;
    let (input, repeats, dim) = match a.get(1) {
        Value::Tensor(r) => (t, r.clone(), dim),
        // torch.repeat_interleave(repeats): the repeats tensor is the input.
        Value::None => (
            crate::ops::creation::arange(0, t.numel() as i64, 1)?,
            t,
            None,
        ),
        _ => {
            let out = t.repeat_interleave(a.i64(1)?, dim);
            return Ok(Box::pin(std::future::ready(ok(out))));
        }
    };
    Ok(Box::pin(async move {
        ok(input.repeat_interleave_tensor(&repeats, dim).await)
    }))
}

fn nonzero(a: &Args) -> Result<Pending> {
    let (t, as_tuple) = (a.tensor(0)?, a.bool(1)?);
    Ok(Box::pin(async move {
        if as_tuple {
            ok(t.nonzero_tuple().await)
        } else {
            ok(t.nonzero().await)
        }
    }))
}

fn masked_select(a: &Args) -> Result<Pending> {
    let (t, mask) = (a.tensor(0)?, a.tensor(1)?);
    Ok(Box::pin(async move { ok(t.masked_select(&mask).await) }))
}

#[rustfmt::skip]
pub(super) fn listed() -> Vec<Entry> {
    use Form::{Both, Function as Func};
    use Returns::{MaybePair, MaybeTensors, Pair, Tensor as T};
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
        // data-dependent shapes: async entries
        entry(Both, "repeat_interleave", REPEAT_INTERLEAVE, T, repeat_interleave),
        entry_async(Both, "repeat_interleave_async", REPEAT_INTERLEAVE, T, repeat_interleave_async),
        entry_async(Both, "nonzero", "as_tuple: Bool = False", MaybeTensors, nonzero),
        entry_async(Both, "masked_select", "mask: Tensor", T, masked_select),
        entry_async(Both, "unique", "sorted: Bool = True, return_inverse: Bool = False, return_counts: Bool = False, dim: Int = None", MaybeTensors, unique),
    ]
}
