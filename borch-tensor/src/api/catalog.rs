//! Every tensor op a binding reaches, defined once: torch's name, where torch offers it, its
//! parameters with torch's defaults, and the call into the core. The elementwise ops come from the
//! op table itself; the rest are listed here.

use std::sync::OnceLock;

use crate::error::{BorchError, Result};
use crate::ops::{creation, join, random, table};
use crate::scalar::Operand;
use crate::tensor::Tensor;

use super::args::Args;
use super::signature::{Call, Entry, Form, Kind, Param, Returns, parse_params};
use super::value::Value;

/// Table ops reached through a torch argument of another op rather than by their own name, or
/// given a hand-written signature below.
const NOT_FROM_TABLE: &[&str] = &[
    "div",
    "div_floor",
    "div_trunc",
    "gelu",
    "gelu_tanh",
    "clamp",
    "where",
    "lerp",
    "addcmul",
    "addcdiv",
    "nan_to_num",
];

/// The catalog, built once.
pub fn entries() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let mut all = from_table();
        all.extend(listed());
        all.extend(super::windows::listed());
        all.extend(super::inplace::listed());
        all.extend(super::more::listed());
        all
    })
}

/// The entry torch offers as `x.name(…)` (`method`) or `torch.name(…)`.
pub fn find(name: &str, method: bool) -> Option<&'static Entry> {
    find_in(entries(), name, method)
}

/// The entry of `entries` torch offers as `x.name(…)` (`method`) or as a function.
pub fn find_in<'a>(entries: &'a [Entry], name: &str, method: bool) -> Option<&'a Entry> {
    entries.iter().find(|e| {
        e.name == name
            && if method {
                e.is_method()
            } else {
                e.is_function()
            }
    })
}

fn from_table() -> Vec<Entry> {
    table::ALL
        .iter()
        .filter(|op| op.arity <= 2 && !NOT_FROM_TABLE.contains(&op.name))
        .map(|&op| Entry {
            name: op.name,
            form: Form::Both,
            params: table_params(op),
            returns: Returns::Tensor,
            call: Call::Map(op),
        })
        .collect()
}

/// The parameters of a table op after `self`: `other` for a binary op, then its scalar
/// parameters with their defaults.
pub(super) fn table_params(op: &table::MapOp) -> Vec<Param> {
    let mut params = Vec::new();
    if op.arity == 2 {
        params.push(Param {
            name: "other",
            kind: Kind::Operand,
            default: super::signature::Default::Required,
            varargs: false,
        });
    }
    params.extend(op.params.iter().map(|&(name, d)| Param {
        name,
        kind: Kind::Float,
        default: super::signature::Default::Float(d),
        varargs: false,
    }));
    params
}

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

/// A factory's new tensor with torch's `requires_grad=` keyword applied.
fn factory(a: &Args, t: Result<Tensor>) -> Result<Value> {
    let t = t?;
    if let Some(Value::Bool(true)) = a.named("requires_grad") {
        if !t.dtype().is_float() {
            // torch's factory wording (capitalised, unlike `t.requires_grad = True`'s).
            return Err(crate::BorchError::Runtime(
                "Only Tensors of floating point and complex dtype can require gradients".into(),
            ));
        }
        t.set_requires_grad(true)?;
    }
    Ok(t.into())
}

/// `t` converted to `dtype=` when one is given.
fn cast(t: Result<Tensor>, dtype: Option<crate::DType>) -> Result<Tensor> {
    match dtype {
        Some(d) => t?.to_dtype(d),
        None => t,
    }
}

/// A `*_like` factory: `input`'s shape with `dtype=` or `input`'s dtype.
fn like(a: &Args, f: fn(&Tensor) -> Result<Tensor>) -> Result<Tensor> {
    let t = a.tensor(0)?;
    match a.dtype(1)? {
        Some(d) if d != t.dtype() => f(&creation::empty(t.shape(), d)?),
        _ => f(&t),
    }
}

