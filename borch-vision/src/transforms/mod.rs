//! torchvision's `transforms` on tensors: images are `(..., C, H, W)` float32 tensors (CHW, or
//! NCHW where torchvision takes a batch), on the GPU where they already are. Names, argument
//! order, defaults and error messages follow torchvision 0.29; the random transforms draw from
//! torch's generator exactly as torchvision draws, so after `manual_seed` a pipeline crops and
//! flips as torchvision does. Raw HWC `u8` pixels (a `Uint8Array`, an `ImageData`'s RGBA bytes)
//! become tensors through [`ToTensor`] (÷255, float32) or [`PILToTensor`] (values kept, int64:
//! borch has no uint8).
//!
//! ```no_run
//! use borch_vision::transforms::{Compose, Normalize, RandomCrop, RandomHorizontalFlip, Transform};
//! # fn main() -> borch_tensor::Result<()> {
//! let augment = Compose::new(vec![
//!     Box::new(RandomCrop::new(&[32]).padding(&[4])),
//!     Box::new(RandomHorizontalFlip::new(0.5)),
//!     Box::new(Normalize::new(&[0.49, 0.48, 0.45], &[0.25, 0.24, 0.26])),
//! ]);
//! borch_tensor::manual_seed(0);
//! let x = borch_tensor::rand(&[3, 32, 32], None)?;
//! let y = augment.forward(&x)?; // torchvision's crop and flip for this seed
//! # Ok(())
//! # }
//! ```

mod convert;
mod geometry;
mod random;

pub mod catalog;

pub use convert::{Normalize, PILToTensor, ToTensor};
pub use geometry::{CenterCrop, Resize, center_crop, crop, hflip, pad, resize, vflip};
pub use random::{RandomCrop, RandomHorizontalFlip, RandomResizedCrop, RandomVerticalFlip};

use borch_tensor::{BorchError, Result, Tensor};

/// A transform on an image tensor (torchvision's `transform(img)`).
pub trait Transform {
    /// Applies the transform (torchvision's `forward`).
    fn forward(&self, img: &Tensor) -> Result<Tensor>;

    /// Whether [`Transform::forward_batch`] can stand in for `forward` on each image of a batch:
    /// a dataset then transforms a whole minibatch in a few dispatches instead of a few per image.
    fn batches(&self) -> bool {
        false
    }

    /// Whether the transform draws from a generator.
    fn draws(&self) -> bool {
        false
    }

    /// The images of an `(N, C, H, W)` batch each through the transform, exactly as `N` calls of
    /// `forward` in order give them (the same draws from the generator, in the same order, and
    /// the same values), stacked. Only for transforms whose [`Transform::batches`] is true.
    fn forward_batch(&self, batch: &Tensor) -> Result<Tensor> {
        let _ = batch;
        Err(BorchError::NotImplemented(
            "this transform has no batched path (Transform::batches is false)".into(),
        ))
    }
}

/// `Compose(transforms)`: the transforms applied in order.
pub struct Compose {
    transforms: Vec<Box<dyn Transform>>,
}

impl Compose {
    /// `Compose(transforms)`.
    pub fn new(transforms: Vec<Box<dyn Transform>>) -> Compose {
        Compose { transforms }
    }

    /// The transforms, in order.
    pub fn transforms(&self) -> &[Box<dyn Transform>] {
        &self.transforms
    }
}

impl Transform for Compose {
    fn forward(&self, img: &Tensor) -> Result<Tensor> {
        let mut x = img.clone();
        for t in &self.transforms {
            x = t.forward(&x)?;
        }
        Ok(x)
    }

    /// Each transform over the whole batch in turn draws for every image before the next
    /// transform draws, which is the per-image order only when at most one of them draws.
    fn batches(&self) -> bool {
        self.transforms.iter().all(|t| t.batches())
            && self.transforms.iter().filter(|t| t.draws()).count() <= 1
    }

    fn draws(&self) -> bool {
        self.transforms.iter().any(|t| t.draws())
    }

    fn forward_batch(&self, batch: &Tensor) -> Result<Tensor> {
        let mut x = batch.clone();
        for t in &self.transforms {
            x = t.forward_batch(&x)?;
        }
        Ok(x)
    }
}

/// torchvision's `_setup_size`: one value is a square `(s, s)`, two are `(h, w)`.
pub(crate) fn setup_size(size: &[usize], error_msg: &str) -> Result<[usize; 2]> {
    match size {
        [s] => Ok([*s, *s]),
        [h, w] => Ok([*h, *w]),
        _ => Err(BorchError::Value(error_msg.into())),
    }
}

/// torchvision's `get_dimensions` on a tensor: `(channels, height, width)`.
pub(crate) fn dimensions(img: &Tensor) -> Result<(usize, usize, usize)> {
    let s = img.shape();
    if s.len() < 2 {
        return Err(BorchError::Type("Tensor is not a torch image.".into()));
    }
    let c = if s.len() == 2 { 1 } else { s[s.len() - 3] };
    Ok((c, s[s.len() - 2], s[s.len() - 1]))
}
