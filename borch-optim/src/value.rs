//! The values of torch's optimizer and scheduler dicts (`param_groups` entries, scheduler state)
//! that are not tensors.

use borch_tensor::{BorchError, Result};

/// One value of a torch dict: a number, a flag, a tuple such as `betas`, or a string (`mode`).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Float(f64),
    Int(i64),
    Bool(bool),
    Str(String),
    List(Vec<Value>),
    None,
}

impl Value {
    /// The number held, if this is a float or an int.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(x) => Some(*x),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        }
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Float(x)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<(f64, f64)> for Value {
    fn from((a, b): (f64, f64)) -> Value {
        Value::List(vec![Value::Float(a), Value::Float(b)])
    }
}

/// Reads typed entries of a dict, with torch's `KeyError` wording for missing keys.
pub(crate) struct Reader<'a>(pub &'a std::collections::BTreeMap<String, Value>);

impl Reader<'_> {
    fn get(&self, key: &str) -> Result<&Value> {
        self.0
            .get(key)
            .ok_or_else(|| BorchError::Value(format!("KeyError: '{key}'")))
    }

    fn wrong(key: &str, want: &str, got: &Value) -> BorchError {
        BorchError::Type(format!("'{key}' must be {want}, got {got:?}"))
    }

    pub fn f64(&self, key: &str) -> Result<f64> {
        let v = self.get(key)?;
        v.as_f64().ok_or_else(|| Self::wrong(key, "a number", v))
    }

    pub fn bool(&self, key: &str) -> Result<bool> {
        match self.get(key)? {
            Value::Bool(b) => Ok(*b),
            v => Err(Self::wrong(key, "a bool", v)),
        }
    }

    pub fn pair(&self, key: &str) -> Result<(f64, f64)> {
        let v = self.get(key)?;
        match v {
            Value::List(items) if items.len() == 2 => {
                match (items[0].as_f64(), items[1].as_f64()) {
                    (Some(a), Some(b)) => Ok((a, b)),
                    _ => Err(Self::wrong(key, "a pair of numbers", v)),
                }
            }
            _ => Err(Self::wrong(key, "a pair of numbers", v)),
        }
    }
}
