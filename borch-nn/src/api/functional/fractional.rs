//! The catalog entries of `F.fractional_max_pool2d` and `F.fractional_max_pool3d`
//! (`functional::fractional_pool`), with torch's signature; the (values, indices) pair comes back
//! only with `return_indices=True`, as torch's `boolean_dispatch` gives it.

use borch_tensor::api::{Args, Entry, Value, pair};
use borch_tensor::{BorchError, Result};

use super::entry;
use crate::functional as F;

const PARAMS: &str = "input: Tensor, kernel_size: Ints, output_size: Ints = None, \
                      output_ratio: Float = None, return_indices: Bool = False, \
                      _random_samples: Tensor = None";

/// `output_ratio` (argument `i`): None, a number, or a list of numbers.
pub(crate) fn ratio(a: &Args, i: usize) -> Result<Option<Vec<f64>>> {
    let number = |v: &Value| match v {
        Value::Int(x) => Some(*x as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    };
    let bad = || {
        BorchError::Type(format!(
            "{}(): argument 'output_ratio' must be a number or a tuple of numbers, not {}",
            a.name(),
            a.get(i).type_name()
        ))
    };
    match a.get(i) {
        Value::None => Ok(None),
        Value::List(items) => items
            .iter()
            .map(number)
            .collect::<Option<Vec<f64>>>()
            .map(Some)
            .ok_or_else(bad),
        v => number(v).map(|x| Some(vec![x])).ok_or_else(bad),
    }
}

type Pool = fn(
    &borch_tensor::Tensor,
    &[usize],
    Option<&[usize]>,
    Option<&[f64]>,
    Option<&borch_tensor::Tensor>,
) -> Result<(borch_tensor::Tensor, borch_tensor::Tensor)>;

fn run(a: &Args, n: usize, pool: Pool) -> Result<Value> {
    // torch's 2-D wrapper takes `len(output_ratio)`; its 3-D one `_triple`s a number.
    if n == 2 && matches!(a.get(3), Value::Int(_) | Value::Float(_)) {
        return Err(BorchError::Type(format!(
            "object of type '{}' has no len()",
            a.get(3).type_name()
        )));
    }
    let out = pool(
        &a.tensor(0)?,
        &a.sizes(1)?,
        a.opt_sizes(2)?.as_deref(),
        ratio(a, 3)?.as_deref(),
        a.opt_tensor(5)?.as_ref(),
    )?;
    Ok(if a.bool(4)? {
        pair(out)
    } else {
        Value::Tensor(out.0)
    })
}

/// The entries.
pub(super) fn entries() -> Vec<Entry> {
    vec![
        entry("fractional_max_pool2d", PARAMS, |a| {
            run(a, 2, F::fractional_max_pool2d)
        }),
        entry("fractional_max_pool3d", PARAMS, |a| {
            run(a, 3, F::fractional_max_pool3d)
        }),
    ]
}
