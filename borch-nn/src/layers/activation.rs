//! Activation modules; each calls its `nn::functional` function.

use borch_tensor::{Result, Tensor};

use crate::functional as F;
use crate::module::Module;
use crate::repr::py_float;
use crate::{display_as_repr, training_flag};

/// Activations without arguments: a struct with `new()` whose forward is one functional call.
macro_rules! plain_activation {
    ($($(#[$doc:meta])* $name:ident => $f:path;)*) => {$(
        $(#[$doc])*
        pub struct $name {
            training: bool,
        }
        impl $name {
            /// The module (it has no options).
            pub fn new() -> $name {
                $name { training: true }
            }
        }
        impl Default for $name {
            fn default() -> Self {
                $name::new()
            }
        }
        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                $f(input)
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            training_flag!();
        }
        display_as_repr!($name);
    )*};
}

pub(super) use plain_activation;

plain_activation! {
    /// torch's `nn.ReLU`.
    ReLU => F::relu;
    /// torch's `nn.ReLU6`: `min(max(x, 0), 6)`.
    ReLU6 => F::relu6;
    /// torch's `nn.SELU`.
    SELU => F::selu;
    /// torch's `nn.SiLU`: `x * sigmoid(x)`.
    SiLU => F::silu;
    /// torch's `nn.Mish`: `x * tanh(softplus(x))`.
    Mish => F::mish;
    /// torch's `nn.Tanh`.
    Tanh => F::tanh;
    /// torch's `nn.Sigmoid`.
    Sigmoid => F::sigmoid;
    /// torch's `nn.Hardswish`.
    Hardswish => F::hardswish;
}

/// torch's `nn.LeakyReLU(negative_slope=0.01)`.
pub struct LeakyReLU {
    /// torch's `negative_slope`.
    pub negative_slope: f64,
    training: bool,
}

impl LeakyReLU {
    /// torch's `LeakyReLU(negative_slope)`.
    pub fn new(negative_slope: f64) -> LeakyReLU {
        LeakyReLU {
            negative_slope,
            training: true,
        }
    }
}

impl Default for LeakyReLU {
    fn default() -> Self {
        LeakyReLU::new(0.01)
    }
}

impl Module for LeakyReLU {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::leaky_relu(input, self.negative_slope)
    }
    fn name(&self) -> String {
        "LeakyReLU".into()
    }
    fn extra_repr(&self) -> String {
        format!("negative_slope={}", py_float(self.negative_slope))
    }
    training_flag!();
}

/// torch's `nn.ELU(alpha=1.0)`.
pub struct ELU {
    /// torch's `alpha`.
    pub alpha: f64,
    training: bool,
}

impl ELU {
    /// torch's `ELU(alpha)`.
    pub fn new(alpha: f64) -> ELU {
        ELU {
            alpha,
            training: true,
        }
    }
}

impl Default for ELU {
    fn default() -> Self {
        ELU::new(1.0)
    }
}

impl Module for ELU {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::elu(input, self.alpha)
    }
    fn name(&self) -> String {
        "ELU".into()
    }
    fn extra_repr(&self) -> String {
        format!("alpha={}", py_float(self.alpha))
    }
    training_flag!();
}

/// torch's `nn.GELU(approximate='none')`.
pub struct GELU {
    /// torch's `approximate`: `'none'` or `'tanh'`.
    pub approximate: String,
    training: bool,
}

impl GELU {
    /// `GELU(approximate)`: `"none"` (erf) or `"tanh"`.
    pub fn new(approximate: &str) -> GELU {
        GELU {
            approximate: approximate.to_string(),
            training: true,
        }
    }
}

impl Default for GELU {
    fn default() -> Self {
        GELU::new("none")
    }
}

impl Module for GELU {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::gelu(input, &self.approximate)
    }
    fn name(&self) -> String {
        "GELU".into()
    }
    fn extra_repr(&self) -> String {
        format!("approximate='{}'", self.approximate)
    }
    training_flag!();
}

/// torch's `nn.Hardtanh(min_val=-1.0, max_val=1.0)`.
pub struct Hardtanh {
    /// torch's `min_val`.
    pub min_val: f64,
    /// torch's `max_val`.
    pub max_val: f64,
    training: bool,
}

impl Hardtanh {
    /// torch's `Hardtanh(min_val, max_val)`.
    pub fn new(min_val: f64, max_val: f64) -> Hardtanh {
        Hardtanh {
            min_val,
            max_val,
            training: true,
        }
    }
}

impl Default for Hardtanh {
    fn default() -> Self {
        Hardtanh::new(-1.0, 1.0)
    }
}

impl Module for Hardtanh {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::hardtanh(input, self.min_val, self.max_val)
    }
    fn name(&self) -> String {
        "Hardtanh".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "min_val={}, max_val={}",
            py_float(self.min_val),
            py_float(self.max_val)
        )
    }
    training_flag!();
}

/// torch's `nn.Softplus(beta=1.0, threshold=20.0)`.
pub struct Softplus {
    /// torch's `beta`.
    pub beta: f64,
    /// torch's `threshold`.
    pub threshold: f64,
    training: bool,
}

impl Softplus {
    /// torch's `Softplus(beta, threshold)`.
    pub fn new(beta: f64, threshold: f64) -> Softplus {
        Softplus {
            beta,
            threshold,
            training: true,
        }
    }
}

impl Default for Softplus {
    fn default() -> Self {
        Softplus::new(1.0, 20.0)
    }
}

impl Module for Softplus {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::softplus(input, self.beta, self.threshold)
    }
    fn name(&self) -> String {
        "Softplus".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "beta={}, threshold={}",
            py_float(self.beta),
            py_float(self.threshold)
        )
    }
    training_flag!();
}

/// Softmax and LogSoftmax: a `dim` (`None` is torch's implicit, deprecated choice).
macro_rules! softmax_module {
    ($($(#[$doc:meta])* $name:ident => $f:path;)*) => {$(
        $(#[$doc])*
        pub struct $name {
            /// torch's `dim`.
            pub dim: Option<isize>,
            training: bool,
        }
        impl $name {
            /// The module over `dim`.
            pub fn new(dim: Option<isize>) -> $name {
                $name { dim, training: true }
            }
        }
        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                $f(input, self.dim)
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                match self.dim {
                    Some(d) => format!("dim={d}"),
                    None => "dim=None".into(),
                }
            }
            training_flag!();
        }
        display_as_repr!($name);
    )*};
}

softmax_module! {
    /// torch's `nn.Softmax(dim)`.
    Softmax => F::softmax;
    /// torch's `nn.LogSoftmax(dim)`.
    LogSoftmax => F::log_softmax;
}

display_as_repr!(LeakyReLU, ELU, GELU, Hardtanh, Softplus);
