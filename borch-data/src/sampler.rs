//! torch's index samplers. Each pass draws lazily, as torch's generator functions do: nothing is
//! drawn before the first `next`, and each block (a `randperm`, a chunk of 32 `randint`s) is drawn
//! when the pass reaches it, so a seed gives torch's order and leaves the generator where torch
//! leaves it.

use std::collections::VecDeque;

use borch_tensor::random::draws;
use borch_tensor::{BorchError, Generator, Result};

/// One pass of a sampler: items, or the error torch would raise at that `next`.
pub type SamplerIter<T> = Box<dyn Iterator<Item = Result<T>>>;

/// torch's `Sampler[T]`: an iterable of indices (or of index lists, for a batch sampler) with a
/// length.
pub trait Sampler<T = usize> {
    /// One pass (`iter(sampler)`).
    fn iter(&self) -> SamplerIter<T>;
    /// `len(sampler)`.
    fn len(&self) -> usize;
    /// Whether a pass yields nothing.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn value_error<T>(msg: String) -> Result<T> {
    Err(BorchError::Value(msg))
}

/// `SequentialSampler(data_source)`: 0, 1, …, n - 1, for a data source of length `n`.
#[derive(Debug, Clone)]
pub struct SequentialSampler {
    n: usize,
}

impl SequentialSampler {
    /// `SequentialSampler` over a data source of length `n`.
    pub fn new(n: usize) -> SequentialSampler {
        SequentialSampler { n }
    }
}

impl Sampler for SequentialSampler {
    fn iter(&self) -> SamplerIter<usize> {
        Box::new((0..self.n).map(Ok))
    }
    fn len(&self) -> usize {
        self.n
    }
}

/// What one block of a random pass draws.
#[derive(Debug, Clone, Copy)]
enum Block {
    /// `randint(high=n, size=(k,))`.
    Randint(usize),
    /// `randperm(n)[:k]`.
    Randperm(usize),
}

/// A lazy pass over blocks: the generator is made (or seeded from the global one) at the first
/// `next`, each block drawn when reached.
struct BlockIter {
    n: usize,
    blocks: VecDeque<Block>,
    generator: Option<Generator>,
    /// `None` until the first `next`.
    resolved: Option<Generator>,
    buffer: VecDeque<usize>,
    failed: bool,
}

impl BlockIter {
    fn generator(&mut self) -> Generator {
        if self.resolved.is_none() {
            self.resolved = Some(match &self.generator {
                Some(g) => g.clone(),
                None => Generator::with_seed(draws::random_int64(None) as u64),
            });
        }
        self.resolved.clone().unwrap_or_default()
    }
}

impl Iterator for BlockIter {
    type Item = Result<usize>;
    fn next(&mut self) -> Option<Result<usize>> {
        loop {
            if let Some(i) = self.buffer.pop_front() {
                return Some(Ok(i));
            }
            if self.failed {
                return None;
            }
            let block = self.blocks.pop_front()?;
            let g = self.generator();
            match block {
                Block::Randint(k) => match draws::randint(0, self.n as i64, k, Some(&g)) {
                    Ok(v) => self.buffer.extend(v.into_iter().map(|i| i as usize)),
                    Err(e) => {
                        self.failed = true;
                        return Some(Err(e));
                    }
                },
                Block::Randperm(k) => {
                    let perm = draws::randperm(self.n, Some(&g));
                    self.buffer
                        .extend(perm.into_iter().take(k).map(|i| i as usize));
                }
            }
        }
    }
}

/// `RandomSampler(data_source, replacement=False, num_samples=None, generator=None)`, for a data
/// source of length `n`.
#[derive(Debug, Clone)]
pub struct RandomSampler {
    n: usize,
    replacement: bool,
    num_samples: Option<usize>,
    generator: Option<Generator>,
}

impl RandomSampler {
    /// `RandomSampler(data_source, replacement, num_samples, generator)` over a data source of length `n`.
    pub fn new(
        n: usize,
        replacement: bool,
        num_samples: Option<usize>,
        generator: Option<Generator>,
    ) -> Result<RandomSampler> {
        let s = RandomSampler {
            n,
            replacement,
            num_samples,
            generator,
        };
        if s.num_samples() == 0 {
            return value_error(format!(
                "num_samples should be a positive integer value, but got num_samples={}",
                s.num_samples()
            ));
        }
        Ok(s)
    }

    /// `num_samples`: the given count, else the data source's length.
    pub fn num_samples(&self) -> usize {
        self.num_samples.unwrap_or(self.n)
    }

