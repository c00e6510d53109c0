//! torch's `DataLoader` (single process): a sampler or batch sampler over a dataset, each batch
//! fetched and collated. Each pass first draws torch's base seed from the loader's generator (the
//! global one by default), so the sampler's draws that follow are torch's.

use std::rc::Rc;

use borch_tensor::random::draws;
use borch_tensor::{BorchError, Generator, Result};

use crate::batch_sampler::BatchSampler;
use crate::collate::{CollateFn, default_collate, default_convert};
use crate::dataset::{Dataset, IterableDataset, SampleIter};
use crate::sample::Sample;
use crate::sampler::{RandomSampler, Sampler, SamplerIter, SequentialSampler};

/// What a DataLoader reads: a map-style or an iterable dataset.
#[derive(Clone)]
pub enum Source {
    /// A map-style dataset (`__getitem__` and `__len__`).
    Map(Rc<dyn Dataset>),
    /// An iterable dataset (`__iter__`).
    Iterable(Rc<dyn IterableDataset>),
}

impl<D: Dataset + 'static> From<Rc<D>> for Source {
    fn from(d: Rc<D>) -> Source {
        Source::Map(d)
    }
}

impl From<Rc<dyn Dataset>> for Source {
    fn from(d: Rc<dyn Dataset>) -> Source {
        Source::Map(d)
    }
}

impl From<Rc<crate::dataset::ChainDataset>> for Source {
    fn from(d: Rc<crate::dataset::ChainDataset>) -> Source {
        Source::Iterable(d)
    }
}

impl From<Rc<dyn IterableDataset>> for Source {
    fn from(d: Rc<dyn IterableDataset>) -> Source {
        Source::Iterable(d)
    }
}

/// `DataLoader`'s keyword arguments, with torch's defaults.
#[derive(Clone)]
pub struct DataLoaderOptions {
    /// `batch_size=1`; `None` turns batching off.
    pub batch_size: Option<usize>,
    /// `shuffle=None`.
    pub shuffle: Option<bool>,
    /// `sampler=None`: the index order (excludes `shuffle`).
    pub sampler: Option<Rc<dyn Sampler>>,
    /// `batch_sampler=None`: whole batches of indices (excludes `batch_size`, `shuffle`, `sampler`, `drop_last`).
    pub batch_sampler: Option<Rc<dyn Sampler<Vec<usize>>>>,
    /// `drop_last=False`: drop the last, incomplete batch.
    pub drop_last: bool,
    /// `None`: `default_collate` when batching, `default_convert` when not.
    pub collate_fn: Option<CollateFn>,
    /// `generator=None`: the generator for the base seed and the shuffle (the global one by default).
    pub generator: Option<Generator>,
}

impl Default for DataLoaderOptions {
    fn default() -> DataLoaderOptions {
        DataLoaderOptions {
            batch_size: Some(1),
            shuffle: None,
            sampler: None,
            batch_sampler: None,
            drop_last: false,
            collate_fn: None,
            generator: None,
        }
    }
}

/// The indices a pass asks for: batches (auto-collation) or single indices.
#[derive(Clone)]
enum IndexSampler {
    Batches(Rc<dyn Sampler<Vec<usize>>>),
    Single(Rc<dyn Sampler>),
}

/// `DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
/// collate_fn=None, drop_last=False, generator=None)` with `num_workers=0`.
#[derive(Clone)]
pub struct DataLoader {
    source: Source,
    batch_size: Option<usize>,
    drop_last: bool,
    index_sampler: IndexSampler,
    collate_fn: Option<CollateFn>,
    generator: Option<Generator>,
}

fn value_error<T>(msg: &str) -> Result<T> {
    Err(BorchError::Value(msg.into()))
}

impl DataLoader {
    /// `DataLoader(dataset, **options)`, with torch's checks of the options against each other.
    pub fn new(source: impl Into<Source>, options: DataLoaderOptions) -> Result<DataLoader> {
        let source = source.into();
        let DataLoaderOptions {
            mut batch_size,
            shuffle,
            sampler,
            batch_sampler,
            mut drop_last,
            collate_fn,
            generator,
        } = options;
        let shuffle = match &source {
            Source::Iterable(_) => {
                if let Some(true) = shuffle {
                    return Err(BorchError::Value(
                        "DataLoader with IterableDataset: expected unspecified shuffle option, \
                         but got shuffle=True"
                            .into(),
                    ));
                }
                if sampler.is_some() {
                    return value_error(
                        "DataLoader with IterableDataset: expected unspecified sampler option",
                    );
                }
                if batch_sampler.is_some() {
                    return value_error(
                        "DataLoader with IterableDataset: expected unspecified batch_sampler \
                         option",
                    );
                }
                false
            }
            Source::Map(_) => shuffle.unwrap_or(false),
        };
        if sampler.is_some() && shuffle {
            return value_error("sampler option is mutually exclusive with shuffle");
        }
        if batch_sampler.is_some() {
            if batch_size != Some(1) || shuffle || sampler.is_some() || drop_last {
                return value_error(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, \
                     sampler, and drop_last",
                );
            }
            batch_size = None;
            drop_last = false;
        } else if batch_size.is_none() && drop_last {
            return value_error(
                "batch_size=None option disables auto-batching and is mutually exclusive with \
                 drop_last",
            );
        }
        let sampler: Rc<dyn Sampler> = match (sampler, &source) {
            (Some(s), _) => s,
            // torch's _InfiniteConstantSampler: the fetcher ignores the indices.
            (None, Source::Iterable(_)) => Rc::new(SequentialSampler::new(usize::MAX)),
            (None, Source::Map(d)) if shuffle => {
                Rc::new(RandomSampler::new(d.len(), false, None, generator.clone())?)
            }
            (None, Source::Map(d)) => Rc::new(SequentialSampler::new(d.len())),
        };
        let index_sampler = match (batch_sampler, batch_size) {
            (Some(b), _) => IndexSampler::Batches(b),
            (None, Some(bs)) => {
                IndexSampler::Batches(Rc::new(BatchSampler::new(sampler, bs, drop_last)?))
            }
            (None, None) => IndexSampler::Single(sampler),
        };
        Ok(DataLoader {
            source,
            batch_size,
            drop_last,
            index_sampler,
            collate_fn,
            generator,
        })
    }

