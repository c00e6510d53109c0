//! borch's neural-network modules, shaped like `torch.nn`: the `Module` trait (parameters by
//! dotted name, buffers, children, train/eval, state dicts, torch's printed form), layers,
//! activations and losses over `functional`, and `init` with torch's default initialisation
//! drawn from borch's torch-exact generator.
//!
//! ```no_run
//! use borch_nn::{Linear, Module, ReLU, sequential, functional as F};
//! # fn main() -> borch_tensor::Result<()> {
//! borch_tensor::manual_seed(0);
//! let model = sequential![Linear::new(4, 8)?, ReLU::new(), Linear::new(8, 2)?];
//! println!("{model}"); // Sequential(\n  (0): Linear(in_features=4, out_features=8, bias=True) ...
//! let x = borch_tensor::randn(&[5, 4], None)?;
//! let target = borch_tensor::Tensor::new([0i64, 1, 1, 0, 1])?;
//! let loss = F::cross_entropy(&model.forward(&x)?, &target, None, -100, F::Reduction::Mean, 0.0)?;
//! borch_autograd::backward(&loss, None, false)?;
//! # Ok(())
//! # }
//! ```

pub mod api;
mod compiled;
pub mod functional;
pub mod init;
pub mod intrinsic;
mod layers;
mod module;
mod reduction;
mod repr;
pub mod serialization;
mod state_dict;
pub mod utils;

pub use compiled::{CompiledModule, compiled};
pub use layers::*;
pub use module::{AsModule, Module};
pub use reduction::Reduction;
pub use repr::{py_bool, py_float, py_tuple};
pub use state_dict::{IncompatibleKeys, StateDict};
