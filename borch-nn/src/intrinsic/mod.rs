//! `torch.ao.nn.intrinsic` (also `torch.nn.intrinsic`): fused modules. Each is a Sequential-like
//! container of the float modules, as torch's (`ConvReLU2d(conv, relu)`, children `0`, `1`, state
//! dict keys `0.weight`, `1.running_mean`, …), whose forward runs the fused op where there is
//! one: `ConvReLU2d`, `ConvAdd2d`, `ConvAddReLU2d` one `borch_tensor::conv2d_fused`, `LinearReLU`
//! one `borch_tensor::linear_relu`; `ConvBn*` / `ConvBnReLU*` / `LinearBn1d` in train mode conv
//! then BatchNorm (batch statistics, running statistics updated), in eval mode BatchNorm folded
//! into the weight and bias (`nn.utils.fusion.fuse_conv_bn_weights`, cached until a source
//! tensor changes) and one convolution.

pub mod catalog;
pub mod fold;
mod fused;

pub use catalog::{
    FusedClass, build_fused, check_add, check_fused, child_names, find_fused, fused_classes,
};
pub use fold::{BnParts, FoldCache, FoldKind, conv_bn2d_forward, conv2d_epilogue};
pub use fused::{
    BNReLU2d, BNReLU3d, ConvAdd2d, ConvAddReLU2d, ConvBn1d, ConvBn2d, ConvBn3d, ConvBnReLU1d,
    ConvBnReLU2d, ConvBnReLU3d, ConvReLU1d, ConvReLU2d, ConvReLU3d, LinearBn1d, LinearLeakyReLU,
    LinearReLU, LinearTanh,
};
