//! torch's `random_split`: lengths, or fractions rounded as torch rounds them.

use std::rc::Rc;

use borch_tensor::random::{default_generator, draws};
use borch_tensor::{BorchError, Generator, Result};

use crate::dataset::{Dataset, Subset};

/// `random_split(dataset, lengths, generator=default_generator)`.
///
/// `lengths` are counts, or fractions when they sum to 1 (within `math.isclose`) and not above
/// it: each split gets `floor(len * fraction)` and the remainder is handed out one by one from the
/// first split on. The indices are one `randperm(sum(lengths), generator)` cut in order.
pub fn random_split(
    dataset: Rc<dyn Dataset>,
    lengths: &[f64],
    generator: Option<&Generator>,
) -> Result<Vec<Subset>> {
    let n = dataset.len();
    let total: f64 = lengths.iter().sum();
    let counts: Vec<usize> = if is_close(total, 1.0) && total <= 1.0 {
        let mut counts = Vec::with_capacity(lengths.len());
        for (i, &frac) in lengths.iter().enumerate() {
            if !(0.0..=1.0).contains(&frac) {
                return Err(BorchError::Value(format!(
                    "Fraction at index {i} is not between 0 and 1"
                )));
            }
            counts.push((n as f64 * frac).floor() as usize);
        }
        let remainder = n - counts.iter().sum::<usize>().min(n);
        let splits = counts.len();
        for i in 0..remainder {
            counts[i % splits] += 1;
        }
        counts
    } else {
        if total != n as f64 {
            return Err(sum_error());
        }
        lengths
            .iter()
            .map(|&l| {
                if l >= 0.0 && l.fract() == 0.0 {
                    Ok(l as usize)
                } else {
                    Err(BorchError::Type(format!(
                        "random_split: lengths must be whole numbers or fractions summing to \
                         1, but got {l}"
                    )))
                }
            })
            .collect::<Result<_>>()?
    };
    if counts.iter().sum::<usize>() != n {
        return Err(sum_error());
    }
    let generator = generator.cloned().unwrap_or_else(default_generator);
    let indices = draws::randperm(n, Some(&generator));
    let mut offset = 0;
    Ok(counts
        .iter()
        .map(|&len| {
            let part = indices[offset..offset + len].to_vec();
            offset += len;
            Subset::new(dataset.clone(), part)
        })
        .collect())
}

fn sum_error() -> BorchError {
    BorchError::Value("Sum of input lengths does not equal the length of the input dataset!".into())
}

/// Python's `math.isclose(a, b)` with its default `rel_tol=1e-9`.
fn is_close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}
