//! A character-level corpus for [`super::Gpt`], as nanoGPT's `shakespeare_char` prepares one:
//! the vocabulary is the text's sorted distinct characters, a token its index there, and a
//! training batch is `batch` windows of `block_size` tokens at offsets drawn by
//! `torch.randint(len(data) - block_size, (batch,))` from the default generator, the targets
//! being the same windows shifted by one.

use borch_tensor::random::draws::randint;
use borch_tensor::{BorchError, Result, Tensor};

/// The text as token ids, with its vocabulary.
pub struct CharCorpus {
    /// The sorted distinct characters (`sorted(set(text))`).
    pub vocab: Vec<char>,
    /// Every character of the text as its index in `vocab`.
    pub data: Vec<i64>,
}

impl CharCorpus {
    /// The corpus of `text`.
    pub fn new(text: &str) -> CharCorpus {
        let mut vocab: Vec<char> = text.chars().collect();
        vocab.sort_unstable();
        vocab.dedup();
        let data = text
            .chars()
            .map(|c| vocab.binary_search(&c).expect("in vocab") as i64)
            .collect();
        CharCorpus { vocab, data }
    }

    /// `torch.randint(len(data) - block_size, (batch,)).tolist()` from the default generator.
    pub fn draw_offsets(&self, batch: usize, block_size: usize) -> Result<Vec<i64>> {
        if self.data.len() <= block_size {
            return Err(BorchError::Value(format!(
                "the text ({} characters) is not longer than block_size {block_size}",
                self.data.len()
            )));
        }
        randint(0, (self.data.len() - block_size) as i64, batch, None)
    }

    /// The inputs and targets at `offsets`: two `(offsets.len(), block_size)` int64 tensors.
    pub fn batch(&self, offsets: &[i64], block_size: usize) -> Result<(Tensor, Tensor)> {
        let last = self.data.len().saturating_sub(block_size) as i64;
        if let Some(bad) = offsets.iter().find(|&&i| i < 0 || i >= last) {
            return Err(BorchError::Index(format!(
                "offset {bad} is out of range for windows of {block_size} + 1 characters in a \
                 text of {}",
                self.data.len()
            )));
        }
        let window = |shift: usize| -> Vec<i64> {
            offsets
                .iter()
                .flat_map(|&i| &self.data[i as usize + shift..i as usize + shift + block_size])
                .copied()
                .collect()
        };
        let shape = [offsets.len(), block_size];
        Ok((
            Tensor::from_slice(&window(0), &shape)?,
            Tensor::from_slice(&window(1), &shape)?,
        ))
    }

    /// Token ids back to text.
    pub fn decode(&self, ids: &[i64]) -> String {
        ids.iter().map(|&i| self.vocab[i as usize]).collect()
    }
}
