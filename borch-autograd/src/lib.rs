#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod api;
mod checkpoint;
mod checkpoint_api;
mod derivatives;
mod engine;
mod function;
mod grad_mode;

pub use checkpoint::checkpoint;
pub use checkpoint_api::{
    OPTIONS as CHECKPOINT_OPTIONS, checkpoint_capturing, checkpoint_with_options,
};
pub use derivatives::{has_map_derivative, sum_to_shape};
pub use engine::{Backward, backward, backward_all, grad};
pub use function::{Ctx, Function, apply};
pub use grad_mode::{enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled};
