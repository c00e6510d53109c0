//! More activation modules (PReLU, RReLU, CELU, GLU, LogSigmoid, Hardsigmoid, Hardshrink,
//! Softshrink, Tanhshrink, Softsign, Softmin, Softmax2d, Threshold); each calls its
//! `nn::functional` function.

use borch_tensor::{Result, Scalar, Tensor};

use super::activation::plain_activation;
use super::parameter;
use crate::functional as F;
use crate::module::Module;
use crate::repr::py_float;
use crate::{display_as_repr, training_flag};

plain_activation! {
    /// torch's `nn.LogSigmoid`.
    LogSigmoid => F::logsigmoid;
    /// torch's `nn.Hardsigmoid`.
    Hardsigmoid => F::hardsigmoid;
    /// torch's `nn.Tanhshrink`: `x - tanh(x)`.
    Tanhshrink => F::tanhshrink;
    /// torch's `nn.Softsign`: `x / (1 + |x|)`.
    Softsign => F::softsign;
    /// torch's `nn.Softmax2d`: softmax over the channels of a 3-D or 4-D input.
    Softmax2d => F::softmax2d;
}

/// Activations with one option: the struct, `new(option)`, forward and torch's extra_repr.
macro_rules! one_option {
    ($($(#[$doc:meta])* $name:ident($field:ident: $t:ty = $default:expr)
        => |$s:ident, $x:ident| $forward:expr, repr: $repr:expr;)*) => {$(
        $(#[$doc])*
        pub struct $name {
            #[doc = concat!("torch's `", stringify!($field), "` (default `", stringify!($default), "`).")]
            pub $field: $t,
            training: bool,
        }
        impl $name {
            #[doc = concat!("torch's constructor with `", stringify!($field), "`.")]
            pub fn new($field: $t) -> $name {
                $name { $field, training: true }
            }
        }
        impl Default for $name {
            fn default() -> Self {
                $name::new($default)
            }
        }
        impl Module for $name {
            fn forward(&self, $x: &Tensor) -> Result<Tensor> {
                let $s = self;
                $forward
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                let $s = self;
                $repr
            }
            training_flag!();
        }
        display_as_repr!($name);
    )*};
}

fn dim_repr(dim: Option<isize>) -> String {
    match dim {
        Some(d) => format!("dim={d}"),
        None => "dim=None".into(),
    }
}

one_option! {
    /// torch's `nn.CELU(alpha=1.0)`.
    CELU(alpha: f64 = 1.0) => |s, x| F::celu(x, s.alpha), repr: format!("alpha={}", py_float(s.alpha));
    /// torch's `nn.GLU(dim=-1)`.
    GLU(dim: isize = -1) => |s, x| F::glu(x, s.dim), repr: format!("dim={}", s.dim);
    /// torch's `nn.Hardshrink(lambd=0.5)`.
    Hardshrink(lambd: f64 = 0.5) => |s, x| F::hardshrink(x, s.lambd), repr: py_float(s.lambd);
    /// torch's `nn.Softshrink(lambd=0.5)`.
    Softshrink(lambd: f64 = 0.5) => |s, x| F::softshrink(x, s.lambd), repr: py_float(s.lambd);
    /// torch's `nn.Softmin(dim=None)`.
    Softmin(dim: Option<isize> = None) => |s, x| F::softmin(x, s.dim), repr: dim_repr(s.dim);
}

/// torch's `nn.RReLU(lower=1/8, upper=1/3)`: in eval mode leaky_relu with the mean slope;
/// training mode is refused (see `F::rrelu`).
pub struct RReLU {
    /// torch's `lower`: the lower bound of the random slope.
    pub lower: f64,
    /// torch's `upper`: the upper bound of the random slope.
    pub upper: f64,
    training: bool,
}

impl RReLU {
    /// torch's `RReLU(lower, upper)`.
    pub fn new(lower: f64, upper: f64) -> RReLU {
        RReLU {
            lower,
            upper,
            training: true,
        }
    }
}

impl Default for RReLU {
    fn default() -> Self {
        RReLU::new(1.0 / 8.0, 1.0 / 3.0)
    }
}

impl Module for RReLU {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::rrelu(input, self.lower, self.upper, self.training)
    }
    fn name(&self) -> String {
        "RReLU".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "lower={}, upper={}",
            py_float(self.lower),
            py_float(self.upper)
        )
    }
    training_flag!();
}

/// A Python number as Python prints it (an int stays an int).
fn py_scalar(s: Scalar) -> String {
    match s {
        Scalar::Float(f) => py_float(f),
        Scalar::Int(i) => i.to_string(),
        Scalar::Bool(b) => crate::py_bool(b).to_string(),
    }
}

/// torch's `nn.Threshold(threshold, value)`.
pub struct Threshold {
    /// torch's `threshold`.
    pub threshold: Scalar,
    /// torch's `value`: the fill value.
    pub value: Scalar,
    training: bool,
}

impl Threshold {
    /// torch's `Threshold(threshold, value)`.
    pub fn new(threshold: impl Into<Scalar>, value: impl Into<Scalar>) -> Threshold {
        Threshold {
            threshold: threshold.into(),
            value: value.into(),
            training: true,
        }
    }
}

impl Module for Threshold {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::threshold(input, self.threshold, self.value)
    }
    fn name(&self) -> String {
        "Threshold".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "threshold={}, value={}",
            py_scalar(self.threshold),
            py_scalar(self.value)
        )
    }
    training_flag!();
}

/// torch's `nn.PReLU(num_parameters=1, init=0.25)`: a learnt negative slope, one or one per
/// channel.
pub struct PReLU {
    /// torch's `num_parameters`: 1, or the input's channels.
    pub num_parameters: usize,
    /// torch's `weight` parameter.
    pub weight: Tensor,
    training: bool,
}

impl PReLU {
    /// torch's `PReLU(num_parameters, init)`: the weight filled with `init`.
    pub fn new(num_parameters: usize, init: f64) -> Result<PReLU> {
        let weight = parameter(&[num_parameters])?;
        borch_autograd::no_grad(|| weight.fill_(init))?;
        Ok(PReLU {
            num_parameters,
            weight,
            training: true,
        })
    }
}

impl Module for PReLU {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::prelu(input, &self.weight)
    }
    fn name(&self) -> String {
        "PReLU".into()
    }
    fn extra_repr(&self) -> String {
        format!("num_parameters={}", self.num_parameters)
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        vec![("weight".into(), self.weight.clone())]
    }
    training_flag!();
}

display_as_repr!(RReLU, Threshold, PReLU);
