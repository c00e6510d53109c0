//! `torch.nn.utils`: gradient clipping, parameter/vector conversion (and their catalog), and
//! `fusion` (Conv/Linear-BatchNorm folding, `fuse_modules`, borch's `fuse_for_eval`; its catalog for
//! bindings: `fusion_catalog`), and LoRA's helpers (`lora`; their catalog: `lora_catalog`).

mod catalog;
mod clip_grad;
mod convert_parameters;
pub mod fusion;
pub mod fusion_catalog;
pub mod lora;
pub mod lora_catalog;
pub mod rnn;

pub use catalog::{MODULE, call, entries};
pub use clip_grad::{clip_grad_norm_, clip_grad_value_};
pub use convert_parameters::{parameters_to_vector, vector_to_parameters};
pub use fusion::{
    fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_for_eval, fuse_known_modules,
    fuse_linear_bn_eval, fuse_linear_bn_weights, fuse_modules, fuse_modules_qat,
};
