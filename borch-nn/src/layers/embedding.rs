//! Embedding.

use borch_tensor::{Result, Tensor};

use super::parameter;
use crate::functional::{self as F, padding_index};
use crate::init;
use crate::module::Module;
use crate::{display_as_repr, training_flag};

/// torch's `nn.Embedding(num_embeddings, embedding_dim, padding_idx)`: a lookup table whose
/// `padding_idx` row starts at zero and gets no gradient.
pub struct Embedding {
    /// torch's `num_embeddings`: the size of the dictionary.
    pub num_embeddings: usize,
    /// torch's `embedding_dim`: the size of each embedding vector.
    pub embedding_dim: usize,
    /// Stored non-negative, as torch wraps a negative `padding_idx`.
    pub padding_idx: Option<usize>,
    /// torch's `weight` parameter.
    pub weight: Tensor,
    training: bool,
}

impl Embedding {
    /// `Embedding(num_embeddings, embedding_dim)`, weight from N(0, 1).
    pub fn new(num_embeddings: usize, embedding_dim: usize) -> Result<Embedding> {
        Embedding::with_padding_idx(num_embeddings, embedding_dim, None)
    }

    /// `Embedding(num_embeddings, embedding_dim, padding_idx=…)`; negative counts from the end.
    pub fn with_padding_idx(
        num_embeddings: usize,
        embedding_dim: usize,
        padding_idx: Option<i64>,
    ) -> Result<Embedding> {
        let padding_idx = padding_index(padding_idx, num_embeddings)?;
        let weight = parameter(&[num_embeddings, embedding_dim])?;
        let layer = Embedding {
            num_embeddings,
            embedding_dim,
            padding_idx,
            weight,
            training: true,
        };
        layer.reset_parameters()?;
        Ok(layer)
    }

    /// torch's `reset_parameters`: `normal_(weight)`, then the padding row zeroed.
    pub fn reset_parameters(&self) -> Result<()> {
        init::normal_(&self.weight, 0.0, 1.0)?;
        if let Some(p) = self.padding_idx {
            borch_autograd::no_grad(|| self.weight.select(0, p as isize)?.fill_(0.0))?;
        }
        Ok(())
    }
}

impl Module for Embedding {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::embedding(input, &self.weight, self.padding_idx.map(|p| p as i64))
    }
    fn name(&self) -> String {
        "Embedding".into()
    }
    fn extra_repr(&self) -> String {
        let mut s = format!("{}, {}", self.num_embeddings, self.embedding_dim);
        if let Some(p) = self.padding_idx {
            s.push_str(&format!(", padding_idx={p}"));
        }
        s
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        vec![("weight".into(), self.weight.clone())]
    }
    training_flag!();
}

display_as_repr!(Embedding);
