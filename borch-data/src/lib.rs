#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

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
pub use dataset::{
    ChainDataset, ConcatDataset, Dataset, IterableDataset, SampleIter, Subset, TensorDataset,
};
pub use sample::Sample;
pub use sampler::{
    RandomSampler, Sampler, SamplerIter, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
};
pub use split::random_split;