    /// `loader.batch_size` (`None` with a batch sampler or batching off).
    pub fn batch_size(&self) -> Option<usize> {
        self.batch_size
    }

    /// `loader.drop_last`.
    pub fn drop_last(&self) -> bool {
        self.drop_last
    }

    /// `len(loader)`: the index sampler's length, or for an iterable dataset its length in
    /// batches (a `TypeError` when it has none).
    pub fn len(&self) -> Result<usize> {
        match &self.source {
            Source::Iterable(d) => {
                let n = d.len()?;
                Ok(match self.batch_size {
                    Some(bs) if self.drop_last => n / bs,
                    Some(bs) => n.div_ceil(bs),
                    None => n,
                })
            }
            Source::Map(_) => Ok(match &self.index_sampler {
                IndexSampler::Batches(b) => b.len(),
                IndexSampler::Single(s) => s.len(),
            }),
        }
    }

    /// Whether a pass yields no batch.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// One pass (`iter(loader)`): draws the base seed now, the sampler's values as batches are
    /// asked for.
    pub fn iter(&self) -> Result<DataLoaderIter> {
        draws::random_int64(self.generator.as_ref());
        let dataset_iter = match &self.source {
            Source::Iterable(d) => Some(d.iter()?),
            Source::Map(_) => None,
        };
        Ok(DataLoaderIter {
            loader: self.clone(),
            indices: None,
            dataset_iter,
            ended: false,
        })
    }

    fn collate(&self, batch: Vec<Sample>) -> Result<Sample> {
        match &self.collate_fn {
            Some(f) => f(batch),
            None => default_collate(batch),
        }
    }

    fn convert(&self, sample: Sample) -> Result<Sample> {
        match &self.collate_fn {
            Some(f) => f(vec![sample]),
            None => default_convert(sample),
        }
    }
}

/// The indices of one pass, made at its first `next` as torch's generator functions start.
enum Indices {
    Batches(SamplerIter<Vec<usize>>),
    Single(SamplerIter<usize>),
}

/// One pass of a DataLoader: `Result`s of collated batches.
pub struct DataLoaderIter {
    loader: DataLoader,
    indices: Option<Indices>,
    dataset_iter: Option<SampleIter>,
    ended: bool,
}

impl DataLoaderIter {
    fn fetch(&mut self) -> Option<Result<Sample>> {
        let indices = self
            .indices
            .get_or_insert_with(|| match &self.loader.index_sampler {
                IndexSampler::Batches(b) => Indices::Batches(b.iter()),
                IndexSampler::Single(s) => Indices::Single(s.iter()),
            });
        match (&self.loader.source, indices) {
            (Source::Map(d), Indices::Batches(it)) => {
                let batch = match it.next()? {
                    Ok(b) => b,
                    Err(e) => return Some(Err(e)),
                };
                if self.loader.collate_fn.is_none() {
                    if let Some(collated) = d.get_batch(&batch) {
                        return Some(collated);
                    }
                }
                let samples: Result<Vec<Sample>> = batch.iter().map(|&i| d.get(i as i64)).collect();
                Some(samples.and_then(|s| self.loader.collate(s)))
            }
            (Source::Map(d), Indices::Single(it)) => {
                let i = match it.next()? {
                    Ok(i) => i,
                    Err(e) => return Some(Err(e)),
                };
                Some(d.get(i as i64).and_then(|s| self.loader.convert(s)))
            }
            (Source::Iterable(_), Indices::Batches(it)) => {
                if self.ended {
                    return None;
                }
                let want = match it.next()? {
                    Ok(b) => b.len(),
                    Err(e) => return Some(Err(e)),
                };
                let data_iter = self.dataset_iter.as_mut()?;
                let mut data = Vec::with_capacity(want);
                while data.len() < want {
                    match data_iter.next() {
                        Some(Ok(s)) => data.push(s),
                        Some(Err(e)) => return Some(Err(e)),
                        None => {
                            self.ended = true;
                            break;
                        }
                    }
                }
                if data.is_empty() || (self.loader.drop_last && data.len() < want) {
                    return None;
                }
                Some(self.loader.collate(data))
            }
            (Source::Iterable(_), Indices::Single(_)) => {
                let s = self.dataset_iter.as_mut()?.next()?;
                Some(s.and_then(|s| self.loader.convert(s)))
            }
        }
    }
}

impl Iterator for DataLoaderIter {
    type Item = Result<Sample>;
    fn next(&mut self) -> Option<Result<Sample>> {
        self.fetch()
    }
}
