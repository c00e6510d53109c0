//! Channel-wise and alpha dropouts (Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout) and the
//! distance modules (CosineSimilarity, PairwiseDistance).

use borch_tensor::{BorchError, Result, Tensor};

use crate::functional as F;
use crate::module::Module;
use crate::repr::py_float;
use crate::{display_as_repr, training_flag};

macro_rules! dropouts {
    ($($(#[$doc:meta])* $name:ident => $f:path;)*) => {$(
        $(#[$doc])*
        pub struct $name {
            /// torch's `p`: the probability of an element (or channel) to be zeroed.
            pub p: f64,
            training: bool,
        }
        impl $name {
            /// `$name(p)`; `p` must lie in [0, 1].
            pub fn new(p: f64) -> Result<$name> {
                if !(0.0..=1.0).contains(&p) {
                    return Err(BorchError::Value(format!(
                        "dropout probability has to be between 0 and 1, but got {}",
                        py_float(p)
                    )));
                }
                Ok($name { p, training: true })
            }
        }
        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                $f(input, self.p, self.training)
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                format!("p={}, inplace=False", py_float(self.p))
            }
            training_flag!();
        }
        display_as_repr!($name);
    )*};
}

dropouts! {
    /// torch's `nn.Dropout1d(p=0.5)`: zeroes whole channels of `(N, C, L)` / `(C, L)` inputs.
    Dropout1d => F::dropout1d;
    /// torch's `nn.Dropout2d(p=0.5)`: zeroes whole channels of `(N, C, H, W)` inputs.
    Dropout2d => F::dropout2d;
    /// torch's `nn.Dropout3d(p=0.5)`: zeroes whole channels of `(N, C, D, H, W)` inputs.
    Dropout3d => F::dropout3d;
    /// torch's `nn.AlphaDropout(p=0.5)`: dropout keeping SELU's self-normalisation.
    AlphaDropout => F::alpha_dropout;
    /// torch's `nn.FeatureAlphaDropout(p=0.5)`: alpha dropout of whole channels.
    FeatureAlphaDropout => F::feature_alpha_dropout;
}

/// `forward(x1, x2)` of the two distance modules.
fn two_inputs<'a>(name: &str, inputs: &[&'a Tensor]) -> Result<(&'a Tensor, &'a Tensor)> {
    match inputs {
        [a, b] => Ok((a, b)),
        [_] => Err(BorchError::Type(format!(
            "{name}.forward() missing 1 required positional argument: 'x2'"
        ))),
        _ => Err(BorchError::Type(format!(
            "{name}.forward() takes 3 positional arguments but {} were given",
            inputs.len() + 1
        ))),
    }
}

/// torch's `nn.CosineSimilarity(dim=1, eps=1e-08)`.
pub struct CosineSimilarity {
    /// torch's `dim`.
    pub dim: isize,
    /// torch's `eps`.
    pub eps: f64,
    training: bool,
}

impl CosineSimilarity {
    /// torch's `CosineSimilarity(dim, eps)`.
    pub fn new(dim: isize, eps: f64) -> CosineSimilarity {
        CosineSimilarity {
            dim,
            eps,
            training: true,
        }
    }
}

impl Default for CosineSimilarity {
    fn default() -> Self {
        CosineSimilarity::new(1, 1e-8)
    }
}

impl Module for CosineSimilarity {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        self.forward_args(&[input])
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        let (x1, x2) = two_inputs("CosineSimilarity", inputs)?;
        F::cosine_similarity(x1, x2, self.dim, self.eps)
    }
    fn name(&self) -> String {
        "CosineSimilarity".into()
    }
    training_flag!();
}

/// torch's `nn.PairwiseDistance(p=2.0, eps=1e-06, keepdim=False)`.
pub struct PairwiseDistance {
    /// torch's `p`: the norm degree.
    pub p: f64,
    /// torch's `eps`.
    pub eps: f64,
    /// torch's `keepdim`.
    pub keepdim: bool,
    training: bool,
}

impl PairwiseDistance {
    /// torch's `PairwiseDistance(p, eps, keepdim)`.
    pub fn new(p: f64, eps: f64, keepdim: bool) -> PairwiseDistance {
        PairwiseDistance {
            p,
            eps,
            keepdim,
            training: true,
        }
    }
}

impl Default for PairwiseDistance {
    fn default() -> Self {
        PairwiseDistance::new(2.0, 1e-6, false)
    }
}

impl Module for PairwiseDistance {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        self.forward_args(&[input])
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        let (x1, x2) = two_inputs("PairwiseDistance", inputs)?;
        F::pairwise_distance(x1, x2, self.p, self.eps, self.keepdim)
    }
    fn name(&self) -> String {
        "PairwiseDistance".into()
    }
    training_flag!();
}

display_as_repr!(CosineSimilarity, PairwiseDistance);
