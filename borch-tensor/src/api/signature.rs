//! Signatures: each op's torch name, its parameters in torch's order with torch's defaults, and
//! what it returns. Bindings generate their methods and keyword handling from these.

use crate::error::Result;
use crate::ops::table::MapOp;

use super::args::Args;
use super::value::Value;

/// What a parameter accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A tensor.
    Tensor,
    /// A tensor or a number (`other` of a binary op).
    Operand,
    /// A number or bool.
    Scalar,
    /// A Python float (an int is taken too).
    Float,
    /// A Python int.
    Int,
    /// A Python bool.
    Bool,
    /// A Python str.
    Str,
    /// An element type name: "float32", "int64", "bool".
    DType,
    /// A dim, a list of dims, or None for every dim.
    Dims,
    /// A list of ints (a shape, a list of dims). Python also takes them as varargs.
    Ints,
    /// A convolution's `padding`: an int, a list of ints, or `'valid'` / `'same'`.
    Padding,
    /// Sizes whose items may be None (adaptive pooling's `output_size`: None keeps the input's).
    SizesOrNone,
    /// A list of tensors.
    Tensors,
    /// A list of Python subscript items (`t[...]`): int, None, "...", [start, stop, step], Tensor.
    Indices,
    /// `tensor()`'s data: a number or boolean, or nested lists of them.
    Data,
    /// `(key, tensor)` pairs (`nn.ParameterDict`'s iterable form): a list of `[str, Tensor]`.
    NamedTensors,
    /// A list of Python strs (`apply_lora`'s `target_modules`).
    Strs,
}

/// A parameter's default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Default {
    /// No default: the argument must be given.
    Required,
    /// `= None`.
    None,
    /// `= True` / `= False`.
    Bool(bool),
    /// An int default.
    Int(i64),
    /// A float default.
    Float(f64),
    /// A string default.
    Str(&'static str),
    /// A number that may also be passed as None, which then means something else (BatchNorm's
    /// `momentum: float | None = 0.1`), written `= 0.1 | None`: an explicit None is kept.
    FloatOrNone(f64),
    /// No default, but None is a value (torch's `Optional[Tensor]` without a default:
    /// `fuse_conv_bn_weights(conv_w, conv_b, …)`'s `conv_b`), written `conv_b: Tensor | None`.
    RequiredOrNone,
}

impl Default {
    /// The default as a value, or `None` when the argument is required.
    pub fn value(self) -> Option<Value> {
        Some(match self {
            Default::Required | Default::RequiredOrNone => return None,
            Default::None => Value::None,
            Default::Bool(b) => Value::Bool(b),
            Default::Int(i) => Value::Int(i),
            Default::Float(f) | Default::FloatOrNone(f) => Value::Float(f),
            Default::Str(s) => Value::Str(s.to_string()),
        })
    }
}

/// One parameter of a signature.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Param {
    /// torch's name.
    pub name: &'static str,
    /// What it accepts.
    pub kind: Kind,
    /// Its default.
    pub default: Default,
    /// Python's `*size`: a run of ints given one by one is taken as the list (`view(2, 3)`).
    pub varargs: bool,
}

/// What an op returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returns {
    /// A tensor.
    Tensor,
    /// A list of tensors (split, unbind).
    Tensors,
    /// torch's (values, indices) pair.
    Pair,
    /// A tensor, or (values, indices) when a dim is given (max, min).
    MaybePair,
    /// A tensor, or a list of tensors when a flag asks for more (`nonzero(as_tuple=True)`,
    /// `unique(return_counts=True)`).
    MaybeTensors,
    /// The tensor itself, modified in place.
    SelfInPlace,
    /// A Python int (`dim()`, `numel()`).
    Int,
    /// A list of ints (`size()`, `stride()`).
    Ints,
    /// A Python bool (`is_contiguous()`, `equal`).
    Bool,
    /// Python's `None` (`torch.autograd.backward`).
    Nothing,
}

