//! A multilayer perceptron written with tensors: torch's `nn.Linear` layers (weight
//! `[out, in]`, bias `[out]`, both initialised U(-1/sqrt(in), 1/sqrt(in)) as torch's
//! `reset_parameters` does) with ReLU between them. Stands in for borch-nn until it lands.

use borch_tensor::{DType, Result, Tensor, empty, keep_alive};

/// torch's `nn.Linear(in_features, out_features)`.
pub struct Linear {
    pub weight: Tensor,
    pub bias: Tensor,
}

impl Linear {
    /// A layer initialised from the default generator, weight first and then bias, as torch
    /// does; both are kept alive (no scope releases them) and require grad.
    pub fn new(in_features: usize, out_features: usize) -> Result<Linear> {
        let bound = 1.0 / (in_features as f64).sqrt();
        let param = |shape: &[usize]| -> Result<Tensor> {
            let t = keep_alive(&empty(shape, DType::Float32)?);
            t.uniform_(-bound, bound, None)?;
            t.set_requires_grad(true)?;
            Ok(t)
        };
        let weight = param(&[out_features, in_features])?;
        let bias = param(&[out_features])?;
        Ok(Linear { weight, bias })
    }

    /// `x @ weight.T + bias` as one `addmm`, as torch's `F.linear` does for 2-D input.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        self.bias.addmm(x, &self.weight.t()?, 1.0, 1.0)
    }
}

/// Linear layers with ReLU between them (not after the last).
pub struct Mlp {
    pub layers: Vec<Linear>,
}

impl Mlp {
    /// `sizes[0] → sizes[1] → … → sizes[last]`, initialised layer by layer.
    pub fn new(sizes: &[usize]) -> Result<Mlp> {
        let layers = sizes
            .windows(2)
            .map(|w| Linear::new(w[0], w[1]))
            .collect::<Result<_>>()?;
        Ok(Mlp { layers })
    }

    /// The logits for a batch `x` of shape `[batch, sizes[0]]`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let mut h = x.clone();
        for (i, layer) in self.layers.iter().enumerate() {
            h = layer.forward(&h)?;
            if i + 1 < self.layers.len() {
                h = h.relu()?;
            }
        }
        Ok(h)
    }

    /// Every weight and bias, in torch's `parameters()` order.
    pub fn parameters(&self) -> Vec<Tensor> {
        self.layers
            .iter()
            .flat_map(|l| [l.weight.clone(), l.bias.clone()])
            .collect()
    }

    /// Number of scalars in the parameters.
    pub fn numel(&self) -> usize {
        self.parameters().iter().map(Tensor::numel).sum()
    }
}
