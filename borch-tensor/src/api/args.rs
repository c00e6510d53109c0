//! Bound arguments: positional and keyword values matched to a signature, with torch's defaults
//! filled in, and typed accessors that fail with torch's and Python's wording.

use crate::dtype::DType;
use crate::error::{BorchError, Result};
use crate::scalar::{Operand, Scalar};
use crate::size::MAX_NUMEL;
use crate::tensor::Tensor;

use super::signature::{Default, Entry, Kind, Param};
use super::value::Value;

/// An op's arguments after binding; index 0 is `self` for methods.
pub struct Args<'a> {
    entry: &'a Entry,
    values: Vec<Value>,
    /// Which values were given as keyword arguments (torch's messages give those no position);
    /// empty when none was.
    keywords: Vec<bool>,
    /// Called as a method (`x.add(y)`: positions count after `self`) rather than as a function.
    method_call: bool,
}

fn type_err<T>(msg: String) -> Result<T> {
    Err(BorchError::Type(msg))
}

const SELF: Param = Param {
    name: "self",
    kind: Kind::Tensor,
    default: Default::Required,
    varargs: false,
};

/// Parameter `i` of `entry` as bound: `self` first for methods.
fn param(entry: &Entry, i: usize) -> &Param {
    match (entry.is_method(), i) {
        (true, 0) => &SELF,
        (true, i) => &entry.params[i - 1],
        (false, i) => &entry.params[i],
    }
}

/// How many values a bound call of `entry` has.
fn param_count(entry: &Entry) -> usize {
    entry.params.len() + usize::from(entry.is_method())
}

/// Python's `*size`: a run of two or more ints at a varargs parameter becomes one list.
fn gather_varargs(entry: &Entry, mut positional: Vec<Value>) -> Vec<Value> {
    let Some(k) = (0..param_count(entry)).position(|i| param(entry, i).varargs) else {
        return positional;
    };
    // `*operands: Tensors` (einsum): a run of one or more tensors becomes the list.
    let tensors = param(entry, k).kind == Kind::Tensors;
    let run = positional
        .iter()
        .skip(k)
        .take_while(|v| match v {
            Value::Tensor(_) => tensors,
            Value::Int(_) => !tensors,
            _ => false,
        })
        .count();
    if run >= 2 || (tensors && run == 1) {
        let list: Vec<Value> = positional.drain(k..k + run).collect();
        positional.insert(k, Value::List(list));
    }
    positional
}

/// Whether `p` takes an explicit `None` (else `None` means "the default").
fn nullable(p: &Param) -> bool {
    matches!(
        p.default,
        Default::None | Default::FloatOrNone(_) | Default::RequiredOrNone
    )
}

/// `p`'s value from what was given (`None`: not given), or torch's missing-argument error.
fn given_or_default(name: &str, p: &Param, given: Option<Value>) -> Result<Value> {
    let given = given.filter(|v| nullable(p) || !v.is_none());
    match given.or_else(|| p.default.value()) {
        Some(v) => Ok(v),
        None => type_err(format!(
            "{name}() missing 1 required positional argument: '{}'",
            p.name
        )),
    }
}

