//! The layers of torch.nn, each a struct implementing `Module` over `nn::functional`.

mod activation;
mod activation_more;
mod adaptive_softmax;
pub(crate) mod attention;
mod container;
mod conv;
mod conv_transpose;
mod dropout;
mod dropout_distance;
mod embedding;
mod embedding_bag;
mod fractional_pool;
mod lazy;
mod linear;
mod lora;
mod loss;
mod loss_more;
mod more_layers;
mod normalization;
mod normalization_batch;
mod padding;
mod pooling;
mod pooling_more;
pub(crate) mod recurrent;
pub(crate) mod recurrent_packed;
pub(crate) mod recurrent_seq;
mod resample;
mod reshape;
pub(crate) mod transformer;
pub(crate) mod transformer_layers;

pub use activation::{
    ELU, GELU, Hardswish, Hardtanh, LeakyReLU, LogSoftmax, Mish, ReLU, ReLU6, SELU, SiLU, Sigmoid,
    Softmax, Softplus, Tanh,
};
pub use activation_more::{
    CELU, GLU, Hardshrink, Hardsigmoid, LogSigmoid, PReLU, RReLU, Softmax2d, Softmin, Softshrink,
    Softsign, Tanhshrink, Threshold,
};
pub use adaptive_softmax::{ADAPTIVE_LOG_SOFTMAX_FORWARD, AdaptiveLogSoftmaxWithLoss};
pub use attention::{MhaConfig, MultiheadAttention, NonDynamicallyQuantizableLinear};
pub use container::{ModuleDict, ModuleList, Sequential, child_name, child_name_at, module_id};
pub use conv::{Conv1d, Conv2d, Conv3d, ConvOptions};
pub use conv_transpose::{ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, ConvTransposeOptions};
pub use dropout::Dropout;
pub use dropout_distance::{
    AlphaDropout, CosineSimilarity, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout,
    PairwiseDistance,
};
pub use embedding::Embedding;
pub use embedding_bag::{EmbeddingBag, ParameterList};
pub use fractional_pool::{FractionalMaxPool2d, FractionalMaxPool3d};
pub use lazy::{
    Lazy, LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d,
    LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d,
    LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear,
};
pub use linear::{Bilinear, Identity, Linear};
pub(crate) use lora::check_rank;
pub use lora::{LoRAConv2d, LoRALinear};
pub use loss::{
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss,
    SmoothL1Loss,
};
pub use loss_more::{
    CTCLoss, CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, MarginRankingLoss,
    MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, PoissonNLLLoss,
    SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
};
pub use more_layers::{CrossMapLRN2d, NLLLoss2d, ParameterDict};
pub use normalization::{LayerNorm, RMSNorm};
pub use normalization_batch::{
    BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d,
    InstanceNorm3d, LocalResponseNorm, SyncBatchNorm,
};
pub use padding::{
    CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
    ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
    ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,
};
pub use pooling::{AdaptiveAvgPool2d, AvgPool2d, MaxPool2d};
pub use pooling_more::{
    AdaptiveAvgPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d,
    AvgPool1d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d, MaxPool1d, MaxPool3d, MaxUnpool1d,
    MaxUnpool2d, MaxUnpool3d,
};
pub use recurrent::{GRUCell, LSTMCell, RNNCell};
pub use recurrent_seq::{GRU, LSTM, RNN, RNNBase, RnnMode, RnnOptions};
pub use resample::{ChannelShuffle, Fold, PixelShuffle, PixelUnshuffle, Unfold, Upsample};
pub use reshape::{Flatten, Unflatten};
pub use transformer::{
    Transformer, TransformerDecoder, TransformerEncoder, generate_square_subsequent_mask,
    square_subsequent_mask,
};
pub use transformer_layers::{
    Activation, DecoderMasks, LayerConfig, TransformerDecoderLayer, TransformerEncoderLayer,
};

use borch_tensor::{DType, Result, Tensor, empty, keep_alive};

/// A new parameter: an uninitialised float32 leaf that requires grad (the caller initialises
/// it, as torch's `Parameter(torch.empty(...))` followed by `reset_parameters`), kept alive so
/// that no memory scope releases it.
pub(crate) fn parameter(shape: &[usize]) -> Result<Tensor> {
    let t = keep_alive(&empty(shape, DType::Float32)?);
    t.set_requires_grad(true)?;
    Ok(t)
}

/// `[(name, tensor)]` for the parameters that are present.
pub(crate) fn present(items: &[(&str, Option<&Tensor>)]) -> Vec<(String, Tensor)> {
    items
        .iter()
        .filter_map(|(n, t)| t.map(|t| (n.to_string(), t.clone())))
        .collect()
}
