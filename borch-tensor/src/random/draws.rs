//! torch's random draws as host values, for code that needs indices rather than tensors (the
//! samplers of `torch.utils.data`): the same algorithms and generator use as the tensor ops, so
//! `randperm(n, g)` here equals `torch.randperm(n, generator=g).tolist()` and leaves `g` where
//! torch leaves it.

use super::generator::resolve;
use super::{Generator, sample};
use crate::error::{Result, runtime};

/// `torch.randperm(n, generator=g).tolist()`.
pub fn randperm(n: usize, generator: Option<&Generator>) -> Vec<i64> {
    sample::randperm(&mut resolve(generator).lock(), n)
}

/// `torch.randint(low, high, (n,), generator=g).tolist()`.
pub fn randint(low: i64, high: i64, n: usize, generator: Option<&Generator>) -> Result<Vec<i64>> {
    if low >= high {
        return runtime(format!(
            "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        ));
    }
    let range = high.wrapping_sub(low) as u64;
    Ok(sample::random_from_to(
        &mut resolve(generator).lock(),
        n,
        range,
        low,
    ))
}

/// `torch.empty(n).uniform_(from, to, generator=g).tolist()` (float32 values; `torch.rand(n)` is
/// `uniform(0.0, 1.0, n, g)`), with torch's check that `from <= to`.
pub fn uniform(from: f64, to: f64, n: usize, generator: Option<&Generator>) -> Result<Vec<f32>> {
    if from > to {
        return runtime(format!(
            "uniform_ expects to return a [from, to) range, but found from={from} > to={to}"
        ));
    }
    Ok(sample::uniform(&mut resolve(generator).lock(), n, from, to))
}

/// `torch.empty((), dtype=torch.int64).random_(generator=g).item()`: a 64-bit draw reduced to
/// [0, 2^63), which is how torch's samplers and DataLoader make seeds.
pub fn random_int64(generator: Option<&Generator>) -> i64 {
    (resolve(generator).lock().random64() % (1u64 << 63)) as i64
}

/// `torch.multinomial(torch.tensor(weights, dtype=torch.double), num_samples, replacement,
/// generator=g).tolist()` on one 1-d distribution, with torch's checks and messages.
pub fn multinomial(
    weights: &[f64],
    num_samples: usize,
    replacement: bool,
    generator: Option<&Generator>,
) -> Result<Vec<i64>> {
    if num_samples == 0 {
        return runtime("cannot sample n_sample <= 0 samples");
    }
    if !replacement && num_samples > weights.len() {
        return runtime("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    }
    if weights.len() > 1 << 24 {
        return runtime("number of categories cannot exceed 2^24");
    }
    sample::multinomial(
        &mut resolve(generator).lock(),
        weights,
        num_samples,
        replacement,
    )
    .or_else(runtime)
}
