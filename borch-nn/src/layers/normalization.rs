//! LayerNorm and RMSNorm.

use borch_tensor::{Result, Tensor};

use super::{parameter, present};
use crate::functional as F;
use crate::init;
use crate::module::Module;
use crate::repr::{py_bool, py_float, py_tuple};
use crate::{display_as_repr, training_flag};

/// A normalization's `reset_parameters` of its affine part: weight ones, bias zeros (each if any).
pub(super) fn reset_affine(weight: Option<&Tensor>, bias: Option<&Tensor>) -> Result<()> {
    if let Some(w) = weight {
        init::ones_(w)?;
    }
    if let Some(b) = bias {
        init::zeros_(b)?;
    }
    Ok(())
}

/// torch's `nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True)`.
pub struct LayerNorm {
    /// torch's `normalized_shape`: the trailing dims normalized over.
    pub normalized_shape: Vec<usize>,
    /// torch's `eps`.
    pub eps: f64,
    /// torch's `elementwise_affine`: whether there are learnable per-element parameters.
    pub elementwise_affine: bool,
    /// torch's `weight` parameter.
    pub weight: Option<Tensor>,
    /// torch's `bias` parameter (`None` when made with `bias=False`).
    pub bias: Option<Tensor>,
    training: bool,
}

impl LayerNorm {
    /// `LayerNorm(normalized_shape)`: eps 1e-5, weight ones, bias zeros.
    pub fn new(normalized_shape: &[usize]) -> Result<LayerNorm> {
        LayerNorm::with_options(normalized_shape, 1e-5, true, true)
    }

    /// `LayerNorm(normalized_shape, eps, elementwise_affine, bias)`.
    pub fn with_options(
        normalized_shape: &[usize],
        eps: f64,
        elementwise_affine: bool,
        bias: bool,
    ) -> Result<LayerNorm> {
        let weight = if elementwise_affine {
            Some(parameter(normalized_shape)?)
        } else {
            None
        };
        let bias = if elementwise_affine && bias {
            Some(parameter(normalized_shape)?)
        } else {
            None
        };
        let layer = LayerNorm {
            normalized_shape: normalized_shape.to_vec(),
            eps,
            elementwise_affine,
            weight,
            bias,
            training: true,
        };
        layer.reset_parameters()?;
        Ok(layer)
    }

    /// torch's `reset_parameters`: weight ones, bias zeros.
    pub fn reset_parameters(&self) -> Result<()> {
        reset_affine(self.weight.as_ref(), self.bias.as_ref())
    }
}

impl Module for LayerNorm {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::layer_norm(
            input,
            &self.normalized_shape,
            self.weight.as_ref(),
            self.bias.as_ref(),
            self.eps,
        )
    }
    fn name(&self) -> String {
        "LayerNorm".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "{}, eps={}, elementwise_affine={}, bias={}",
            py_tuple(&self.normalized_shape),
            py_float(self.eps),
            py_bool(self.elementwise_affine),
            py_bool(self.bias.is_some())
        )
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        present(&[
            ("weight", self.weight.as_ref()),
            ("bias", self.bias.as_ref()),
        ])
    }
    training_flag!();
}

/// torch's `nn.RMSNorm(normalized_shape, eps=None, elementwise_affine=True)`.
pub struct RMSNorm {
    /// torch's `normalized_shape`: the trailing dims normalized over.
    pub normalized_shape: Vec<usize>,
    /// `None`: float32's machine epsilon, as torch.
    pub eps: Option<f64>,
    /// torch's `elementwise_affine`: whether there are learnable per-element parameters.
    pub elementwise_affine: bool,
    /// torch's `weight` parameter.
    pub weight: Option<Tensor>,
    training: bool,
}

impl RMSNorm {
    /// `RMSNorm(normalized_shape)`: weight ones.
    pub fn new(normalized_shape: &[usize]) -> Result<RMSNorm> {
        RMSNorm::with_options(normalized_shape, None, true)
    }

    /// `RMSNorm(normalized_shape, eps, elementwise_affine)`.
    pub fn with_options(
        normalized_shape: &[usize],
        eps: Option<f64>,
        elementwise_affine: bool,
    ) -> Result<RMSNorm> {
        let weight = if elementwise_affine {
            Some(parameter(normalized_shape)?)
        } else {
            None
        };
        let layer = RMSNorm {
            normalized_shape: normalized_shape.to_vec(),
            eps,
            elementwise_affine,
            weight,
            training: true,
        };
        layer.reset_parameters()?;
        Ok(layer)
    }

    /// torch's `reset_parameters`: weight ones.
    pub fn reset_parameters(&self) -> Result<()> {
        reset_affine(self.weight.as_ref(), None)
    }
}

impl Module for RMSNorm {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::rms_norm(
            input,
            &self.normalized_shape,
            self.weight.as_ref(),
            self.eps,
        )
    }
    fn name(&self) -> String {
        "RMSNorm".into()
    }
    fn extra_repr(&self) -> String {
        let eps = self.eps.map_or("None".to_string(), py_float);
        format!(
            "{}, eps={eps}, elementwise_affine={}",
            py_tuple(&self.normalized_shape),
            py_bool(self.elementwise_affine)
        )
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        present(&[("weight", self.weight.as_ref())])
    }
    training_flag!();
}

display_as_repr!(LayerNorm, RMSNorm);
