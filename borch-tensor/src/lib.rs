#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod api;
pub mod autograd;
mod compiled;
mod dtype;
mod error;
pub mod format;
mod host;
mod inplace;
mod kernels;
mod layout;
pub mod op_trace;
pub mod ops;
pub mod random;
pub mod raw;
pub use autograd::{
    AlongOp, AutogradMeta, BackwardFn, GradHook, MatmulOp, Node, Op, ReduceOp, ShapeOp, ViewOp,
    is_grad_enabled, record, record_custom, set_grad_enabled,
};
mod scalar;
mod scope;
pub mod size;
mod tensor;

pub use borch_device::{AdapterInfo, Device, DeviceOptions, TraceOutcome, default_device, init};
pub use compiled::{Compiled, Traces, compiled, tensors_of};
pub use dtype::DType;
pub use error::{BorchError, ErrorKind, Result};
pub use host::{Element, HostData, NdData};
pub use kernels::check::check_index_errors;
pub use layout::{Layout, broadcast_shapes, fmt_size, wrap_dim};
pub use ops::backward_maps::{gelu_backward, relu_backward};
pub use ops::batch_norm::{BatchNormMomentum, batch_norm_fusable, batch_norm_fused};
pub use ops::conv::{Padding, conv1d, conv2d};
pub use ops::conv_fused::{conv2d_fused, linear_relu};
pub use ops::conv_transpose::{
    TransposeArgs, conv_transpose1d, conv_transpose2d, conv_transpose3d,
};
pub use ops::conv3d::conv3d;
pub use ops::creation::{arange, arange_to, empty, eye, full, linspace, ones, zeros};
pub use ops::elementwise::where_cond;
pub use ops::join::{cat, stack};
pub use ops::layer_norm::{layer_norm_fusable, layer_norm_fused};
pub use ops::pool::{adaptive_avg_pool2d, avg_pool2d, max_pool2d, max_pool2d_with_indices};
pub use ops::pool_adaptive::{
    adaptive_avg_pool1d, adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool2d,
    adaptive_max_pool3d, max_unpool,
};
pub use ops::pool_nd::{
    avg_pool1d, avg_pool3d, max_pool1d, max_pool1d_with_indices, max_pool3d,
    max_pool3d_with_indices,
};
pub use ops::random::{normal, rand, randint, randn, randperm};
pub use ops::rnn_gates::{GateKind, rnn_gates_fusable, rnn_gates_fused};
pub use ops::rnn_layer::{rnn_layer_fusable, rnn_layer_fused, rnn_layer_outputs};
pub use ops::sdpa::{
    SdpaComposed, SdpaOptions, SdpaPath, sdpa_fusable, sdpa_fused, sdpa_path, set_sdpa_path,
};
pub use ops::unfold::{Window, Window2d, Window3d};
pub use random::{Generator, default_generator, initial_seed, manual_seed};
pub use scalar::{Operand, Scalar};
pub use scope::{Scope, keep_alive, keep_like, scope};
pub use tensor::Tensor;

/// Every generated WGSL kernel source with a name, for validation by naga without a GPU.
pub fn kernel_sources() -> Vec<(String, String)> {
    let mut sources = kernels::map::table_sources();
    sources.extend(kernels::shape_sources());
    sources.extend(ops::reduce_specs::kernel_sources());
    sources
}