/// How an op runs.
#[derive(Clone, Copy)]
pub enum Call {
    /// An elementwise op of the table, operands first, then its scalar parameters.
    Map(&'static MapOp),
    /// The op's in-place form (`add_`): `self` is written and returned.
    MapInPlace(&'static MapOp),
    /// A function of the bound arguments.
    Fn(fn(&Args) -> Result<Value>),
    /// An op that reads values back before it can size its result (`nonzero`, `unique`, …):
    /// a future. `api::call` blocks on it on native targets; in a browser only `api::call_async`
    /// runs it (bindings offer it as an async method).
    Async(AsyncBody),
}

/// The body of an async entry: its bound arguments in (read at once: a wrong one is an error of
/// the call), the pending result out.
pub type AsyncBody = fn(&Args) -> Result<Pending>;

/// The result of an op, to await.
pub type Pending = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value>>>>;

/// Where torch offers the op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `x.op(…)` only.
    Method,
    /// `torch.op(…)` only.
    Function,
    /// Both, with `input` first in the function form.
    Both,
}

/// One op of the catalog.
#[derive(Clone)]
pub struct Entry {
    /// torch's name (snake_case).
    pub name: &'static str,
    /// Method, function or both.
    pub form: Form,
    /// Parameters after `self` for methods; all parameters for functions.
    pub params: Vec<Param>,
    /// What it returns.
    pub returns: Returns,
    /// How it runs.
    pub call: Call,
}

impl Entry {
    /// Whether torch offers it as a method.
    pub fn is_method(&self) -> bool {
        self.form != Form::Function
    }

    /// Whether torch offers it as a function.
    pub fn is_function(&self) -> bool {
        self.form != Form::Method
    }

    /// The op reads values back before it can size its result: bindings offer it as an async
    /// method (a JavaScript `Promise`).
    pub fn is_async(&self) -> bool {
        matches!(self.call, Call::Async(_))
    }
}

/// A data-dependent op's entry (`Call::Async`), parameters written as `parse_params` reads them.
pub(super) fn async_entry(
    form: Form,
    name: &'static str,
    params: &str,
    returns: Returns,
    body: AsyncBody,
) -> Entry {
    Entry {
        name,
        form,
        params: parse_params(params),
        returns,
        call: Call::Async(body),
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .field("form", &self.form)
            .field("params", &self.params)
            .field("returns", &self.returns)
            .finish()
    }
}

/// Parameters written as Python writes a signature: `"dim: Dims = None, keepdim: Bool = False"`,
/// `"*size: Ints"` for varargs, `"bias: Tensor | None"` for a required parameter None may fill.
/// A malformed string is a bug in the catalog, caught by its tests.
pub fn parse_params(text: &str) -> Vec<Param> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (head, default) = match p.split_once('=') {
                Some((h, d)) => (h.trim(), parse_default(d.trim())),
                None => (p, Default::Required),
            };
            let (name, kind) = head.split_once(':').expect("parameter without a kind");
            let name = name.trim();
            let (kind, default) = match kind.trim().strip_suffix("| None") {
                Some(k) if default == Default::Required => (k.trim(), Default::RequiredOrNone),
                _ => (kind.trim(), default),
            };
            Param {
                name: leak(name.trim_start_matches('*')),
                kind: parse_kind(kind),
                default,
                varargs: name.starts_with('*'),
            }
        })
        .collect()
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn parse_kind(kind: &str) -> Kind {
    match kind {
        "Tensor" => Kind::Tensor,
        "Operand" => Kind::Operand,
        "Scalar" => Kind::Scalar,
        "Float" => Kind::Float,
        "Int" => Kind::Int,
        "Bool" => Kind::Bool,
        "Str" => Kind::Str,
        "DType" => Kind::DType,
        "Dims" => Kind::Dims,
        "Ints" => Kind::Ints,
        "Padding" => Kind::Padding,
        "SizesOrNone" => Kind::SizesOrNone,
        "Tensors" => Kind::Tensors,
        "Indices" => Kind::Indices,
        "Data" => Kind::Data,
        "NamedTensors" => Kind::NamedTensors,
        "Strs" => Kind::Strs,
        other => panic!("unknown parameter kind {other}"),
    }
}

fn parse_default(d: &str) -> Default {
    match d {
        "None" => Default::None,
        "True" => Default::Bool(true),
        "False" => Default::Bool(false),
        _ if d.starts_with('\'') => Default::Str(leak(d.trim_matches('\''))),
        _ if d.ends_with("| None") => Default::FloatOrNone(
            d.trim_end_matches("| None")
                .trim()
                .parse()
                .expect("bad default"),
        ),
        _ => match d.parse::<i64>() {
            Ok(i) => Default::Int(i),
            Err(_) => Default::Float(d.parse().expect("bad default")),
        },
    }
}