/// Match `positional` and `keywords` to `entry`'s parameters (for a method, `positional[0]` is
/// `self`). A `None` where the default is not `None` takes the default, so a binding may pass
/// JavaScript's `undefined` for an argument left out.
pub fn bind<'a>(
    entry: &'a Entry,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Args<'a>> {
    let n = param_count(entry);
    let positional = gather_varargs(entry, positional);
    let name = entry.name;
    if positional.len() > n {
        return type_err(format!(
            "{name}() takes {n} positional arguments but {} were given",
            positional.len()
        ));
    }
    if keywords.is_empty() {
        // The common call (`y.add(1)`): the positional values completed in place.
        let mut values = positional;
        for (i, v) in values.iter_mut().enumerate() {
            if v.is_none() {
                *v = given_or_default(name, param(entry, i), Some(Value::None))?;
            }
        }
        for i in values.len()..n {
            values.push(given_or_default(name, param(entry, i), None)?);
        }
        return Ok(Args {
            entry,
            values,
            keywords: Vec::new(),
            method_call: entry.is_method(),
        });
    }
    let mut slots: Vec<Option<Value>> = positional.into_iter().map(Some).collect();
    slots.resize(n, None);
    let mut by_keyword = vec![false; n];
    for (key, value) in keywords {
        let Some(i) = (0..n).position(|i| param(entry, i).name == key) else {
            return type_err(format!(
                "{name}() got an unexpected keyword argument '{key}'"
            ));
        };
        if slots[i].as_ref().is_some_and(|v| !v.is_none()) {
            return type_err(format!("{name}() got multiple values for argument '{key}'"));
        }
        slots[i] = Some(value);
        by_keyword[i] = true;
    }
    let values = slots
        .into_iter()
        .enumerate()
        .map(|(i, slot)| given_or_default(name, param(entry, i), slot))
        .collect::<Result<Vec<_>>>()?;
    Ok(Args {
        entry,
        values,
        keywords: by_keyword,
        method_call: entry.is_method(),
    })
}

