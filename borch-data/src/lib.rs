//! borch's `torch.utils.data`: map-style and iterable datasets, `random_split`, the samplers,
//! `default_collate` and `DataLoader`, with torch's names, defaults and errors.
//!
//! Samplers draw on the host from borch's copy of torch's CPU generator
//! (`borch_tensor::random::draws`), in the order torch draws, so a seed gives torch's index order:
//! `RandomSampler` without a generator seeds a fresh one from the global generator
//! (`torch.empty((), dtype=torch.int64).random_()`), each `DataLoader` pass first draws its base
//! seed from the loader's generator, and so on. Samples are [`Sample`] values: tensors, numbers,
//! strings, lists, tuples and dicts, which is what `default_collate` understands.

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
