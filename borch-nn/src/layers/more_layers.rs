//! NLLLoss2d (torch's deprecated alias of NLLLoss), CrossMapLRN2d and ParameterDict.

use borch_tensor::{BorchError, Result, Scalar, Tensor};

use super::NLLLoss;
use crate::functional as F;
use crate::module::Module;
use crate::repr::py_float;
use crate::{display_as_repr, training_flag};

/// torch's `nn.NLLLoss2d(weight=None, size_average=None, ignore_index=-100, reduce=None,
/// reduction='mean')`: NLLLoss under its deprecated name (torch warns and computes NLLLoss).
pub struct NLLLoss2d {
    /// The `NLLLoss` it forwards to.
    pub loss: NLLLoss,
}

impl Module for NLLLoss2d {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(BorchError::Type(
            "NLLLoss2d.forward() missing 1 required positional argument: 'target'".into(),
        ))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [input, target] => self.loss.forward(input, target),
            [input] => Module::forward(self, input),
            _ => Err(BorchError::Type(format!(
                "NLLLoss2d.forward() takes 3 positional arguments but {} were given",
                inputs.len() + 1
            ))),
        }
    }
    fn name(&self) -> String {
        "NLLLoss2d".into()
    }
    fn own_buffers(&self) -> Vec<(String, Tensor)> {
        self.loss.own_buffers()
    }
    fn is_training(&self) -> bool {
        self.loss.is_training()
    }
    fn set_training(&mut self, mode: bool) {
        self.loss.set_training(mode);
    }
}

/// A number as Python prints it (an int as an int).
fn py_scalar(s: Scalar) -> String {
    match s {
        Scalar::Int(i) => i.to_string(),
        Scalar::Bool(b) => if b { "True" } else { "False" }.into(),
        Scalar::Float(x) => py_float(x),
    }
}

/// torch's `nn.CrossMapLRN2d(size, alpha=1e-4, beta=0.75, k=1)`: local response normalization
/// across channels of a 4-D input, forward and backward as torch's legacy function computes
/// them (`F::cross_map_lrn2d`).
pub struct CrossMapLRN2d {
    /// torch's `size`: the neighbouring channels normalized over.
    pub size: usize,
    /// torch's `alpha`.
    pub alpha: Scalar,
    /// torch's `beta`.
    pub beta: Scalar,
    /// torch's `k`: the additive factor.
    pub k: Scalar,
    training: bool,
}

impl CrossMapLRN2d {
    /// torch's `CrossMapLRN2d(size, alpha, beta, k)`.
    pub fn new(size: usize, alpha: Scalar, beta: Scalar, k: Scalar) -> CrossMapLRN2d {
        CrossMapLRN2d {
            size,
            alpha,
            beta,
            k,
            training: true,
        }
    }
}

impl Module for CrossMapLRN2d {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::cross_map_lrn2d(
            input,
            self.size,
            self.alpha.to_f64(),
            self.beta.to_f64(),
            self.k.to_f64(),
        )
    }
    fn name(&self) -> String {
        "CrossMapLRN2d".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "{}, alpha={}, beta={}, k={}",
            self.size,
            py_scalar(self.alpha),
            py_scalar(self.beta),
            py_scalar(self.k)
        )
    }
    training_flag!();
}

/// torch's `nn.ParameterDict(parameters=None)` from `(key, tensor)` pairs, kept in their order
/// (torch's iterable form; torch sorts the keys of a plain dict); each tensor made a parameter.
pub struct ParameterDict {
    /// The parameters by key, in insertion order.
    pub entries: Vec<(String, Tensor)>,
    training: bool,
}

impl ParameterDict {
    /// torch's `ParameterDict(pairs)`; a key given twice keeps its first place and the last value.
    pub fn new(pairs: Vec<(String, Tensor)>) -> Result<ParameterDict> {
        let mut d = ParameterDict {
            entries: Vec::new(),
            training: true,
        };
        for (k, v) in pairs {
            d.insert(k, &v)?;
        }
        Ok(d)
    }

    /// torch's `d[key] = value`: a new key is appended, an existing one keeps its place.
    pub fn insert(&mut self, key: String, value: &Tensor) -> Result<()> {
        let p = borch_tensor::keep_alive(&value.detach());
        p.set_requires_grad(true)?;
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = p,
            None => self.entries.push((key, p)),
        }
        Ok(())
    }

    /// torch's `d[key]`.
    pub fn get(&self, key: &str) -> Option<&Tensor> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, t)| t)
    }

    /// `len(dict)`.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Module for ParameterDict {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(BorchError::Runtime(
            "ParameterDict should not be called.".into(),
        ))
    }
    fn name(&self) -> String {
        "ParameterDict".into()
    }
    fn extra_repr(&self) -> String {
        let lines: Vec<String> = self
            .entries
            .iter()
            .map(|(k, p)| {
                let size: Vec<String> = p.shape().iter().map(usize::to_string).collect();
                format!(
                    "  ({k}): Parameter containing: [torch.FloatTensor of size {}]",
                    size.join("x")
                )
            })
            .collect();
        lines.join("\n")
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        self.entries.clone()
    }
    training_flag!();
}

display_as_repr!(NLLLoss2d, CrossMapLRN2d, ParameterDict);
