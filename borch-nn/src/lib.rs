#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod api;
mod compiled;
pub mod functional;
pub mod init;
pub mod intrinsic;
mod layers;
pub mod models;
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
