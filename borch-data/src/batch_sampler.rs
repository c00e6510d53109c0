//! torch's `BatchSampler`: a sampler's indices in lists of `batch_size`.

use std::rc::Rc;

use borch_tensor::{BorchError, Result};

use crate::sampler::{Sampler, SamplerIter};

/// `BatchSampler(sampler, batch_size, drop_last)`.
#[derive(Clone)]
pub struct BatchSampler {
    sampler: Rc<dyn Sampler>,
    batch_size: usize,
    drop_last: bool,
}

impl std::fmt::Debug for BatchSampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "BatchSampler(batch_size={}, drop_last={})",
            self.batch_size, self.drop_last
        )
    }
}

impl BatchSampler {
    /// `BatchSampler(sampler, batch_size, drop_last)`; `batch_size` must be positive.
    pub fn new(sampler: Rc<dyn Sampler>, batch_size: usize, drop_last: bool) -> Result<Self> {
        if batch_size == 0 {
            return Err(BorchError::Value(format!(
                "batch_size should be a positive integer value, but got batch_size={batch_size}"
            )));
        }
        Ok(BatchSampler {
            sampler,
            batch_size,
            drop_last,
        })
    }

    /// `sampler`: where the indices come from.
    pub fn sampler(&self) -> &Rc<dyn Sampler> {
        &self.sampler
    }
    /// `batch_size`: indices per batch.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }
    /// `drop_last`: whether the last, short batch is dropped.
    pub fn drop_last(&self) -> bool {
        self.drop_last
    }
}

/// Takes `batch_size` indices at a time; like torch's `islice`/`zip`, it asks the inner pass for
/// one more index after the last full batch, which is when a random sampler draws its final block.
struct Batches {
    inner: SamplerIter<usize>,
    batch_size: usize,
    drop_last: bool,
    done: bool,
}

impl Iterator for Batches {
    type Item = Result<Vec<usize>>;
    fn next(&mut self) -> Option<Result<Vec<usize>>> {
        if self.done {
            return None;
        }
        let mut batch = Vec::with_capacity(self.batch_size);
        while batch.len() < self.batch_size {
            match self.inner.next() {
                Some(Ok(i)) => batch.push(i),
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(e));
                }
                None => {
                    self.done = true;
                    break;
                }
            }
        }
        if batch.is_empty() || (self.drop_last && batch.len() < self.batch_size) {
            return None;
        }
        Some(Ok(batch))
    }
}

impl Sampler<Vec<usize>> for BatchSampler {
    fn iter(&self) -> SamplerIter<Vec<usize>> {
        Box::new(Batches {
            inner: self.sampler.iter(),
            batch_size: self.batch_size,
            drop_last: self.drop_last,
            done: false,
        })
    }
    fn len(&self) -> usize {
        let n = self.sampler.len();
        if self.drop_last {
            n / self.batch_size
        } else {
            n.div_ceil(self.batch_size)
        }
    }
}
