//! The values of torch's optimizer and scheduler dicts (`param_groups` entries, scheduler state)
//! that are not tensors.

use borch_tensor::{BorchError, Result};

/// One value of a torch dict: a number, a flag, a tuple such as `betas`, or a string (`mode`).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A Python float.
    Float(f64),
    /// A Python int.
    Int(i64),
    /// A Python bool.
    Bool(bool),
    /// A Python str (`mode="min"`).
    Str(String),
    /// A Python list or tuple (`betas`).
    List(Vec<Value>),
    /// A nested dict (the child schedulers' state of SequentialLR and ChainedScheduler).
    Dict(std::collections::BTreeMap<String, Value>),
    /// Python's `None`.
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

impl Value {
    /// The value as Python's `repr` writes it in a signature (`0.001`, `(0.9, 0.999)`, `None`,
    /// `True`, `'strong_wolfe'`).
    pub fn py_repr(&self) -> String {
        match self {
            Value::Float(x) => crate::py_float(*x),
            Value::Int(i) => i.to_string(),
            Value::Bool(b) => if *b { "True" } else { "False" }.into(),
            Value::Str(s) => format!("'{s}'"),
            Value::List(items) => {
                let inner: Vec<String> = items.iter().map(Value::py_repr).collect();
                format!("({})", inner.join(", "))
            }
            Value::Dict(d) => {
                let inner: Vec<String> = d
                    .iter()
                    .map(|(k, v)| format!("'{k}': {}", v.py_repr()))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
            Value::None => "None".into(),
        }
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::None, Into::into)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}

impl From<(Option<f64>, f64)> for Value {
    fn from((a, b): (Option<f64>, f64)) -> Value {
        Value::List(vec![a.into(), Value::Float(b)])
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

    /// An int; a float that holds one (JavaScript numbers) is taken too.
    pub fn i64(&self, key: &str) -> Result<i64> {
        match self.get(key)? {
            Value::Int(i) => Ok(*i),
            Value::Float(x) if x.fract() == 0.0 && x.is_finite() => Ok(*x as i64),
            v => Err(Self::wrong(key, "an int", v)),
        }
    }

    pub fn string(&self, key: &str) -> Result<String> {
        match self.get(key)? {
            Value::Str(s) => Ok(s.clone()),
            v => Err(Self::wrong(key, "a str", v)),
        }
    }

    /// `read(key)`, or `None` for a `None` entry.
    pub fn optional<T>(&self, key: &str, read: fn(&Self, &str) -> Result<T>) -> Result<Option<T>> {
        match self.get(key)? {
            Value::None => Ok(None),
            _ => read(self, key).map(Some),
        }
    }

    /// A pair whose first item may be `None` (Adafactor's `eps=(None, 1e-3)`).
    pub fn optional_pair(&self, key: &str) -> Result<(Option<f64>, f64)> {
        let v = self.get(key)?;
        match v {
            Value::List(items) if items.len() == 2 => {
                let first = match &items[0] {
                    Value::None => Some(None),
                    x => x.as_f64().map(Some),
                };
                match (first, items[1].as_f64()) {
                    (Some(a), Some(b)) => Ok((a, b)),
                    _ => Err(Self::wrong(key, "a pair (None or a number, a number)", v)),
                }
            }
            _ => Err(Self::wrong(key, "a pair (None or a number, a number)", v)),
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
