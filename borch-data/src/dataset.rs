//! torch's datasets: the map-style `Dataset` and `IterableDataset` traits, and `TensorDataset`,
//! `ConcatDataset`, `Subset`, `ChainDataset`.

use std::rc::Rc;

use borch_tensor::ops::indexing::{self, Index};
use borch_tensor::{BorchError, Result, Tensor};

use crate::dataloader::Source;
use crate::sample::Sample;

/// A map-style dataset (torch's `Dataset` with `__getitem__` and `__len__`).
pub trait Dataset {
    /// `dataset[index]`; a negative index counts from the end where torch's dataset allows it.
    fn get(&self, index: i64) -> Result<Sample>;
    /// `len(dataset)`.
    fn len(&self) -> usize;
    /// Whether the dataset has no samples.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The batch `default_collate([self.get(i) for i in indices])` would make, when the dataset can
    /// gather it in fewer steps (torch's `__getitems__`, here fused with the default collation);
    /// `None` to let the DataLoader fetch and collate sample by sample.
    fn get_batch(&self, indices: &[usize]) -> Option<Result<Sample>> {
        let _ = indices;
        None
    }
}

/// One pass over an iterable dataset.
pub type SampleIter = Box<dyn Iterator<Item = Result<Sample>>>;

/// An iterable dataset (torch's `IterableDataset` with `__iter__`, and `__len__` if it has one).
// `len` may fail (no `__len__`), so an `is_empty` would have to be fallible too.
#[allow(clippy::len_without_is_empty)]
pub trait IterableDataset {
    /// `iter(dataset)`.
    fn iter(&self) -> Result<SampleIter>;
    /// `len(dataset)`: by default Python's `TypeError` for a class without `__len__` (a dataset
    /// written in JavaScript or Python names its own class, as Python's `len()` does).
    fn len(&self) -> Result<usize> {
        Err(BorchError::Type(
            "object of type 'IterableDataset' has no len()".into(),
        ))
    }
}

/// A plain list of samples is a map-style dataset (as a Python list is to torch).
impl Dataset for Vec<Sample> {
    fn get(&self, index: i64) -> Result<Sample> {
        let i = list_index(index, self.len())?;
        Ok(self[i].clone())
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
}

/// Python's list indexing: negative counts from the end; out of range is `IndexError`.
fn list_index(index: i64, len: usize) -> Result<usize> {
    let i = if index < 0 { index + len as i64 } else { index };
    if i < 0 || i >= len as i64 {
        return Err(BorchError::Index("list index out of range".into()));
    }
    Ok(i as usize)
}

/// `TensorDataset(*tensors)`: sample `i` is the tuple of each tensor's row `i`.
#[derive(Debug, Clone)]
pub struct TensorDataset {
    tensors: Vec<Tensor>,
}

impl TensorDataset {
    /// `TensorDataset(*tensors)`; every tensor must have the same size in dim 0.
    pub fn new(tensors: Vec<Tensor>) -> Result<TensorDataset> {
        let rows = |t: &Tensor| t.size_at(0);
        let first = match tensors.first() {
            Some(t) => rows(t)?,
            None => return Err(BorchError::Index("tuple index out of range".into())),
        };
        for t in &tensors {
            if rows(t)? != first {
                return Err(BorchError::Value("Size mismatch between tensors".into()));
            }
        }
        Ok(TensorDataset { tensors })
    }

    /// The tensors, as given.
    pub fn tensors(&self) -> &[Tensor] {
        &self.tensors
    }
}

impl Dataset for TensorDataset {
    fn get(&self, index: i64) -> Result<Sample> {
        let rows = self
            .tensors
            .iter()
            .map(|t| indexing::index(t, &[Index::Select(index as isize)]).map(Sample::Tensor))
            .collect::<Result<Vec<_>>>()?;
        Ok(Sample::Tuple(rows))
    }
    fn len(&self) -> usize {
        self.tensors[0].shape()[0]
    }
    /// One `index_select` per tensor instead of a `select` per sample and a `stack`.
    fn get_batch(&self, indices: &[usize]) -> Option<Result<Sample>> {
        if indices.iter().any(|&i| i >= self.len()) {
            return None;
        }
        let idx: Vec<i64> = indices.iter().map(|&i| i as i64).collect();
        let gathered = Tensor::from_slice(&idx, &[idx.len()]).and_then(|index| {
            self.tensors
                .iter()
                .map(|t| t.index_select(0, &index).map(Sample::Tensor))
                .collect::<Result<Vec<_>>>()
        });
        Some(gathered.map(Sample::List))
    }
}

/// `ConcatDataset(datasets)`: the datasets one after another.
#[derive(Clone)]
pub struct ConcatDataset {
    datasets: Vec<Rc<dyn Dataset>>,
    cumulative_sizes: Vec<usize>,
}

impl ConcatDataset {
    /// `ConcatDataset(datasets)`; at least one dataset.
    pub fn new(datasets: Vec<Rc<dyn Dataset>>) -> Result<ConcatDataset> {
        if datasets.is_empty() {
            return Err(BorchError::Value(
                "datasets should not be an empty iterable".into(),
            ));
        }
        let mut total = 0;
        let cumulative_sizes = datasets
            .iter()
            .map(|d| {
                total += d.len();
                total
            })
            .collect();
        Ok(ConcatDataset {
            datasets,
            cumulative_sizes,
        })
    }

