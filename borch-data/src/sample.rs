//! The values a dataset yields and a DataLoader hands out: what torch's `default_collate` knows
//! (tensors, numbers, strings, sequences and mappings).

use borch_tensor::{BorchError, Result, Tensor};

/// One sample, or one collated batch.
#[derive(Debug, Clone)]
pub enum Sample {
    /// A tensor.
    Tensor(Tensor),
    /// A Python int.
    Int(i64),
    /// A Python float.
    Float(f64),
    /// A Python bool.
    Bool(bool),
    /// A Python str.
    Str(String),
    /// A Python tuple (what `TensorDataset` yields); `default_collate` turns it into a list.
    Tuple(Vec<Sample>),
    /// A Python list.
    List(Vec<Sample>),
    /// A dict, keys in insertion order.
    Dict(Vec<(String, Sample)>),
}

impl Sample {
    /// Python's type name of the value, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Sample::Tensor(_) => "Tensor",
            Sample::Int(_) => "int",
            Sample::Float(_) => "float",
            Sample::Bool(_) => "bool",
            Sample::Str(_) => "str",
            Sample::Tuple(_) => "tuple",
            Sample::List(_) => "list",
            Sample::Dict(_) => "dict",
        }
    }

    /// The tensor this sample is.
    pub fn tensor(&self) -> Result<&Tensor> {
        match self {
            Sample::Tensor(t) => Ok(t),
            other => Err(BorchError::Type(format!(
                "expected a Tensor, but got {}",
                other.type_name()
            ))),
        }
    }

    /// The items of a list or tuple.
    pub fn items(&self) -> Result<&[Sample]> {
        match self {
            Sample::List(v) | Sample::Tuple(v) => Ok(v),
            other => Err(BorchError::Type(format!(
                "expected a list or tuple, but got {}",
                other.type_name()
            ))),
        }
    }

    /// The tensors of a list or tuple of tensors (`x, y = batch`).
    pub fn tensors(&self) -> Result<Vec<Tensor>> {
        self.items()?.iter().map(|s| s.tensor().cloned()).collect()
    }

    /// The value under `key` of a dict (Python's `KeyError` when absent).
    pub fn get(&self, key: &str) -> Result<&Sample> {
        match self {
            Sample::Dict(entries) => entries
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .ok_or_else(|| BorchError::Key(format!("'{key}'"))),
            other => Err(BorchError::Type(format!(
                "expected a dict, but got {}",
                other.type_name()
            ))),
        }
    }
}

impl From<Tensor> for Sample {
    fn from(t: Tensor) -> Sample {
        Sample::Tensor(t)
    }
}
impl From<i64> for Sample {
    fn from(v: i64) -> Sample {
        Sample::Int(v)
    }
}
impl From<f64> for Sample {
    fn from(v: f64) -> Sample {
        Sample::Float(v)
    }
}
impl From<bool> for Sample {
    fn from(v: bool) -> Sample {
        Sample::Bool(v)
    }
}
impl From<&str> for Sample {
    fn from(v: &str) -> Sample {
        Sample::Str(v.to_string())
    }
}
impl From<String> for Sample {
    fn from(v: String) -> Sample {
        Sample::Str(v)
    }
}
