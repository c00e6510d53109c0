//! `torch.nn.utils`: gradient clipping and parameter/vector conversion, and their catalog.

mod catalog;
mod clip_grad;
mod convert_parameters;

pub use catalog::{MODULE, call, entries};
pub use clip_grad::{clip_grad_norm_, clip_grad_value_};
pub use convert_parameters::{parameters_to_vector, vector_to_parameters};