    /// `cumulative_sizes`: the running totals of the datasets' lengths.
    pub fn cumulative_sizes(&self) -> &[usize] {
        &self.cumulative_sizes
    }
}

impl Dataset for ConcatDataset {
    fn get(&self, index: i64) -> Result<Sample> {
        let len = self.len() as i64;
        let idx = if index < 0 {
            if -index > len {
                return Err(BorchError::Value(
                    "absolute value of index should not exceed dataset length".into(),
                ));
            }
            len + index
        } else {
            index
        } as usize;
        // bisect_right: the first dataset whose running total exceeds idx.
        let d = self.cumulative_sizes.partition_point(|&c| c <= idx);
        let dataset = self
            .datasets
            .get(d)
            .ok_or_else(|| BorchError::Index("list index out of range".into()))?;
        let start = if d == 0 {
            0
        } else {
            self.cumulative_sizes[d - 1]
        };
        dataset.get((idx - start) as i64)
    }
    fn len(&self) -> usize {
        self.cumulative_sizes.last().copied().unwrap_or(0)
    }
}

impl std::fmt::Debug for ConcatDataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ConcatDataset(cumulative_sizes={:?})",
            self.cumulative_sizes
        )
    }
}

/// `Subset(dataset, indices)`: the dataset seen through a list of indices.
#[derive(Clone)]
pub struct Subset {
    dataset: Rc<dyn Dataset>,
    indices: Vec<i64>,
}

impl Subset {
    /// `Subset(dataset, indices)`.
    pub fn new(dataset: Rc<dyn Dataset>, indices: Vec<i64>) -> Subset {
        Subset { dataset, indices }
    }

    /// `subset.indices`.
    pub fn indices(&self) -> &[i64] {
        &self.indices
    }

    /// `subset.dataset`.
    pub fn dataset(&self) -> &Rc<dyn Dataset> {
        &self.dataset
    }
}

impl std::fmt::Debug for Subset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Subset(len={}, indices={:?})",
            self.indices.len(),
            self.indices
        )
    }
}

impl Dataset for Subset {
    fn get(&self, index: i64) -> Result<Sample> {
        let i = list_index(index, self.indices.len())?;
        self.dataset.get(self.indices[i])
    }
    fn len(&self) -> usize {
        self.indices.len()
    }
    fn get_batch(&self, indices: &[usize]) -> Option<Result<Sample>> {
        let inner = indices
            .iter()
            .map(|&i| self.indices.get(i).and_then(|&j| usize::try_from(j).ok()))
            .collect::<Option<Vec<usize>>>()?;
        self.dataset.get_batch(&inner)
    }
}

/// `ChainDataset(datasets)`: iterable datasets one after another, each one's pass in turn (torch's
/// `yield from` over each). As torch, a map-style dataset among them is refused when the pass (or
/// `len`) reaches it: torch's `AssertionError` "ChainDataset only supports IterableDataset" is a
/// `ValueError` here.
#[derive(Clone)]
pub struct ChainDataset {
    datasets: Vec<Source>,
}

impl ChainDataset {
    /// `ChainDataset(datasets)`.
    pub fn new(datasets: Vec<Source>) -> ChainDataset {
        ChainDataset { datasets }
    }

    /// `chain.datasets`.
    pub fn datasets(&self) -> &[Source] {
        &self.datasets
    }
}

fn chain_only_iterable() -> BorchError {
    BorchError::Value("ChainDataset only supports IterableDataset".into())
}

impl IterableDataset for ChainDataset {
    fn iter(&self) -> Result<SampleIter> {
        let mut datasets = self.datasets.clone().into_iter();
        let mut current: Option<SampleIter> = None;
        Ok(Box::new(std::iter::from_fn(move || {
            loop {
                if let Some(s) = current.as_mut().and_then(Iterator::next) {
                    return Some(s);
                }
                current = None;
                match datasets.next()? {
                    Source::Iterable(d) => match d.iter() {
                        Ok(it) => current = Some(it),
                        Err(e) => {
                            datasets = Vec::new().into_iter();
                            return Some(Err(e));
                        }
                    },
                    Source::Map(_) => {
                        datasets = Vec::new().into_iter();
                        return Some(Err(chain_only_iterable()));
                    }
                }
            }
        })))
    }

    fn len(&self) -> Result<usize> {
        self.datasets.iter().try_fold(0, |total, d| match d {
            Source::Iterable(d) => Ok(total + d.len()?),
            Source::Map(_) => Err(chain_only_iterable()),
        })
    }
}

impl std::fmt::Debug for ChainDataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ChainDataset(datasets={})", self.datasets.len())
    }
}
