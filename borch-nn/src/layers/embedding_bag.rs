//! EmbeddingBag and ParameterList.

use borch_tensor::{BorchError, Result, Tensor};

use super::parameter;
use crate::functional::{self as F, BagMode};
use crate::init;
use crate::module::Module;
use crate::{display_as_repr, training_flag};

/// torch's `nn.EmbeddingBag(num_embeddings, embedding_dim, mode='mean',
/// include_last_offset=False, padding_idx=None)`: sums, means or maxima of bags of embedding
/// rows. torch's max_norm, scale_grad_by_freq and sparse are refused by the catalog.
pub struct EmbeddingBag {
    /// torch's `num_embeddings`: the size of the dictionary.
    pub num_embeddings: usize,
    /// torch's `embedding_dim`: the size of each embedding vector.
    pub embedding_dim: usize,
    /// torch's `mode`.
    pub mode: BagMode,
    /// torch's `include_last_offset`: `offsets` has one more element, the size of `input`.
    pub include_last_offset: bool,
    /// Stored non-negative, as torch wraps a negative `padding_idx`.
    pub padding_idx: Option<usize>,
    /// torch's `weight` parameter.
    pub weight: Tensor,
    training: bool,
}

impl EmbeddingBag {
    /// `EmbeddingBag(num_embeddings, embedding_dim, mode=…, include_last_offset=…,
    /// padding_idx=…)`, weight from N(0, 1) with the padding row zeroed.
    pub fn new(
        num_embeddings: usize,
        embedding_dim: usize,
        mode: BagMode,
        include_last_offset: bool,
        padding_idx: Option<i64>,
    ) -> Result<EmbeddingBag> {
        let padding_idx = match padding_idx {
            Some(p) if p >= num_embeddings as i64 || p < -(num_embeddings as i64) => {
                return Err(BorchError::Runtime(
                    "padding_idx must be within num_embeddings".into(),
                ));
            }
            Some(p) if p < 0 => Some((p + num_embeddings as i64) as usize),
            Some(p) => Some(p as usize),
            None => None,
        };
        let weight = parameter(&[num_embeddings, embedding_dim])?;
        init::normal_(&weight, 0.0, 1.0)?;
        if let Some(p) = padding_idx {
            borch_autograd::no_grad(|| weight.select(0, p as isize)?.fill_(0.0))?;
        }
        Ok(EmbeddingBag {
            num_embeddings,
            embedding_dim,
            mode,
            include_last_offset,
            padding_idx,
            weight,
            training: true,
        })
    }

    /// torch's `forward(input, offsets=None, per_sample_weights=None)`.
    pub fn forward(
        &self,
        input: &Tensor,
        offsets: Option<&Tensor>,
        per_sample_weights: Option<&Tensor>,
    ) -> Result<Tensor> {
        F::embedding_bag(
            input,
            &self.weight,
            offsets,
            self.mode,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx.map(|p| p as i64),
        )
    }
}

impl Module for EmbeddingBag {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        EmbeddingBag::forward(self, input, None, None)
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [x] => EmbeddingBag::forward(self, x, None, None),
            [x, o] => EmbeddingBag::forward(self, x, Some(o), None),
            [x, o, w] => EmbeddingBag::forward(self, x, Some(o), Some(w)),
            _ => Err(BorchError::Type(format!(
                "EmbeddingBag.forward() takes from 2 to 4 positional arguments but {} were given",
                inputs.len() + 1
            ))),
        }
    }
    fn name(&self) -> String {
        "EmbeddingBag".into()
    }
    fn extra_repr(&self) -> String {
        let mut s = format!(
            "{}, {}, mode='{}'",
            self.num_embeddings,
            self.embedding_dim,
            self.mode.as_str()
        );
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

/// torch's `nn.ParameterList(values)`: parameters registered as `0`, `1`, …; it has no
/// forward.
pub struct ParameterList {
    /// The parameters, in order.
    pub values: Vec<Tensor>,
    training: bool,
}

impl ParameterList {
    /// A list of the given tensors, each made a parameter (a leaf that requires grad), as torch
    /// wraps plain tensors in `Parameter`.
    pub fn new(values: Vec<Tensor>) -> Result<ParameterList> {
        let values = values
            .into_iter()
            .map(|t| {
                let p = borch_tensor::keep_alive(&t.detach());
                p.set_requires_grad(true)?;
                Ok(p)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ParameterList {
            values,
            training: true,
        })
    }

    /// torch's `append(value)`.
    pub fn append(&mut self, value: &Tensor) -> Result<()> {
        let p = borch_tensor::keep_alive(&value.detach());
        p.set_requires_grad(true)?;
        self.values.push(p);
        Ok(())
    }

    /// `len(list)`.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl Module for ParameterList {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(BorchError::NotImplemented(
            "Module [ParameterList] is missing the required \"forward\" function".into(),
        ))
    }
    fn name(&self) -> String {
        "ParameterList".into()
    }
    fn extra_repr(&self) -> String {
        let lines: Vec<String> = self
            .values
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let size: Vec<String> = p.shape().iter().map(usize::to_string).collect();
                format!(
                    "  ({i}): Parameter containing: [{} of size {}]",
                    p.dtype(),
                    size.join("x")
                )
            })
            .collect();
        lines.join("\n")
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        self.values
            .iter()
            .enumerate()
            .map(|(i, p)| (i.to_string(), p.clone()))
            .collect()
    }
    training_flag!();
}

display_as_repr!(EmbeddingBag, ParameterList);
