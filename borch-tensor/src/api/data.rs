//! `torch.tensor(data)`'s data as the catalog receives it: a number or boolean, or nested lists
//! of them, read with torch's rules (every leaf at one depth, siblings of one length, the dtype
//! implied by the leaves: bool < int64 < float32) and torch's messages.

use crate::dtype::DType;
use crate::error::{BorchError, Result};
use crate::host::HostData;
use crate::tensor::Tensor;

use super::value::Value;

/// At most this many nested lists (torch's limit is the same order).
const MAX_DIMS: usize = 64;

#[derive(Default)]
struct Flat {
    shape: Vec<usize>,
    leaf_depth: Option<usize>,
    leaves: Vec<f64>,
    implied: Option<DType>,
}

impl Flat {
    fn sequence(&mut self, dim: usize, len: usize) -> Result<()> {
        if dim >= MAX_DIMS {
            return Err(BorchError::Value(format!(
                "tensor(): too many dimensions (more than {MAX_DIMS})"
            )));
        }
        if let Some(leaf) = self.leaf_depth
            && dim >= leaf
        {
            return Err(BorchError::Value(format!(
                "expected a number at dim {dim} (got a sequence of length {len})"
            )));
        }
        match self.shape.get(dim) {
            Some(&expected) if expected != len => Err(BorchError::Value(format!(
                "expected sequence of length {expected} at dim {dim} (got {len})"
            ))),
            Some(_) => Ok(()),
            None => {
                self.shape.push(len);
                Ok(())
            }
        }
    }

    fn leaf(&mut self, dim: usize, value: f64, dtype: DType) -> Result<()> {
        match self.leaf_depth {
            None if self.shape.len() == dim => self.leaf_depth = Some(dim),
            Some(leaf) if leaf == dim => {}
            _ => {
                return Err(BorchError::Value(format!(
                    "expected sequence of length {} at dim {dim} (got a single value)",
                    self.shape.get(dim).copied().unwrap_or(0)
                )));
            }
        }
        self.leaves.push(value);
        self.implied = Some(self.implied.map_or(dtype, |d| d.promote(dtype)));
        Ok(())
    }

    fn walk(&mut self, value: &Value, dim: usize) -> Result<()> {
        match value {
            Value::List(items) => {
                self.sequence(dim, items.len())?;
                items.iter().try_for_each(|v| self.walk(v, dim + 1))
            }
            Value::Bool(b) => self.leaf(dim, f64::from(u8::from(*b)), DType::Bool),
            Value::Int(i) => self.leaf(dim, *i as f64, DType::Int64),
            Value::Float(f) => self.leaf(dim, *f, DType::Float32),
            other => Err(BorchError::Type(format!(
                "new(): invalid data type '{}'",
                other.type_name()
            ))),
        }
    }
}

/// A new leaf tensor holding `data`, of `dtype` or the dtype its leaves imply (float32 when
/// there are none). Ints keep their exact value (not rounded through f64) when the dtype is int64.
pub(super) fn tensor(data: &Value, dtype: Option<DType>) -> Result<Tensor> {
    let mut flat = Flat::default();
    flat.walk(data, 0)?;
    let dtype = dtype.or(flat.implied).unwrap_or(DType::Float32);
    let host = match dtype {
        DType::Float32 => HostData::F32(flat.leaves.iter().map(|&x| x as f32).collect()),
        DType::Bool => HostData::Bool(flat.leaves.iter().map(|&x| x != 0.0).collect()),
        DType::Int64 => {
            let mut ints = Vec::with_capacity(flat.leaves.len());
            exact_ints(data, &mut ints);
            HostData::I64(ints)
        }
    };
    Tensor::from_host(&host, &flat.shape)
}

/// The leaves as int64 in order: ints exactly, floats truncated toward zero (torch's cast).
fn exact_ints(value: &Value, out: &mut Vec<i64>) {
    match value {
        Value::List(items) => items.iter().for_each(|v| exact_ints(v, out)),
        Value::Bool(b) => out.push(i64::from(*b)),
        Value::Int(i) => out.push(*i),
        Value::Float(f) => out.push(*f as i64),
        _ => {}
    }
}
