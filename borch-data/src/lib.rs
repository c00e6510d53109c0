//! borch's `torch.utils.data`: map-style and iterable datasets, `random_split`, the samplers,
//! `default_collate` and `DataLoader`, with torch's names, defaults and errors.
//!
//! Samplers draw on the host from borch's copy of torch's CPU generator
//! (`borch_tensor::random::draws`), in the order torch draws, so a seed gives torch's index order:
//! `RandomSampler` without a generator seeds a fresh one from the global generator
//! (`torch.empty((), dtype=torch.int64).random_()`), each `DataLoader` pass first draws its base
//! seed from the loader's generator, and so on. Samples are [`Sample`] values: tensors, numbers,
//! strings, lists, tuples and dicts, which is what `default_collate` understands.
//!
//! ```
//! use std::rc::Rc;
//! use borch_data::{DataLoader, DataLoaderOptions, TensorDataset, random_split};
//! use borch_tensor::{Tensor, manual_seed};
//!
//! # fn main() -> borch_tensor::Result<()> {
//! manual_seed(0);
//! let x = Tensor::from_slice(&[0.0f32; 40], &[10, 4])?;
//! let y = Tensor::from_slice(&[0i64; 10], &[10])?;
//! let dataset = Rc::new(TensorDataset::new(vec![x, y])?);
//! let [train, _test] = <[_; 2]>::try_from(random_split(dataset, &[0.8, 0.2], None)?)
//!     .expect("two parts");
//! let options = DataLoaderOptions { batch_size: Some(4), shuffle: Some(true), ..Default::default() };
//! let loader = DataLoader::new(Rc::new(train), options)?;
//! assert_eq!(loader.len()?, 2);
//! for batch in loader.iter()? {
//!     let xy = batch?.tensors()?; // [x: [4, 4], y: [4]]
//!     assert_eq!(xy[0].shape()[1], 4);
//! }
//! # Ok(())
//! # }
//! ```

mod batch_sampler;
mod collate;
mod dataloader;
mod dataset;
mod sample;
mod sampler;
mod split;

pub use batch_sampler::BatchSampler;
pub use collate::{CollateFn, default_collate, default_convert};
pub use dataloader::{DataLoader, DataLoaderIter, DataLoaderOptions, Source};
pub use dataset::{ConcatDataset, Dataset, IterableDataset, SampleIter, Subset, TensorDataset};
pub use sample::Sample;
pub use sampler::{
    RandomSampler, Sampler, SamplerIter, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
};
pub use split::random_split;
