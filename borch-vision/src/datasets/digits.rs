//! The 8×8 handwritten digits bundled in `data/digits/digits.csv.gz` (1,797 images, UCI, CC BY
//! 4.0; see its README): a gzip'd CSV, 64 pixel values 0–16 then the label per line.

use std::path::Path;

use borch_tensor::{BorchError, Result};

use super::{Images, VisionOptions, image_dataset, maybe_gunzip, read_file};

/// The bundled digits as a dataset: `(1, 8, 8)` float32 images (pixels ÷ 16, in [0, 1], as the
/// demo scales them) and labels 0–9. There is no train/test split in the file; `train` is
/// ignored (split with `random_split`).
pub struct Digits {
    images: Images,
}

impl Digits {
    /// Reads `digits.csv.gz` (or an uncompressed CSV) at `path`.
    pub fn new(path: impl AsRef<Path>, options: VisionOptions) -> Result<Digits> {
        let path = path.as_ref();
        Digits::from_bytes(&read_file(path)?, &path.display().to_string(), options)
    }

    /// From the bytes of the CSV, gzip-compressed or not; `what` names it in errors.
    pub fn from_bytes(bytes: &[u8], what: &str, options: VisionOptions) -> Result<Digits> {
        options.check_download(Path::new(what))?;
        let text = String::from_utf8(maybe_gunzip(bytes, what)?)
            .map_err(|_| BorchError::Runtime(format!("{what}: not UTF-8 text")))?;
        let (mut pixels, mut labels) = (Vec::new(), Vec::new());
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let bad = || {
                BorchError::Runtime(format!(
                    "{what} line {}: expected 64 pixels 0–16 and a label 0–9",
                    i + 1
                ))
            };
            let values: Vec<u8> = line
                .split(',')
                .map(|v| v.trim().parse::<u8>())
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| bad())?;
            if values.len() != 65 || values[..64].iter().any(|&p| p > 16) || values[64] > 9 {
                return Err(bad());
            }
            pixels.extend_from_slice(&values[..64]);
            labels.push(i64::from(values[64]));
        }
        Ok(Digits {
            images: Images::new(pixels, [1, 8, 8], labels, 16.0, options),
        })
    }
}

image_dataset!(Digits);
