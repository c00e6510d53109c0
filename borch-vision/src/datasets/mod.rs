//! torchvision's dataset classes over the on-disk formats users have, read from a local folder or
//! from bytes (borch downloads nothing: `download=true` is refused): [`CIFAR10`] and
//! [`CIFAR100`] (the binary batches), [`MNIST`] and [`FashionMNIST`] (IDX files, raw or
//! gzip-compressed), and the bundled 8×8 [`Digits`]. Each implements borch-data's
//! [`Dataset`](borch_data::Dataset), so a `DataLoader` batches them.
//!
//! A sample is `(image, target)`. Where torchvision hands its `transform` a PIL image, borch
//! hands it the image as `ToTensor()` makes it (CHW float32 in [0, 1]; for the digits, pixels ÷
//! 16), so torchvision's `Compose([ToTensor(), ...])` is written here without the `ToTensor`.
//! Malformed files (truncated, wrong magic, dims that overflow, labels out of range) are errors
//! naming the file and the fault, never panics.
//!
//! ```no_run
//! use borch_vision::datasets::{CIFAR10, VisionOptions};
//! # fn main() -> borch_tensor::Result<()> {
//! let train = CIFAR10::new("data", VisionOptions::default())?; // data/cifar-10-batches-bin/
//! # Ok(())
//! # }
//! ```

mod cifar;
mod digits;
mod mnist;

pub use cifar::{CIFAR10, CIFAR10_CLASSES, CIFAR100};
pub use digits::Digits;
pub use mnist::{FashionMNIST, MNIST, read_idx};

use std::io::Read;
use std::path::Path;

use borch_data::Sample;
use borch_tensor::{BorchError, HostData, Result, Tensor};

use crate::transforms::Transform;

/// A `target_transform`: the class index in, the target out.
pub type TargetTransform = Box<dyn Fn(i64) -> Result<Sample>>;

/// The arguments torchvision's dataset classes share: `train=True, transform=None,
/// target_transform=None, download=False`.
pub struct VisionOptions {
    /// `train=`: the training split (default) or the test split.
    pub train: bool,
    /// `transform=`: applied to each image tensor.
    pub transform: Option<Box<dyn Transform>>,
    /// `target_transform=`: applied to each label.
    pub target_transform: Option<TargetTransform>,
    /// `download=`: must stay `false`; borch downloads nothing.
    pub download: bool,
}

impl Default for VisionOptions {
    fn default() -> VisionOptions {
        VisionOptions {
            train: true,
            transform: None,
            target_transform: None,
            download: false,
        }
    }
}

impl VisionOptions {
    /// The test split (`train=False`).
    pub fn test() -> VisionOptions {
        VisionOptions {
            train: false,
            ..Default::default()
        }
    }

    /// Refuses `download=true`, naming where the files are expected.
    pub(crate) fn check_download(&self, expected: &Path) -> Result<()> {
        if self.download {
            return Err(BorchError::NotImplemented(format!(
                "download=True is not supported: borch downloads nothing; put the files in {}",
                expected.display()
            )));
        }
        Ok(())
    }
}

/// Images kept on the host as CHW bytes, their labels, and the dataset's transforms: what every
/// class here is.
pub(crate) struct Images {
    /// `n * c * h * w` bytes, CHW per image.
    pixels: Vec<u8>,
    /// `(channels, height, width)`.
    shape: [usize; 3],
    labels: Vec<i64>,
    /// The divisor that brings a byte into [0, 1] (255, or 16 for the digits).
    scale: f32,
    options: VisionOptions,
}

impl Images {
    pub(crate) fn new(
        pixels: Vec<u8>,
        shape: [usize; 3],
        labels: Vec<i64>,
        scale: f32,
        options: VisionOptions,
    ) -> Images {
        debug_assert_eq!(pixels.len(), labels.len() * shape.iter().product::<usize>());
        Images {
            pixels,
            shape,
            labels,
            scale,
            options,
        }
    }

    fn size(&self) -> usize {
        self.shape.iter().product()
    }

    pub(crate) fn len(&self) -> usize {
        self.labels.len()
    }

    pub(crate) fn labels(&self) -> &[i64] {
        &self.labels
    }

