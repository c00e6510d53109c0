//! CIFAR-10 and CIFAR-100 from the binary version of the batches (`cifar-10-batches-bin/`,
//! `cifar-100-binary/`): per image one label byte (CIFAR-100: coarse then fine) and 3072 pixel
//! bytes, the red, green and blue 32×32 planes in turn.

use std::path::Path;

use borch_tensor::{BorchError, Result};

use super::{Images, VisionOptions, image_dataset, read_file};

const PIXELS: usize = 3 * 32 * 32;

/// CIFAR-10's class names, in label order.
pub const CIFAR10_CLASSES: [&str; 10] = [
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
];

/// Splits binary batch records into pixels and the label at `label_at`, checking sizes and
/// label ranges (`labels` label bytes per record, each below its bound).
fn parse(
    bytes: &[u8],
    what: &str,
    bounds: &[i64],
    label_at: usize,
    pixels: &mut Vec<u8>,
    labels: &mut Vec<i64>,
) -> Result<()> {
    let record = bounds.len() + PIXELS;
    if bytes.is_empty() || !bytes.len().is_multiple_of(record) {
        return Err(BorchError::Runtime(format!(
            "{what}: {} bytes is not a whole number of CIFAR records of {record} bytes ({} label \
             byte{} + {PIXELS} pixel bytes): truncated or not a CIFAR binary batch",
            bytes.len(),
            bounds.len(),
            if bounds.len() == 1 { "" } else { "s" }
        )));
    }
    for (k, rec) in bytes.chunks_exact(record).enumerate() {
        for (b, &bound) in bounds.iter().enumerate() {
            if i64::from(rec[b]) >= bound {
                return Err(BorchError::Runtime(format!(
                    "{what}: image {k} has label {} at byte {b}, out of range 0..{bound}",
                    rec[b]
                )));
            }
        }
        labels.push(i64::from(rec[label_at]));
        pixels.extend_from_slice(&rec[bounds.len()..]);
    }
    Ok(())
}

fn load(
    files: &[(&str, &[u8])],
    bounds: &[i64],
    label_at: usize,
    options: VisionOptions,
) -> Result<Images> {
    let (mut pixels, mut labels) = (Vec::new(), Vec::new());
    for (what, bytes) in files {
        parse(bytes, what, bounds, label_at, &mut pixels, &mut labels)?;
    }
    Ok(Images::new(pixels, [3, 32, 32], labels, 255.0, options))
}

fn read_all(
    dir: &Path,
    names: &[&str],
    options: &VisionOptions,
    class: &str,
) -> Result<Vec<(String, Vec<u8>)>> {
    options.check_download(dir)?;
    if !names.iter().all(|n| dir.join(n).is_file()) {
        return Err(BorchError::Runtime(format!(
            "Dataset not found: {class} expects {} in {} (the binary version); borch downloads \
             nothing",
            names.join(", "),
            dir.display()
        )));
    }
    names
        .iter()
        .map(|n| {
            let p = dir.join(n);
            Ok((p.display().to_string(), read_file(&p)?))
        })
        .collect()
}

/// `CIFAR10(root, train=True, transform=None, target_transform=None, download=False)`: 32×32
/// RGB images in 10 classes, read from `root/cifar-10-batches-bin/` (`data_batch_1.bin` …
/// `data_batch_5.bin` for training, `test_batch.bin` for testing).
pub struct CIFAR10 {
    images: Images,
}

impl CIFAR10 {
    /// Reads the split `options.train` selects from `root/cifar-10-batches-bin/`.
    pub fn new(root: impl AsRef<Path>, options: VisionOptions) -> Result<CIFAR10> {
        let dir = root.as_ref().join("cifar-10-batches-bin");
        let names: Vec<&str> = if options.train {
            vec![
                "data_batch_1.bin",
                "data_batch_2.bin",
                "data_batch_3.bin",
                "data_batch_4.bin",
                "data_batch_5.bin",
            ]
        } else {
            vec!["test_batch.bin"]
        };
        let files = read_all(&dir, &names, &options, "CIFAR10")?;
        let refs: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        Ok(CIFAR10 {
            images: load(&refs, &[10], 0, options)?,
        })
    }

    /// From the bytes of binary batches, in order (`options.train` is not consulted).
    pub fn from_bytes(batches: &[&[u8]], options: VisionOptions) -> Result<CIFAR10> {
        options.check_download(Path::new("cifar-10-batches-bin"))?;
        let files: Vec<(&str, &[u8])> = batches.iter().map(|b| ("CIFAR-10 batch", *b)).collect();
        Ok(CIFAR10 {
            images: load(&files, &[10], 0, options)?,
        })
    }

    /// The class names (torchvision's `classes`).
    pub fn classes(&self) -> &'static [&'static str] {
        &CIFAR10_CLASSES
    }
}

image_dataset!(CIFAR10);

/// `CIFAR100(root, train=True, transform=None, target_transform=None, download=False)`: 32×32
/// RGB images in 100 classes, read from `root/cifar-100-binary/` (`train.bin`, `test.bin`); the
/// target is the fine label, as torchvision's.
pub struct CIFAR100 {
    images: Images,
    coarse: Vec<i64>,
}

impl CIFAR100 {
    /// Reads the split `options.train` selects from `root/cifar-100-binary/`.
    pub fn new(root: impl AsRef<Path>, options: VisionOptions) -> Result<CIFAR100> {
        let dir = root.as_ref().join("cifar-100-binary");
        let name = if options.train {
            "train.bin"
        } else {
            "test.bin"
        };
        let files = read_all(&dir, &[name], &options, "CIFAR100")?;
        CIFAR100::load(&files[0].0, &files[0].1, options)
    }

    /// From the bytes of `train.bin` or `test.bin` (`options.train` is not consulted).
    pub fn from_bytes(bytes: &[u8], options: VisionOptions) -> Result<CIFAR100> {
        options.check_download(Path::new("cifar-100-binary"))?;
        CIFAR100::load("CIFAR-100 batch", bytes, options)
    }

    fn load(what: &str, bytes: &[u8], options: VisionOptions) -> Result<CIFAR100> {
        let (mut pixels, mut coarse) = (Vec::new(), Vec::new());
        parse(bytes, what, &[20, 100], 0, &mut pixels, &mut coarse)?;
        let fine = bytes
            .chunks_exact(2 + PIXELS)
            .map(|r| i64::from(r[1]))
            .collect();
        Ok(CIFAR100 {
            images: Images::new(pixels, [3, 32, 32], fine, 255.0, options),
            coarse,
        })
    }

    /// The coarse (superclass) labels, in order.
    pub fn coarse_targets(&self) -> &[i64] {
        &self.coarse
    }
}

image_dataset!(CIFAR100);