impl Args<'_> {
    /// Whether these arguments came to a method call (`x.add(y)`) or to the function form
    /// (`torch.add(x, y)`) of an entry that is both: torch's positions differ.
    pub(super) fn called_as_method(mut self, method: bool) -> Self {
        self.method_call = method;
        self
    }

    /// The name of the op (or class) these arguments were bound for, for messages.
    pub fn name(&self) -> &'static str {
        self.entry.name
    }

    /// The bound values, `self` first for methods, in the signature's order.
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// Value `i` (`None` past the end).
    pub fn get(&self, i: usize) -> &Value {
        self.values.get(i).unwrap_or(&Value::None)
    }

    /// The value of the parameter called `name`, if the entry has one.
    pub fn named(&self, name: &str) -> Option<&Value> {
        let offset = usize::from(self.entry.is_method());
        let i = self.entry.params.iter().position(|p| p.name == name)?;
        Some(self.get(i + offset))
    }

    fn param_name(&self, i: usize) -> &'static str {
        match (self.entry.is_method(), i) {
            (true, 0) => "self",
            (true, i) => self.entry.params.get(i - 1).map_or("?", |p| p.name),
            (false, i) => self.entry.params.get(i).map_or("?", |p| p.name),
        }
    }

    /// torch's "add(): argument 'other' (position 1) must be Tensor, not dict": positions count
    /// from 1 after `self` (a method's `self` is not an argument), and a keyword argument has
    /// none.
    fn wrong<T>(&self, i: usize, expected: &str) -> Result<T> {
        type_err(format!(
            "{}(): argument '{}'{} must be {expected}, not {}",
            self.entry.name,
            self.param_name(i),
            self.position(i),
            self.get(i).type_name()
        ))
    }

    /// `" (position 1)"` as torch writes it for value `i`, or nothing for a keyword argument.
    fn position(&self, i: usize) -> String {
        let method = self.method_call;
        match self.keywords.get(i) {
            Some(true) => String::new(),
            _ if method && i == 0 => String::new(),
            _ => format!(" (position {})", i + usize::from(!method)),
        }
    }

    /// A tensor (torch's TypeError otherwise).
    pub fn tensor(&self, i: usize) -> Result<Tensor> {
        match self.get(i) {
            Value::Tensor(t) => Ok(t.clone()),
            _ => self.wrong(i, "Tensor"),
        }
    }

    /// A tensor, or `None`.
    pub fn opt_tensor(&self, i: usize) -> Result<Option<Tensor>> {
        match self.get(i) {
            Value::None => Ok(None),
            _ => self.tensor(i).map(Some),
        }
    }

    /// A number or bool.
    pub fn scalar(&self, i: usize) -> Result<Scalar> {
        match self.get(i) {
            Value::Bool(b) => Ok(Scalar::Bool(*b)),
            Value::Int(v) => Ok(Scalar::Int(*v)),
            Value::Float(v) => Ok(Scalar::Float(*v)),
            _ => self.wrong(i, "Number"),
        }
    }

    /// A tensor or a number.
    pub fn operand(&self, i: usize) -> Result<Operand> {
        match self.get(i) {
            Value::Tensor(t) => Ok(Operand::Tensor(t.clone())),
            Value::Bool(_) | Value::Int(_) | Value::Float(_) => self.scalar(i).map(Operand::Scalar),
            _ => self.wrong(i, "Tensor or Number"),
        }
    }

    /// A tensor, a number, or `None`.
    pub fn opt_operand(&self, i: usize) -> Result<Option<Operand>> {
        match self.get(i) {
            Value::None => Ok(None),
            _ => self.operand(i).map(Some),
        }
    }

    /// A float (an int is taken too).
    pub fn f64(&self, i: usize) -> Result<f64> {
        match self.get(i) {
            Value::Int(v) => Ok(*v as f64),
            Value::Float(v) => Ok(*v),
            _ => self.wrong(i, "float"),
        }
    }

    /// A float, or `None`.
    pub fn opt_f64(&self, i: usize) -> Result<Option<f64>> {
        match self.get(i) {
            Value::None => Ok(None),
            _ => self.f64(i).map(Some),
        }
    }

    /// An int.
    pub fn i64(&self, i: usize) -> Result<i64> {
        match self.get(i) {
            Value::Int(v) => Ok(*v),
            _ => self.wrong(i, "int"),
        }
    }

    /// An int that counts or indexes elements (a size, a dim, an index, a shift): within
    /// ±`MAX_NUMEL`, since no tensor is larger, so it fits `isize` on every target (32 bits on
    /// wasm32) and sums and products of two of them fit 64 bits.
    pub fn int(&self, i: usize) -> Result<isize> {
        let v = self.i64(i)?;
        self.bounded(i, v)
    }

    fn bounded(&self, i: usize, v: i64) -> Result<isize> {
        if v.unsigned_abs() > MAX_NUMEL {
            return Err(BorchError::Runtime(format!(
                "{}(): argument '{}'{} is {v}, out of the range borch takes for sizes, dims and \
                 indices (at most {MAX_NUMEL} in absolute value: a tensor holds at most that many \
                 elements)",
                self.entry.name,
                self.param_name(i),
                self.position(i),
            )));
        }
        Ok(v as isize)
    }

    /// An int that counts or indexes elements, or `None`.
    pub fn opt_int(&self, i: usize) -> Result<Option<isize>> {
        match self.get(i) {
            Value::None => Ok(None),
            _ => self.int(i).map(Some),
        }
    }

    /// A count or size: a non-negative int.
    pub fn usize(&self, i: usize) -> Result<usize> {
        let v = self.int(i)?;
        usize::try_from(v).or_else(|_| self.wrong(i, "a non-negative int"))
    }

    /// A bool.
    pub fn bool(&self, i: usize) -> Result<bool> {
        match self.get(i) {
            Value::Bool(b) => Ok(*b),
            _ => self.wrong(i, "bool"),
        }
    }

    /// A string.
    pub fn str(&self, i: usize) -> Result<&str> {
        match self.get(i) {
            Value::Str(s) => Ok(s),
            _ => self.wrong(i, "str"),
        }
    }

    /// A list of strings (a tuple too).
    pub fn strs(&self, i: usize) -> Result<Vec<String>> {
        match self.get(i) {
            Value::List(items) => items
                .iter()
                .map(|v| match v {
                    Value::Str(s) => Ok(s.clone()),
                    _ => self.wrong(i, "list of str"),
                })
                .collect(),
            _ => self.wrong(i, "list of str"),
        }
    }

    /// A string, or `None`.
    pub fn opt_str(&self, i: usize) -> Result<Option<&str>> {
        match self.get(i) {
            Value::None => Ok(None),
            _ => self.str(i).map(Some),
        }
    }

    /// A dtype by torch's name, or `None`; a dtype borch lacks is a TypeError naming the ones it has.
    pub fn dtype(&self, i: usize) -> Result<Option<DType>> {
        match self.get(i) {
            Value::None => Ok(None),
            Value::Str(s) => match DType::from_name(s) {
                Some(d) => Ok(Some(d)),
                None => type_err(format!(
                    "{}(): borch has no dtype '{s}' (it has {})",
                    self.entry.name,
                    DType::LIST
                )),
            },
            _ => self.wrong(i, "torch.dtype"),
        }
    }

    /// A list of ints; a single int counts as a list of one.
    pub fn ints(&self, i: usize) -> Result<Vec<isize>> {
        match self.get(i) {
            Value::Int(v) => Ok(vec![self.bounded(i, *v)?]),
            Value::List(items) => items
                .iter()
                .map(|v| match v {
                    Value::Int(x) => self.bounded(i, *x),
                    _ => self.wrong(i, "tuple of ints"),
                })
                .collect(),
            _ => self.wrong(i, "tuple of ints"),
        }
    }

    /// A shape: a list of non-negative ints.
    pub fn sizes(&self, i: usize) -> Result<Vec<usize>> {
        self.ints(i)?
            .into_iter()
            .map(|v| usize::try_from(v).or_else(|_| self.wrong(i, "tuple of non-negative ints")))
            .collect()
    }

    /// `None` (every dim), one dim, or a list of dims.
    pub fn dims(&self, i: usize) -> Result<Option<Vec<isize>>> {
        match self.get(i) {
            Value::None => Ok(None),
            _ => self.ints(i).map(Some),
        }
    }

    /// `None`, or a list of ints (a single int counts as a list of one): pooling's `stride`.
    pub fn opt_ints(&self, i: usize) -> Result<Option<Vec<isize>>> {
        match self.get(i) {
            Value::None => Ok(None),
            _ => self.ints(i).map(Some),
        }
    }

    /// `None`, or a shape (pooling's `stride`).
    pub fn opt_sizes(&self, i: usize) -> Result<Option<Vec<usize>>> {
        match self.get(i) {
            Value::None => Ok(None),
            _ => self.sizes(i).map(Some),
        }
    }

    /// Sizes that may be `None` (adaptive pooling's `output_size`: `None` keeps the input's).
    pub fn sizes_or_none(&self, i: usize) -> Result<Vec<Option<usize>>> {
        let one = |v: &Value| match v {
            Value::None => Ok(None),
            Value::Int(x) if *x >= 0 => self.bounded(i, *x).map(|x| Some(x as usize)),
            _ => self.wrong(i, "tuple of ints"),
        };
        match self.get(i) {
            Value::List(items) => items.iter().map(one).collect(),
            v => one(v).map(|s| vec![s]),
        }
    }

    /// A convolution's `padding`: sizes (an int or a list), or `'valid'` or `'same'`.
    pub fn padding(&self, i: usize) -> Result<crate::ops::conv::Padding> {
        match self.get(i) {
            Value::Str(s) => s.parse(),
            _ => self.ints(i).map(crate::ops::conv::Padding::Sizes),
        }
    }

    /// A list of tensors.
    pub fn tensors(&self, i: usize) -> Result<Vec<Tensor>> {
        match self.get(i) {
            Value::List(items) => items
                .iter()
                .map(|v| match v {
                    Value::Tensor(t) => Ok(t.clone()),
                    _ => self.wrong(i, "tuple of Tensors"),
                })
                .collect(),
            _ => self.wrong(i, "tuple of Tensors"),
        }
    }
}