    /// Image `i` as raw HWC bytes (what torchvision's `data[i]` holds).
    pub(crate) fn hwc(&self, i: usize) -> Option<Vec<u8>> {
        let [c, h, w] = self.shape;
        let chw = self.pixels.get(i * self.size()..(i + 1) * self.size())?;
        let mut out = vec![0u8; chw.len()];
        for (k, &v) in chw.iter().enumerate() {
            let (ch, p) = (k / (h * w), k % (h * w));
            out[p * c + ch] = v;
        }
        Some(out)
    }

    fn upload(&self, rows: &[usize]) -> Result<Tensor> {
        let n = self.size();
        let mut v = Vec::with_capacity(rows.len() * n);
        for &r in rows {
            v.extend(
                self.pixels[r * n..(r + 1) * n]
                    .iter()
                    .map(|&b| b as f32 / self.scale),
            );
        }
        let [c, h, w] = self.shape;
        Tensor::from_host(&HostData::F32(v), &[rows.len(), c, h, w])
    }

    pub(crate) fn get(&self, index: i64) -> Result<Sample> {
        let len = self.len() as i64;
        let i = if index < 0 { index + len } else { index };
        if i < 0 || i >= len {
            return Err(BorchError::Index(format!(
                "index {index} is out of bounds for a dataset of size {len}"
            )));
        }
        let mut img = self.upload(&[i as usize])?.squeeze_dims(&[0])?;
        if let Some(t) = &self.options.transform {
            img = t.forward(&img)?;
        }
        let label = self.labels[i as usize];
        let target = match &self.options.target_transform {
            Some(f) => f(label)?,
            None => Sample::Int(label),
        };
        Ok(Sample::Tuple(vec![Sample::Tensor(img), target]))
    }

    /// A batch is one upload (what `default_collate` of the samples gives), through the
    /// transform's batched path when it has one (the same draws and values as per image).
    pub(crate) fn get_batch(&self, indices: &[usize]) -> Option<Result<Sample>> {
        let batched = self.options.transform.as_ref().is_none_or(|t| t.batches());
        if !batched || self.options.target_transform.is_some() {
            return None;
        }
        if indices.iter().any(|&i| i >= self.len()) {
            return None; // let `get` report the bad index
        }
        let labels: Vec<i64> = indices.iter().map(|&i| self.labels[i]).collect();
        Some((|| {
            let mut x = self.upload(indices)?;
            if let Some(t) = &self.options.transform {
                x = t.forward_batch(&x)?;
            }
            let y = Tensor::from_host(&HostData::I64(labels), &[indices.len()])?;
            Ok(Sample::List(vec![Sample::Tensor(x), Sample::Tensor(y)]))
        })())
    }
}

/// Forwards borch-data's `Dataset` and the shared accessors to a class's `Images`.
macro_rules! image_dataset {
    ($ty:ident) => {
        impl borch_data::Dataset for $ty {
            fn get(&self, index: i64) -> borch_tensor::Result<borch_data::Sample> {
                self.images.get(index)
            }
            fn len(&self) -> usize {
                self.images.len()
            }
            fn get_batch(
                &self,
                indices: &[usize],
            ) -> Option<borch_tensor::Result<borch_data::Sample>> {
                self.images.get_batch(indices)
            }
        }

        impl $ty {
            /// The labels, in order (torchvision's `targets`).
            pub fn targets(&self) -> &[i64] {
                self.images.labels()
            }

            /// Image `index` as raw HWC bytes (torchvision's `data[index]`).
            pub fn data(&self, index: usize) -> Option<Vec<u8>> {
                self.images.hwc(index)
            }
        }
    };
}
pub(crate) use image_dataset;

/// Reads a file, naming it in the error.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| BorchError::Runtime(format!("{}: {e}", path.display())))
}

/// The bytes, gunzipped when they start with gzip's magic (0x1f 0x8b).
pub(crate) fn maybe_gunzip(bytes: &[u8], what: &str) -> Result<Vec<u8>> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| BorchError::Runtime(format!("{what}: not a valid gzip stream ({e})")))?;
        Ok(out)
    } else {
        Ok(bytes.to_vec())
    }
}
