//! Linear, Bilinear and Identity.

use borch_tensor::{BorchError, Result, Tensor};

use super::{parameter, present};
use crate::functional as F;
use crate::init;
use crate::module::Module;
use crate::repr::py_bool;
use crate::{display_as_repr, training_flag};

/// torch's `nn.Linear`: `y = x W^T + b`, `W` of shape `(out_features, in_features)`.
pub struct Linear {
    /// torch's `in_features`: the size of each input sample.
    pub in_features: usize,
    /// torch's `out_features`: the size of each output sample.
    pub out_features: usize,
    /// torch's `weight` parameter.
    pub weight: Tensor,
    /// torch's `bias` parameter (`None` when made with `bias=False`).
    pub bias: Option<Tensor>,
    training: bool,
}

impl Linear {
    /// `Linear(in_features, out_features)` with a bias and torch's default initialisation.
    pub fn new(in_features: usize, out_features: usize) -> Result<Linear> {
        Linear::with_bias(in_features, out_features, true)
    }

    /// `Linear(in_features, out_features, bias=bias)`.
    pub fn with_bias(in_features: usize, out_features: usize, bias: bool) -> Result<Linear> {
        let weight = parameter(&[out_features, in_features])?;
        let bias = if bias {
            Some(parameter(&[out_features])?)
        } else {
            None
        };
        let linear = Linear {
            in_features,
            out_features,
            weight,
            bias,
            training: true,
        };
        linear.reset_parameters()?;
        Ok(linear)
    }

    /// A Linear over existing tensors (shared weights, loaded values); `weight` is
    /// `(out_features, in_features)`.
    pub fn from_tensors(weight: Tensor, bias: Option<Tensor>) -> Result<Linear> {
        if weight.dim() != 2 {
            return Err(BorchError::Value(format!(
                "Linear weight must be 2-D, got {}-D",
                weight.dim()
            )));
        }
        Ok(Linear {
            in_features: weight.shape()[1],
            out_features: weight.shape()[0],
            weight,
            bias,
            training: true,
        })
    }

    /// torch's `reset_parameters`: `kaiming_uniform_(weight, a=sqrt(5))`, then the bias from
    /// U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
    pub fn reset_parameters(&self) -> Result<()> {
        init::kaiming_uniform_(&self.weight, 5.0f64.sqrt(), "fan_in", "leaky_relu")?;
        if let Some(b) = &self.bias {
            let (fan_in, _) = init::calculate_fan_in_and_fan_out(&self.weight)?;
            let bound = if fan_in > 0 {
                1.0 / (fan_in as f64).sqrt()
            } else {
                0.0
            };
            init::uniform_(b, -bound, bound)?;
        }
        Ok(())
    }
}

/// nn.Linear's `extra_repr` (also loralib's `lora.Linear`'s).
pub(crate) fn linear_extra_repr(in_features: usize, out_features: usize, bias: bool) -> String {
    format!(
        "in_features={in_features}, out_features={out_features}, bias={}",
        py_bool(bias)
    )
}

impl Module for Linear {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::linear(input, &self.weight, self.bias.as_ref())
    }
    fn name(&self) -> String {
        "Linear".into()
    }
    fn extra_repr(&self) -> String {
        linear_extra_repr(self.in_features, self.out_features, self.bias.is_some())
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        present(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
    }
    training_flag!();
}

/// torch's `nn.Bilinear`: `y = x1^T A x2 + b`, `A` of shape `(out, in1, in2)`.
pub struct Bilinear {
    /// torch's `in1_features`: the size of each first input sample.
    pub in1_features: usize,
    /// torch's `in2_features`: the size of each second input sample.
    pub in2_features: usize,
    /// torch's `out_features`: the size of each output sample.
    pub out_features: usize,
    /// torch's `weight` parameter.
    pub weight: Tensor,
    /// torch's `bias` parameter (`None` when made with `bias=False`).
    pub bias: Option<Tensor>,
    training: bool,
}

impl Bilinear {
    /// `Bilinear(in1_features, in2_features, out_features)` with a bias.
    pub fn new(in1_features: usize, in2_features: usize, out_features: usize) -> Result<Bilinear> {
        Bilinear::with_bias(in1_features, in2_features, out_features, true)
    }

    /// `Bilinear(in1, in2, out, bias=bias)`, initialised as torch: weight and bias from
    /// U(-1/sqrt(in1), 1/sqrt(in1)).
    pub fn with_bias(
        in1_features: usize,
        in2_features: usize,
        out_features: usize,
        bias: bool,
    ) -> Result<Bilinear> {
        let weight = parameter(&[out_features, in1_features, in2_features])?;
        let bias = if bias {
            Some(parameter(&[out_features])?)
        } else {
            None
        };
        let layer = Bilinear {
            in1_features,
            in2_features,
            out_features,
            weight,
            bias,
            training: true,
        };
        layer.reset_parameters()?;
        Ok(layer)
    }

    /// torch's `reset_parameters`.
    pub fn reset_parameters(&self) -> Result<()> {
        let bound = 1.0 / (self.in1_features as f64).sqrt();
        init::uniform_(&self.weight, -bound, bound)?;
        if let Some(b) = &self.bias {
            init::uniform_(b, -bound, bound)?;
        }
        Ok(())
    }

    /// torch's `forward(input1, input2)`.
    pub fn forward(&self, input1: &Tensor, input2: &Tensor) -> Result<Tensor> {
        F::bilinear(input1, input2, &self.weight, self.bias.as_ref())
    }
}

impl Module for Bilinear {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(BorchError::Type(
            "Bilinear.forward() missing 1 required positional argument: 'input2'".into(),
        ))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [a, b] => Bilinear::forward(self, a, b),
            [_] => Module::forward(self, inputs[0]),
            _ => Err(BorchError::Type(format!(
                "Bilinear.forward() takes 3 positional arguments but {} were given",
                inputs.len() + 1
            ))),
        }
    }
    fn name(&self) -> String {
        "Bilinear".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "in1_features={}, in2_features={}, out_features={}, bias={}",
            self.in1_features,
            self.in2_features,
            self.out_features,
            py_bool(self.bias.is_some())
        )
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        present(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
    }
    training_flag!();
}

/// torch's `nn.Identity`: returns its input.
pub struct Identity {
    training: bool,
}

impl Identity {
    /// torch's `Identity()`.
    pub fn new() -> Identity {
        Identity { training: true }
    }
}

impl Default for Identity {
    fn default() -> Self {
        Identity::new()
    }
}

impl Module for Identity {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        Ok(input.clone())
    }
    fn name(&self) -> String {
        "Identity".into()
    }
    training_flag!();
}

display_as_repr!(Linear, Bilinear, Identity);
