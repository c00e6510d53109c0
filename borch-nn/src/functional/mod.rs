//! torch's `nn.functional`: every layer's computation as a free function. The modules call
//! these, so each is defined once.

mod activation;
mod activation_more;
mod attention;
mod cross_entropy;
mod cross_map_lrn;
mod ctc;
mod distance;
mod dropout;
mod dropout_more;
mod embedding_bag;
mod fold;
mod fractional_pool;
mod linear;
mod loss;
mod loss_more;
mod margin;
mod mha;
mod normalization;
mod normalization_batch;
pub(crate) mod padding;
mod pointwise;
mod pooling;
pub(crate) mod pooling_catalog;
mod resample;
mod sparse;

pub use activation::{
    SELU_ALPHA, SELU_SCALE, elu, gelu, hardswish, hardtanh, implicit_softmax_dim, leaky_relu,
    log_softmax, mish, relu, relu6, selu, sigmoid, silu, softmax, softplus, tanh,
};
pub use activation_more::{
    celu, glu, hardshrink, hardsigmoid, logsigmoid, prelu, rrelu, softmax2d, softmin, softshrink,
    softsign, tanhshrink, threshold,
};
pub use attention::{Sdpa, scaled_dot_product_attention};
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
pub use cross_map_lrn::cross_map_lrn2d;
pub use ctc::{Lengths, ctc_loss};
pub use distance::{cosine_similarity, pairwise_distance};
pub use dropout::dropout;
pub use dropout_more::{alpha_dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout};
pub use embedding_bag::{BagMode, embedding_bag};
pub use fold::{Blocks, fold, unfold};
pub use fractional_pool::{fractional_max_pool2d, fractional_max_pool3d};
pub use linear::{bilinear, linear};
pub use loss::{
    binary_cross_entropy, binary_cross_entropy_with_logits, huber_loss, kl_div, l1_loss, mse_loss,
    smooth_l1_loss,
};
pub use loss_more::{
    cosine_embedding_loss, gaussian_nll_loss, hinge_embedding_loss, margin_ranking_loss,
    multilabel_soft_margin_loss, poisson_nll_loss, soft_margin_loss, triplet_margin_loss,
    triplet_margin_with_distance_loss,
};
pub use margin::{multi_margin_loss, multilabel_margin_loss};
pub use mha::{MhaOptions, MhaWeights, canonical_mask, multi_head_attention_forward};
pub use normalization::{layer_norm, rms_norm};
pub(crate) use normalization_batch::batch_norm_counting;
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
