//! Dropout.

use borch_tensor::{BorchError, Result, Tensor};

use crate::functional as F;
use crate::module::Module;
use crate::repr::py_float;
use crate::{display_as_repr, training_flag};

/// torch's `nn.Dropout(p=0.5)`: zeroes elements with probability `p` in training (torch's CPU
/// mask after `manual_seed`), the identity in eval mode.
pub struct Dropout {
    /// torch's `p`: the probability of an element to be zeroed.
    pub p: f64,
    training: bool,
}

impl Dropout {
    /// `Dropout(p)`; `p` must lie in [0, 1].
    pub fn new(p: f64) -> Result<Dropout> {
        if !(0.0..=1.0).contains(&p) {
            return Err(BorchError::Value(format!(
                "dropout probability has to be between 0 and 1, but got {}",
                py_float(p)
            )));
        }
        Ok(Dropout { p, training: true })
    }
}

impl Module for Dropout {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::dropout(input, self.p, self.training)
    }
    fn name(&self) -> String {
        "Dropout".into()
    }
    fn extra_repr(&self) -> String {
        format!("p={}, inplace=False", py_float(self.p))
    }
    training_flag!();
}

display_as_repr!(Dropout);
