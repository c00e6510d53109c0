//! The 8×8 handwritten digits bundled in `data/digits/` (see its README for the licence): read,
//! split by a seeded permutation, pixels scaled to [0, 1], put on the device once.

use std::io::Read;
use std::path::Path;

use borch_tensor::{Tensor, keep_alive, manual_seed, randperm};
use flate2::read::GzDecoder;

pub const PIXELS: usize = 64;
pub const CLASSES: usize = 10;

/// Images `[n, 64]` (float32 in [0, 1]) and labels `[n]` (int64), kept alive.
pub struct Split {
    pub x: Tensor,
    pub y: Tensor,
}

impl Split {
    pub fn len(&self) -> usize {
        self.y.numel()
    }
}

/// The dataset as read: one row of 64 pixels (0–16) per image, and its label.
pub struct Digits {
    pub pixels: Vec<[u8; PIXELS]>,
    pub labels: Vec<u8>,
}

/// Read `digits.csv.gz` (gzip'd CSV: 64 pixels then the label per line, no header).
pub fn read(path: &Path) -> Result<Digits, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    GzDecoder::new(file)
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut digits = Digits {
        pixels: Vec::new(),
        labels: Vec::new(),
    };
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
        let bad = || format!("{} line {}: expected 65 integers", path.display(), i + 1);
        let values: Vec<u8> = line
            .split(',')
            .map(|v| v.trim().parse::<u8>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let (pixels, label) = values.split_at(values.len().saturating_sub(1));
        let pixels: [u8; PIXELS] = pixels.try_into().map_err(|_| bad())?;
        if pixels.iter().any(|&p| p > 16) || label[0] as usize >= CLASSES {
            return Err(bad());
        }
        digits.pixels.push(pixels);
        digits.labels.push(label[0]);
    }
    Ok(digits)
}

/// The first `train` rows of a seeded permutation for training, the rest held out.
/// `manual_seed(seed)` then `randperm(n)`: the same order torch gives for the same seed.
pub fn split(digits: &Digits, train: usize, seed: u64) -> borch_tensor::Result<(Split, Split)> {
    manual_seed(seed);
    let order: Vec<i64> = randperm(digits.labels.len(), None)?.to_vec_blocking()?;
    let (train_rows, test_rows) = order.split_at(train.min(order.len()));
    Ok((make(digits, train_rows)?, make(digits, test_rows)?))
}

fn make(digits: &Digits, rows: &[i64]) -> borch_tensor::Result<Split> {
    let mut x = Vec::with_capacity(rows.len() * PIXELS);
    let mut y = Vec::with_capacity(rows.len());
    for &r in rows {
        x.extend(
            digits.pixels[r as usize]
                .iter()
                .map(|&p| f32::from(p) / 16.0),
        );
        y.push(i64::from(digits.labels[r as usize]));
    }
    Ok(Split {
        x: keep_alive(&Tensor::from_slice(&x, &[rows.len(), PIXELS])?),
        y: keep_alive(&Tensor::from_slice(&y, &[rows.len()])?),
    })
}
