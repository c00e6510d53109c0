//! The values that cross a binding: what a JavaScript or Python argument can be, and what an op
//! can return.

use crate::dtype::DType;
use crate::scalar::{Operand, Scalar};
use crate::tensor::Tensor;

/// One argument or result, as a dynamically typed language holds it.
#[derive(Debug, Clone)]
pub enum Value {
    /// Python's `None` (JavaScript's `null` / `undefined`).
    None,
    /// A bool.
    Bool(bool),
    /// An int.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A tensor.
    Tensor(Tensor),
    /// A list or tuple.
    List(Vec<Value>),
    /// A value of the calling language that no parameter accepts (a JavaScript `Map`, a
    /// function, a list too long to read), kept so that the binder refuses it with torch's
    /// message naming the op, the parameter and its position. The string is the value's type
    /// name as the calling language says it (`Map`, `ReLU`).
    Other(String),
}

impl Value {
    /// Python's name of the value's type, for torch's "must be X, not Y" messages.
    pub fn type_name(&self) -> &str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Tensor(_) => "Tensor",
            Value::List(_) => "list",
            Value::Other(name) => name,
        }
    }

    /// Whether this is `None`.
    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Value {
        Value::Tensor(t)
    }
}

impl From<Vec<Tensor>> for Value {
    fn from(ts: Vec<Tensor>) -> Value {
        Value::List(ts.into_iter().map(Value::Tensor).collect())
    }
}

impl From<(Tensor, Tensor)> for Value {
    fn from((a, b): (Tensor, Tensor)) -> Value {
        Value::List(vec![Value::Tensor(a), Value::Tensor(b)])
    }
}

impl From<Scalar> for Value {
    fn from(s: Scalar) -> Value {
        match s {
            Scalar::Float(v) => Value::Float(v),
            Scalar::Int(v) => Value::Int(v),
            Scalar::Bool(v) => Value::Bool(v),
        }
    }
}

impl From<DType> for Value {
    fn from(d: DType) -> Value {
        Value::Str(d.name().to_string())
    }
}

impl From<Operand> for Value {
    fn from(o: Operand) -> Value {
        match o {
            Operand::Tensor(t) => Value::Tensor(t),
            Operand::Scalar(s) => s.into(),
        }
    }
}