    /// `replacement`: whether indices are drawn with replacement.
    pub fn replacement(&self) -> bool {
        self.replacement
    }

    /// `generator`, when one was given.
    pub fn generator(&self) -> Option<&Generator> {
        self.generator.as_ref()
    }
}

impl Sampler for RandomSampler {
    fn iter(&self) -> SamplerIter<usize> {
        let k = self.num_samples();
        let mut blocks = VecDeque::new();
        if self.replacement {
            blocks.extend(std::iter::repeat_n(Block::Randint(32), k / 32));
            blocks.push_back(Block::Randint(k % 32));
        } else if self.n == 0 {
            return Box::new(std::iter::once(Err(BorchError::Runtime(
                "integer division or modulo by zero".into(),
            ))));
        } else {
            blocks.extend(std::iter::repeat_n(Block::Randperm(self.n), k / self.n));
            blocks.push_back(Block::Randperm(k % self.n));
        }
        Box::new(BlockIter {
            n: self.n,
            blocks,
            generator: self.generator.clone(),
            resolved: None,
            buffer: VecDeque::new(),
            failed: false,
        })
    }
    fn len(&self) -> usize {
        self.num_samples()
    }
}

/// Draws once, at the first `next` of a pass.
struct OnFirstNext<F: FnOnce() -> Result<Vec<usize>>> {
    draw: Option<F>,
    drawn: std::vec::IntoIter<usize>,
}

impl<F: FnOnce() -> Result<Vec<usize>>> Iterator for OnFirstNext<F> {
    type Item = Result<usize>;
    fn next(&mut self) -> Option<Result<usize>> {
        if let Some(draw) = self.draw.take() {
            match draw() {
                Ok(v) => self.drawn = v.into_iter(),
                Err(e) => return Some(Err(e)),
            }
        }
        self.drawn.next().map(Ok)
    }
}

fn on_first_next(draw: impl FnOnce() -> Result<Vec<usize>> + 'static) -> SamplerIter<usize> {
    Box::new(OnFirstNext {
        draw: Some(draw),
        drawn: Vec::new().into_iter(),
    })
}

/// `SubsetRandomSampler(indices, generator=None)`: the indices in `randperm` order, drawn from the
/// generator (the global one when none is given).
#[derive(Debug, Clone)]
pub struct SubsetRandomSampler {
    indices: Vec<usize>,
    generator: Option<Generator>,
}

impl SubsetRandomSampler {
    /// `SubsetRandomSampler(indices, generator)`.
    pub fn new(indices: Vec<usize>, generator: Option<Generator>) -> SubsetRandomSampler {
        SubsetRandomSampler { indices, generator }
    }
}

impl Sampler for SubsetRandomSampler {
    fn iter(&self) -> SamplerIter<usize> {
        let (indices, generator) = (self.indices.clone(), self.generator.clone());
        on_first_next(move || {
            let perm = draws::randperm(indices.len(), generator.as_ref());
            Ok(perm.into_iter().map(|i| indices[i as usize]).collect())
        })
    }
    fn len(&self) -> usize {
        self.indices.len()
    }
}

/// `WeightedRandomSampler(weights, num_samples, replacement=True, generator=None)`: one
/// `torch.multinomial` over the weights (as doubles) per pass.
#[derive(Debug, Clone)]
pub struct WeightedRandomSampler {
    weights: Vec<f64>,
    num_samples: usize,
    replacement: bool,
    generator: Option<Generator>,
}

impl WeightedRandomSampler {
    /// `WeightedRandomSampler(weights, num_samples, replacement, generator)`, with torch's checks.
    pub fn new(
        weights: Vec<f64>,
        num_samples: usize,
        replacement: bool,
        generator: Option<Generator>,
    ) -> Result<WeightedRandomSampler> {
        if num_samples == 0 {
            return value_error(format!(
                "num_samples should be a positive integer value, but got num_samples={num_samples}"
            ));
        }
        Ok(WeightedRandomSampler {
            weights,
            num_samples,
            replacement,
            generator,
        })
    }
}

impl Sampler for WeightedRandomSampler {
    fn iter(&self) -> SamplerIter<usize> {
        let s = self.clone();
        on_first_next(move || {
            let drawn = draws::multinomial(
                &s.weights,
                s.num_samples,
                s.replacement,
                s.generator.as_ref(),
            )?;
            Ok(drawn.into_iter().map(|i| i as usize).collect())
        })
    }
    fn len(&self) -> usize {
        self.num_samples
    }
}