/// torch's kernel message for a dtype its kernel lacks: `"arange_cpu" not implemented for 'Bool'`.
fn refuse_bool(dtype: Option<crate::DType>, kernel: &str) -> Result<()> {
    match dtype {
        Some(crate::DType::Bool) => Err(BorchError::NotImplemented(format!(
            "\"{kernel}\" not implemented for 'Bool'"
        ))),
        _ => Ok(()),
    }
}

/// Random float draws refuse integer and bool dtypes as torch's kernels do.
fn refuse_int(dtype: Option<crate::DType>, kernel: &str) -> Result<()> {
    match dtype {
        Some(d) if d != crate::DType::Float32 => Err(BorchError::NotImplemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            d.scalar_type_name()
        ))),
        _ => Ok(()),
    }
}

fn this(a: &Args, r: Result<()>) -> Result<Value> {
    r?;
    a.tensor(0).map(Value::Tensor)
}

fn dims_ref(d: &Option<Vec<isize>>) -> Option<&[isize]> {
    d.as_deref()
}

#[rustfmt::skip]
fn listed() -> Vec<Entry> {
    use Form::{Both, Function as Func, Method};
    use Returns::{Int, Ints, MaybePair, Pair, SelfInPlace, Tensors};
    use Returns::Tensor as T;
    vec![
        // elementwise with torch arguments that pick a table op
        entry(Both, "div", "other: Operand, rounding_mode: Str = None", T,
            |a| ok(a.tensor(0)?.div_mode(a.operand(1)?, a.opt_str(2)?))),
        entry(Both, "floor_divide", "other: Operand", T, |a| ok(a.tensor(0)?.floor_divide(a.operand(1)?))),
        entry(Both, "true_divide", "other: Operand", T, |a| ok(a.tensor(0)?.true_divide(a.operand(1)?))),
        entry(Both, "rsub", "other: Operand", T, |a| ok(a.tensor(0)?.rsub(a.operand(1)?))),
        entry(Both, "gelu", "approximate: Str = 'none'", T, |a| ok(a.tensor(0)?.gelu(a.str(1)?))),
        entry(Both, "clamp", "min: Operand = None, max: Operand = None", T,
            |a| ok(a.tensor(0)?.clamp(a.opt_operand(1)?, a.opt_operand(2)?))),
        entry(Both, "lerp", "end: Tensor, weight: Operand", T,
            |a| ok(a.tensor(0)?.lerp(&a.tensor(1)?, a.operand(2)?))),
        entry(Both, "addcmul", "tensor1: Tensor, tensor2: Tensor, value: Float = 1", T,
            |a| ok(a.tensor(0)?.addcmul(&a.tensor(1)?, &a.tensor(2)?, a.f64(3)?))),
        entry(Both, "addcdiv", "tensor1: Tensor, tensor2: Tensor, value: Float = 1", T,
            |a| ok(a.tensor(0)?.addcdiv(&a.tensor(1)?, &a.tensor(2)?, a.f64(3)?))),
        entry(Both, "nan_to_num", "nan: Float = 0.0, posinf: Float = None, neginf: Float = None", T,
            |a| ok(a.tensor(0)?.nan_to_num(a.opt_f64(1)?, a.opt_f64(2)?, a.opt_f64(3)?))),
        entry(Method, "where", "condition: Tensor, other: Operand", T,
            |a| ok(a.tensor(0)?.where_(&a.tensor(1)?, a.operand(2)?))),
        entry(Func, "where", "condition: Tensor, input: Operand, other: Operand", T,
            |a| ok(crate::where_cond(&a.tensor(0)?, a.operand(1)?, a.operand(2)?))),
        entry(Both, "masked_fill", "mask: Tensor, value: Operand", T,
            |a| ok(a.tensor(0)?.masked_fill(&a.tensor(1)?, a.operand(2)?))),
        // dtype, copies, in place
        entry(Method, "to", "dtype: DType", T, |a| match a.dtype(1)? {
            Some(d) => ok(a.tensor(0)?.to(d)),
            None => Err(BorchError::Type("to() received an invalid combination of arguments - got (NoneType)".into())),
        }),
        entry(Method, "float", "", T, |a| ok(a.tensor(0)?.float())),
        entry(Method, "long", "", T, |a| ok(a.tensor(0)?.long())),
        entry(Method, "bool", "", T, |a| ok(a.tensor(0)?.bool())),
        entry(Both, "clone", "", T, |a| ok(a.tensor(0)?.deep_clone())),
        entry(Method, "contiguous", "", T, |a| ok(a.tensor(0)?.contiguous())),
        entry(Method, "detach", "", T, |a| ok(Ok(a.tensor(0)?.detach()))),
        entry(Method, "requires_grad_", "requires_grad: Bool = True", SelfInPlace,
            |a| ok(a.tensor(0)?.set_requires_grad(a.bool(1)?).cloned())),
        entry(Method, "retain_grad", "", SelfInPlace, |a| this(a, a.tensor(0)?.retain_grad())),
        entry(Method, "copy_", "src: Tensor", SelfInPlace, |a| this(a, a.tensor(0)?.copy_(&a.tensor(1)?))),
        entry(Method, "fill_", "value: Scalar", SelfInPlace, |a| this(a, a.tensor(0)?.fill_(a.scalar(1)?))),
        entry(Method, "zero_", "", SelfInPlace, |a| this(a, a.tensor(0)?.zero_())),
        entry(Method, "uniform_", "from: Float = 0, to: Float = 1", SelfInPlace,
            |a| this(a, a.tensor(0)?.uniform_(a.f64(1)?, a.f64(2)?, None))),
        entry(Method, "normal_", "mean: Float = 0, std: Float = 1", SelfInPlace,
            |a| this(a, a.tensor(0)?.normal_(a.f64(1)?, a.f64(2)?, None))),
        entry(Method, "random_", "from: Int, to: Int", SelfInPlace,
            |a| this(a, a.tensor(0)?.random_(a.i64(1)?, a.i64(2)?, None))),
        entry(Method, "bernoulli_", "p: Float = 0.5", SelfInPlace,
            |a| this(a, a.tensor(0)?.bernoulli_(a.f64(1)?, None))),
        // sizes
        entry(Method, "size", "dim: Int = None", Ints, |a| match a.opt_int(1)? {
            None => Ok(Value::List(a.tensor(0)?.size().into_iter().map(|s| Value::Int(s as i64)).collect())),
            Some(d) => Ok(Value::Int(a.tensor(0)?.size_at(d)? as i64)),
        }),
        entry(Method, "dim", "", Int, |a| Ok(Value::Int(a.tensor(0)?.dim() as i64))),
        entry(Both, "numel", "", Int, |a| Ok(Value::Int(a.tensor(0)?.numel() as i64))),
        // reductions
        entry(Both, "sum", "dim: Dims = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.sum(dims_ref(&a.dims(1)?), a.bool(2)?))),
        entry(Both, "mean", "dim: Dims = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.mean(dims_ref(&a.dims(1)?), a.bool(2)?))),
        entry(Both, "prod", "dim: Int = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.prod(a.opt_int(1)?, a.bool(2)?))),
        entry(Both, "amax", "dim: Dims = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.amax(dims_ref(&a.dims(1)?), a.bool(2)?))),
        entry(Both, "amin", "dim: Dims = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.amin(dims_ref(&a.dims(1)?), a.bool(2)?))),
        entry(Both, "all", "dim: Dims = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.all(dims_ref(&a.dims(1)?), a.bool(2)?))),
        entry(Both, "any", "dim: Dims = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.any(dims_ref(&a.dims(1)?), a.bool(2)?))),
        entry(Both, "max", "dim: Int = None, keepdim: Bool = False", MaybePair, |a| match a.opt_int(1)? {
            None => ok(a.tensor(0)?.max()),
            Some(d) => ok(a.tensor(0)?.max_dim(d, a.bool(2)?)),
        }),
        entry(Both, "min", "dim: Int = None, keepdim: Bool = False", MaybePair, |a| match a.opt_int(1)? {
            None => ok(a.tensor(0)?.min()),
            Some(d) => ok(a.tensor(0)?.min_dim(d, a.bool(2)?)),
        }),
        entry(Both, "argmax", "dim: Int = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.argmax(a.opt_int(1)?, a.bool(2)?))),
        entry(Both, "argmin", "dim: Int = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.argmin(a.opt_int(1)?, a.bool(2)?))),
        entry(Both, "logsumexp", "dim: Dims, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.logsumexp(&a.ints(1)?, a.bool(2)?))),
        entry(Both, "norm", "p: Float = 2, dim: Dims = None, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.norm(a.f64(1)?, dims_ref(&a.dims(2)?), a.bool(3)?))),
        entry(Both, "var", "dim: Dims = None, correction: Float = 1, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.var(dims_ref(&a.dims(1)?), a.f64(2)?, a.bool(3)?))),
        entry(Both, "std", "dim: Dims = None, correction: Float = 1, keepdim: Bool = False", T,
            |a| ok(a.tensor(0)?.std(dims_ref(&a.dims(1)?), a.f64(2)?, a.bool(3)?))),
        entry(Both, "softmax", "dim: Int", T, |a| ok(a.tensor(0)?.softmax(a.int(1)?))),
        entry(Both, "log_softmax", "dim: Int", T, |a| ok(a.tensor(0)?.log_softmax(a.int(1)?))),
        entry(Both, "cumsum", "dim: Int", T, |a| ok(a.tensor(0)?.cumsum(a.int(1)?))),
        entry(Both, "cumprod", "dim: Int", T, |a| ok(a.tensor(0)?.cumprod(a.int(1)?))),
        // matmul family
        entry(Both, "matmul", "other: Tensor", T, |a| ok(a.tensor(0)?.matmul(&a.tensor(1)?))),
        entry(Both, "mm", "mat2: Tensor", T, |a| ok(a.tensor(0)?.mm(&a.tensor(1)?))),
        entry(Both, "bmm", "mat2: Tensor", T, |a| ok(a.tensor(0)?.bmm(&a.tensor(1)?))),
        entry(Both, "mv", "vec: Tensor", T, |a| ok(a.tensor(0)?.mv(&a.tensor(1)?))),
        entry(Both, "dot", "tensor: Tensor", T, |a| ok(a.tensor(0)?.dot(&a.tensor(1)?))),
        entry(Both, "outer", "vec2: Tensor", T, |a| ok(a.tensor(0)?.outer(&a.tensor(1)?))),
        entry(Both, "addmm", "mat1: Tensor, mat2: Tensor, beta: Float = 1, alpha: Float = 1", T,
            |a| ok(a.tensor(0)?.addmm(&a.tensor(1)?, &a.tensor(2)?, a.f64(3)?, a.f64(4)?))),
        // views
        entry(Method, "view", "*shape: Ints", T, |a| ok(a.tensor(0)?.view(&a.ints(1)?))),
        entry(Both, "reshape", "*shape: Ints", T, |a| ok(a.tensor(0)?.reshape(&a.ints(1)?))),
        entry(Both, "permute", "*dims: Ints", T, |a| ok(a.tensor(0)?.permute(&a.ints(1)?))),
        entry(Both, "transpose", "dim0: Int, dim1: Int", T,
            |a| ok(a.tensor(0)?.transpose(a.int(1)?, a.int(2)?))),
        entry(Both, "t", "", T, |a| ok(a.tensor(0)?.t())),
        entry(Method, "mT", "", T, |a| ok(a.tensor(0)?.mt())),
        entry(Method, "expand", "*sizes: Ints", T, |a| ok(a.tensor(0)?.expand(&a.ints(1)?))),
        entry(Method, "expand_as", "other: Tensor", T, |a| ok(a.tensor(0)?.expand_as(&a.tensor(1)?))),
        entry(Both, "broadcast_to", "size: Ints", T, |a| ok(a.tensor(0)?.expand(&a.ints(1)?))),
        entry(Both, "squeeze", "dim: Dims = None", T, |a| match a.dims(1)? {
            None => ok(a.tensor(0)?.squeeze()),
            Some(d) => ok(a.tensor(0)?.squeeze_dims(&d)),
        }),
        entry(Both, "unsqueeze", "dim: Int", T, |a| ok(a.tensor(0)?.unsqueeze(a.int(1)?))),
        entry(Both, "narrow", "dim: Int, start: Int, length: Int", T,
            |a| ok(a.tensor(0)?.narrow(a.int(1)?, a.int(2)?, a.usize(3)?))),
        entry(Both, "select", "dim: Int, index: Int", T, |a| ok(a.tensor(0)?.select(a.int(1)?, a.int(2)?))),
        entry(Method, "slice", "dim: Int = 0, start: Int = None, end: Int = None, step: Int = 1", T,
            |a| ok(a.tensor(0)?.slice(a.int(1)?, a.opt_int(2)?, a.opt_int(3)?, a.int(4)?))),
        entry(Both, "flatten", "start_dim: Int = 0, end_dim: Int = -1", T,
            |a| ok(a.tensor(0)?.flatten(a.int(1)?, a.int(2)?))),
        entry(Both, "unflatten", "dim: Int, sizes: Ints", T,
            |a| ok(a.tensor(0)?.unflatten(a.int(1)?, &a.ints(2)?))),
        // rearranging and joining
        entry(Both, "flip", "dims: Ints", T, |a| ok(a.tensor(0)?.flip(&a.ints(1)?))),
        entry(Both, "roll", "shifts: Ints, dims: Ints = None", T, |a| {
            let dims = a.dims(2)?.unwrap_or_default();
            ok(a.tensor(0)?.roll(&a.ints(1)?, &dims))
        }),
        entry(Method, "repeat", "*repeats: Ints", T, |a| ok(a.tensor(0)?.repeat(&a.sizes(1)?))),
        entry(Both, "tile", "dims: Ints", T, |a| ok(a.tensor(0)?.tile(&a.sizes(1)?))),
        entry(Func, "cat", "tensors: Tensors, dim: Int = 0", T, |a| ok(join::cat(&a.tensors(0)?, a.int(1)?))),
        entry(Func, "stack", "tensors: Tensors, dim: Int = 0", T, |a| ok(join::stack(&a.tensors(0)?, a.int(1)?))),
        entry(Both, "split", "split_size_or_sections: Dims, dim: Int = 0", Tensors, |a| match a.get(1) {
            Value::List(_) => ok(a.tensor(0)?.split_with_sizes(&a.sizes(1)?, a.int(2)?)),
            _ => ok(a.tensor(0)?.split(a.usize(1)?, a.int(2)?)),
        }),
        entry(Both, "chunk", "chunks: Int, dim: Int = 0", Tensors, |a| ok(a.tensor(0)?.chunk(a.usize(1)?, a.int(2)?))),
        entry(Both, "unbind", "dim: Int = 0", Tensors, |a| ok(a.tensor(0)?.unbind(a.int(1)?))),
        // indexing
        entry(Method, "index", "indices: Indices", T,
            |a| ok(crate::ops::indexing::index(&a.tensor(0)?, &indices(a, 1)?))),
        // `index` awaiting a boolean mask's read (t[mask]): the form a browser can run.
        super::signature::async_entry(Method, "index_async", "indices: Indices", T, index_async),
        entry(Both, "gather", "dim: Int, index: Tensor", T, |a| ok(a.tensor(0)?.gather(a.int(1)?, &a.tensor(2)?))),
        entry(Both, "index_select", "dim: Int, index: Tensor", T,
            |a| ok(a.tensor(0)?.index_select(a.int(1)?, &a.tensor(2)?))),
        entry(Both, "take", "index: Tensor", T, |a| ok(a.tensor(0)?.take(&a.tensor(1)?))),
        entry(Both, "scatter", "dim: Int, index: Tensor, src: Operand", T,
            |a| ok(a.tensor(0)?.scatter(a.int(1)?, &a.tensor(2)?, a.operand(3)?))),
        entry(Both, "scatter_add", "dim: Int, index: Tensor, src: Tensor", T,
            |a| ok(a.tensor(0)?.scatter_add(a.int(1)?, &a.tensor(2)?, &a.tensor(3)?))),
        entry(Both, "index_add", "dim: Int, index: Tensor, source: Tensor, alpha: Float = 1", T,
            |a| ok(a.tensor(0)?.index_add(a.int(1)?, &a.tensor(2)?, &a.tensor(3)?, a.f64(4)?))),
        entry(Both, "tril", "diagonal: Int = 0", T, |a| ok(a.tensor(0)?.tril(a.int(1)?))),
        entry(Both, "triu", "diagonal: Int = 0", T, |a| ok(a.tensor(0)?.triu(a.int(1)?))),
        entry(Both, "one_hot", "num_classes: Int = -1", T, |a| match a.int(1)? {
            -1 => one_hot_infer(&a.tensor(0)?),
            // torch's CPU check: a negative num_classes is below every class.
            n if n < 0 => Err(BorchError::Runtime(
                "Class values must be smaller than num_classes.".into(),
            )),
            n => ok(a.tensor(0)?.one_hot(n as usize)),
        }),
        entry(Both, "sort", "dim: Int = -1, descending: Bool = False, stable: Bool = False", Pair,
            |a| ok(a.tensor(0)?.sort(a.int(1)?, a.bool(2)?, a.bool(3)?))),
        entry(Both, "argsort", "dim: Int = -1, descending: Bool = False, stable: Bool = False", T,
            |a| ok(a.tensor(0)?.argsort(a.int(1)?, a.bool(2)?, a.bool(3)?))),
        entry(Both, "topk", "k: Int, dim: Int = -1, largest: Bool = True, sorted: Bool = True", Pair,
            |a| ok(a.tensor(0)?.topk(a.usize(1)?, a.int(2)?, a.bool(3)?, a.bool(4)?))),
        // creation
        entry(Func, "tensor", "data: Data, dtype: DType = None, requires_grad: Bool = False", T,
            |a| factory(a, super::data::tensor(a.get(0), a.dtype(1)?))),
        entry(Func, "zeros", "*size: Ints, dtype: DType = None, requires_grad: Bool = False", T,
            |a| factory(a, creation::zeros(&a.sizes(0)?, a.dtype(1)?.unwrap_or(crate::DType::Float32)))),
        entry(Func, "ones", "*size: Ints, dtype: DType = None, requires_grad: Bool = False", T,
            |a| factory(a, creation::ones(&a.sizes(0)?, a.dtype(1)?.unwrap_or(crate::DType::Float32)))),
        entry(Func, "empty", "*size: Ints, dtype: DType = None, requires_grad: Bool = False", T,
            |a| factory(a, creation::empty(&a.sizes(0)?, a.dtype(1)?.unwrap_or(crate::DType::Float32)))),
        entry(Func, "full", "size: Ints, fill_value: Scalar, dtype: DType = None, requires_grad: Bool = False", T,
            |a| factory(a, creation::full(&a.sizes(0)?, a.scalar(1)?, a.dtype(2)?))),
        entry(Func, "arange", "start: Scalar, end: Scalar = None, step: Scalar = 1, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            refuse_bool(a.dtype(3)?, "arange_cpu")?;
            let (start, end, step) = match a.get(1) {
                Value::None => (crate::Scalar::Int(0), a.scalar(0)?, crate::Scalar::Int(1)),
                _ => (a.scalar(0)?, a.scalar(1)?, a.scalar(2)?),
            };
            match a.dtype(3)? {
                // torch counts the elements in double, then steps in int64 from the truncated
                // start by the truncated step.
                Some(crate::DType::Int64) => {
                    let n = creation::arange(start.to_f64(), end.to_f64(), step.to_f64())?.numel() as i64;
                    let (s0, st) = (start.to_f64() as i64, step.to_f64() as i64);
                    factory(a, creation::arange(0, n, 1).and_then(|i| i.mul(st)?.add(s0)))
                }
                d => factory(a, cast(creation::arange(start, end, step), d)),
            }
        }),
        entry(Func, "linspace", "start: Float, end: Float, steps: Int, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            refuse_bool(a.dtype(3)?, "linspace_cpu")?;
            factory(a, cast(creation::linspace(a.f64(0)?, a.f64(1)?, a.usize(2)?), a.dtype(3)?))
        }),
        entry(Func, "eye", "n: Int, m: Int = None, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            let m = a.opt_int(1)?.map(|_| a.usize(1)).transpose()?;
            factory(a, cast(creation::eye(a.usize(0)?, m), a.dtype(2)?))
        }),
        entry(Func, "zeros_like", "input: Tensor, dtype: DType = None, requires_grad: Bool = False", T,
            |a| factory(a, like(a, |t| t.zeros_like()))),
        entry(Func, "ones_like", "input: Tensor, dtype: DType = None, requires_grad: Bool = False", T,
            |a| factory(a, like(a, |t| t.ones_like()))),
        entry(Func, "empty_like", "input: Tensor, dtype: DType = None, requires_grad: Bool = False", T,
            |a| factory(a, like(a, |t| t.empty_like()))),
        entry(Func, "full_like", "input: Tensor, fill_value: Scalar, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            let t = a.tensor(0)?;
            let d = a.dtype(2)?.unwrap_or(t.dtype());
            factory(a, creation::full(t.shape(), a.scalar(1)?, Some(d)))
        }),
        entry(Func, "rand", "*size: Ints, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            refuse_int(a.dtype(1)?, "check_uniform_bounds")?;
            factory(a, random::rand(&a.sizes(0)?, None))
        }),
        entry(Func, "randn", "*size: Ints, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            refuse_int(a.dtype(1)?, "normal_kernel_cpu")?;
            factory(a, random::randn(&a.sizes(0)?, None))
        }),
        entry(Func, "randint", "low: Int, high: Int, size: Ints, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            let (low, high) = (a.i64(0)?, a.i64(1)?);
            if a.dtype(3)? == Some(crate::DType::Bool) {
                if !(0..=1).contains(&low) {
                    return Err(BorchError::Runtime("from is out of bounds for bool".into()));
                }
                if !(0..=1).contains(&(high - 1)) {
                    return Err(BorchError::Runtime("to - 1 is out of bounds for bool".into()));
                }
            }
            factory(a, cast(random::randint(low, high, &a.sizes(2)?, None), a.dtype(3)?))
        }),
        entry(Func, "randperm", "n: Int, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            refuse_bool(a.dtype(1)?, "randperm")?;
            factory(a, cast(random::randperm(a.usize(0)?, None), a.dtype(1)?))
        }),
        entry(Func, "normal", "mean: Float, std: Float, size: Ints, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            refuse_int(a.dtype(3)?, "normal_kernel_cpu")?;
            factory(a, random::normal(a.f64(0)?, a.f64(1)?, &a.sizes(2)?, None))
        }),
        entry(Func, "rand_like", "input: Tensor, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            let t = a.tensor(0)?;
            let d = a.dtype(1)?.unwrap_or(t.dtype());
            refuse_int(Some(d), "check_uniform_bounds")?;
            factory(a, creation::empty(t.shape(), d)?.rand_like(None))
        }),
        entry(Func, "randn_like", "input: Tensor, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            let t = a.tensor(0)?;
            let d = a.dtype(1)?.unwrap_or(t.dtype());
            refuse_int(Some(d), "normal_kernel_cpu")?;
            factory(a, creation::empty(t.shape(), d)?.randn_like(None))
        }),
        entry(Func, "randint_like", "input: Tensor, low: Int, high: Int, dtype: DType = None, requires_grad: Bool = False", T, |a| {
            let t = a.tensor(0)?;
            let d = a.dtype(3)?.unwrap_or(t.dtype());
            factory(a, creation::empty(t.shape(), d)?.randint_like(a.i64(1)?, a.i64(2)?, None))
        }),
    ]
}

/// An index or slice bound as `isize`, saturating where `isize` is 32 bits (wasm32): no dim is
/// that large, so a saturated bound selects and slices as the exact one would.
fn saturate(n: i64) -> isize {
    n.clamp(isize::MIN as i64, isize::MAX as i64) as isize
}

/// The items of a subscript (`t[1:, None, ..., 0]`), encoded by the binding as a list: an int
/// (select), None (a new dim), the string "..." (ellipsis), a list `[start, stop, step]` whose
/// entries may be None (a slice), or a Tensor (an index tensor or a boolean mask).
pub(super) fn indices(a: &Args, i: usize) -> Result<Vec<crate::ops::indexing::Index>> {
    use crate::ops::indexing::Index;
    let item = |v: &Value| -> Result<Index> {
        let opt = |v: Option<&Value>| match v {
            None | Some(Value::None) => Ok(None),
            Some(Value::Int(n)) => Ok(Some(saturate(*n))),
            Some(other) => Err(BorchError::Type(format!(
                "slice indices must be integers or None, not {}",
                other.type_name()
            ))),
        };
        match v {
            Value::Int(n) => Ok(Index::Select(saturate(*n))),
            Value::None => Ok(Index::NewAxis),
            Value::Str(s) if s == "..." => Ok(Index::Ellipsis),
            Value::List(p) if p.len() == 3 => Ok(Index::Slice(
                opt(p.first())?,
                opt(p.get(1))?,
                opt(p.get(2))?,
            )),
            Value::Tensor(t) => Ok(Index::Tensor(t.clone())),
            other => Err(BorchError::Index(format!(
                "only integers, slices (`:`), ellipsis (`...`), None and long or boolean tensors \
                 are valid indices (got {})",
                other.type_name()
            ))),
        }
    };
    match a.get(i) {
        Value::List(items) => items.iter().map(item).collect(),
        other => Ok(vec![item(other)?]),
    }
}

fn index_async(a: &Args) -> Result<super::signature::Pending> {
    let (t, items) = (a.tensor(0)?, indices(a, 1)?);
    Ok(Box::pin(async move {
        ok(crate::ops::indexing::index_async(&t, &items).await)
    }))
}

/// `one_hot` without `num_classes` reads the largest index back, which a browser cannot do
/// inside a synchronous call.
fn one_hot_infer(t: &Tensor) -> Result<Value> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        ok(t.one_hot_infer_blocking())
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = t;
        Err(BorchError::NotImplemented(
            "one_hot without num_classes reads the tensor back, which borch cannot do \
             synchronously in a browser: pass num_classes"
                .into(),
        ))
    }
}

/// Run table op `op` on bound arguments: operands first, then its scalar parameters.
pub(super) fn run_map(op: &'static table::MapOp, a: &Args) -> Result<Value> {
    let operands = (0..op.arity)
        .map(|i| a.operand(i))
        .collect::<Result<Vec<Operand>>>()?;
    let params = (op.arity..op.arity + op.params.len())
        .map(|i| a.f64(i))
        .collect::<Result<Vec<f64>>>()?;
    ok(crate::ops::elementwise::apply(op, &operands, &params))
}
