//! torch's `default_collate` (a list of samples into one batch) and `default_convert` (what a
//! DataLoader without batching applies to each sample).

use std::rc::Rc;

use borch_tensor::{BorchError, HostData, Result, Tensor, stack};

use crate::sample::Sample;

/// A `collate_fn`: the samples of one batch (or the one sample, when batching is off) into what
/// the DataLoader yields.
pub type CollateFn = Rc<dyn Fn(Vec<Sample>) -> Result<Sample>>;

/// `default_convert(data)`: torch converts NumPy arrays to tensors (borch samples hold none) and,
/// for backwards compatibility, tuples to lists, at every depth.
pub fn default_convert(data: Sample) -> Result<Sample> {
    Ok(match data {
        Sample::Tuple(v) | Sample::List(v) => {
            Sample::List(v.into_iter().map(default_convert).collect::<Result<_>>()?)
        }
        Sample::Dict(v) => Sample::Dict(
            v.into_iter()
                .map(|(k, x)| Ok((k, default_convert(x)?)))
                .collect::<Result<_>>()?,
        ),
        other => other,
    })
}

/// `default_collate(batch)`, by the type of the first element as torch decides:
/// tensors are stacked along a new dim 0; ints become an int64 tensor, bools a bool tensor,
/// floats a float tensor (float32: borch has no float64, where torch makes float64); strings stay a
/// list; a dict collates each key; a tuple or list collates position by position into a list.
pub fn default_collate(batch: Vec<Sample>) -> Result<Sample> {
    collate(batch, false)
}

/// `transposed`: the batch is a column of a batch of sequences, which Python holds as a tuple
/// (so a column of strings comes back as a tuple, as in torch).
fn collate(batch: Vec<Sample>, transposed: bool) -> Result<Sample> {
    let Some(first) = batch.first() else {
        return Err(BorchError::Index("list index out of range".into()));
    };
    match first {
        Sample::Tensor(_) => {
            let tensors = batch
                .iter()
                .enumerate()
                .map(|(i, s)| match s {
                    Sample::Tensor(t) => Ok(t.clone()),
                    other => Err(BorchError::Type(format!(
                        "expected Tensor as element {i} in argument 0, but got {}",
                        other.type_name()
                    ))),
                })
                .collect::<Result<Vec<Tensor>>>()?;
            Ok(Sample::Tensor(stack(&tensors, 0)?))
        }
        Sample::Int(_) | Sample::Bool(_) | Sample::Float(_) => numbers(&batch),
        Sample::Str(_) if transposed => Ok(Sample::Tuple(batch)),
        Sample::Str(_) => Ok(Sample::List(batch)),
        Sample::Dict(entries) => {
            let keys: Vec<String> = entries.iter().map(|(k, _)| k.clone()).collect();
            let mut out = Vec::with_capacity(keys.len());
            for key in keys {
                let column = batch
                    .iter()
                    .map(|s| s.get(&key).cloned())
                    .collect::<Result<Vec<_>>>()?;
                out.push((key, collate(column, false)?));
            }
            Ok(Sample::Dict(out))
        }
        Sample::Tuple(items) | Sample::List(items) => {
            let size = items.len();
            let rows = batch
                .iter()
                .map(|s| match s.items() {
                    Ok(v) if v.len() == size => Ok(v),
                    Ok(_) => Err(BorchError::Runtime(
                        "each element in list of batch should be of equal size".into(),
                    )),
                    Err(e) => Err(e),
                })
                .collect::<Result<Vec<_>>>()?;
            let columns = (0..size)
                .map(|j| collate(rows.iter().map(|r| r[j].clone()).collect(), true))
                .collect::<Result<Vec<_>>>()?;
            Ok(Sample::List(columns))
        }
    }
}

/// `torch.tensor(batch)` of Python numbers: bool only if all are bools, int64 if all are ints (or
/// bools), else float.
fn numbers(batch: &[Sample]) -> Result<Sample> {
    let n = batch.len();
    let mut all_bool = true;
    let mut any_float = false;
    for s in batch {
        match s {
            Sample::Bool(_) => {}
            Sample::Int(_) => all_bool = false,
            Sample::Float(_) => {
                all_bool = false;
                any_float = true;
            }
            other => {
                return Err(BorchError::Type(format!(
                    "'{}' object cannot be interpreted as a number",
                    other.type_name()
                )));
            }
        }
    }
    let as_f64 = |s: &Sample| match s {
        Sample::Bool(b) => f64::from(u8::from(*b)),
        Sample::Int(i) => *i as f64,
        Sample::Float(f) => *f,
        _ => 0.0,
    };
    let data = if all_bool {
        HostData::Bool(
            batch
                .iter()
                .map(|s| matches!(s, Sample::Bool(true)))
                .collect(),
        )
    } else if any_float || matches!(batch[0], Sample::Float(_)) {
        HostData::F32(batch.iter().map(|s| as_f64(s) as f32).collect())
    } else {
        HostData::I64(
            batch
                .iter()
                .map(|s| match s {
                    Sample::Int(i) => *i,
                    other => as_f64(other) as i64,
                })
                .collect(),
        )
    };
    Ok(Sample::Tensor(Tensor::from_host(&data, &[n])?))
}
