//! Flatten and Unflatten.

use borch_tensor::{Result, Tensor};

use crate::module::Module;
use crate::repr::py_tuple;
use crate::{display_as_repr, training_flag};

/// torch's `nn.Flatten(start_dim=1, end_dim=-1)`.
pub struct Flatten {
    /// torch's `start_dim`.
    pub start_dim: isize,
    /// torch's `end_dim`.
    pub end_dim: isize,
    training: bool,
}

impl Flatten {
    /// `Flatten()`: every dim but the batch dim.
    pub fn new() -> Flatten {
        Flatten::with_dims(1, -1)
    }
    /// `Flatten(start_dim, end_dim)`.
    pub fn with_dims(start_dim: isize, end_dim: isize) -> Flatten {
        Flatten {
            start_dim,
            end_dim,
            training: true,
        }
    }
}

impl Default for Flatten {
    fn default() -> Self {
        Flatten::new()
    }
}

impl Module for Flatten {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.flatten(self.start_dim, self.end_dim)
    }
    fn name(&self) -> String {
        "Flatten".into()
    }
    fn extra_repr(&self) -> String {
        format!("start_dim={}, end_dim={}", self.start_dim, self.end_dim)
    }
    training_flag!();
}

/// torch's `nn.Unflatten(dim, unflattened_size)`.
pub struct Unflatten {
    /// torch's `dim`.
    pub dim: isize,
    /// torch's `unflattened_size`.
    pub unflattened_size: Vec<isize>,
    training: bool,
}

impl Unflatten {
    /// torch's `Unflatten(dim, unflattened_size)`.
    pub fn new(dim: isize, unflattened_size: &[isize]) -> Unflatten {
        Unflatten {
            dim,
            unflattened_size: unflattened_size.to_vec(),
            training: true,
        }
    }
}

impl Module for Unflatten {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        input.unflatten(self.dim, &self.unflattened_size)
    }
    fn name(&self) -> String {
        "Unflatten".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "dim={}, unflattened_size={}",
            self.dim,
            py_tuple(&self.unflattened_size)
        )
    }
    training_flag!();
}

display_as_repr!(Flatten, Unflatten);
