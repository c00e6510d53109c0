//! torch's `nn.functional`: every layer's computation as a free function. The modules call
//! these, so each is defined once.

mod activation;
mod cross_entropy;
mod dropout;
mod fold;
mod linear;
mod loss;
mod normalization;
mod normalization_batch;
mod padding;
mod pointwise;
mod pooling;
pub(crate) mod pooling_catalog;
mod resample;
mod sparse;

pub use activation::{
    SELU_ALPHA, SELU_SCALE, elu, gelu, hardswish, hardtanh, implicit_softmax_dim, leaky_relu,
    log_softmax, mish, relu, relu6, selu, sigmoid, silu, softmax, softplus, tanh,
};
/// Convolution and pooling live in the core (`torch.conv2d` is a torch function too).
pub use borch_tensor::{
    Padding, adaptive_avg_pool2d, avg_pool2d, conv1d, conv2d, max_pool2d, max_pool2d_with_indices,
};
pub use borch_tensor::{
    TransposeArgs, adaptive_avg_pool1d, adaptive_avg_pool3d, adaptive_max_pool1d,
    adaptive_max_pool2d, adaptive_max_pool3d, avg_pool1d, avg_pool3d, conv_transpose1d,
    conv_transpose2d, conv_transpose3d, conv3d, max_pool1d, max_pool1d_with_indices, max_pool3d,
    max_pool3d_with_indices,
};
pub use cross_entropy::{cross_entropy, nll_loss};
pub use dropout::dropout;
pub use fold::{Blocks, fold, unfold};
pub use linear::{bilinear, linear};
pub use loss::{
    binary_cross_entropy, binary_cross_entropy_with_logits, huber_loss, kl_div, l1_loss, mse_loss,
    smooth_l1_loss,
};
pub use normalization::{layer_norm, rms_norm};
pub use normalization_batch::{
    Momentum, batch_norm, group_norm, instance_norm, local_response_norm, normalize,
};
pub use padding::{PadMode, pad};
pub use pooling::{lp_pool1d, lp_pool2d, lp_pool3d, max_unpool1d, max_unpool2d, max_unpool3d};
pub use resample::{channel_shuffle, interpolate, pixel_shuffle, pixel_unshuffle};
pub use sparse::embedding;
pub(crate) use sparse::padding_index;

/// torch's `F.one_hot(tensor, num_classes)` (`Tensor::one_hot`; `one_hot_infer` reads the
/// classes back when torch's `num_classes=-1` is wanted).
pub fn one_hot(
    tensor: &borch_tensor::Tensor,
    num_classes: usize,
) -> borch_tensor::Result<borch_tensor::Tensor> {
    tensor.one_hot(num_classes)
}

/// The `reduction=` argument of the losses.
pub use crate::reduction::Reduction;
