//! The Lazy modules: LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d,
//! LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d (their input size inferred on the first
//! forward). torch's keyword-only `bias` of the Lazy norms is accepted as the last parameter.

use borch_tensor::Result;
use borch_tensor::api::Args;

use super::conv_more::{conv_options, transpose_options};
use super::{ModuleClass, boxed, class, factory};
use crate::{
    LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d,
    LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d,
    LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear,
};

const LAZY_CONV: &str = "out_channels: Int, kernel_size: Ints, stride: Ints = 1, padding: Padding = 0, \
                         dilation: Ints = 1, groups: Int = 1, bias: Bool = True, \
                         padding_mode: Str = 'zeros', device: Str = None, dtype: DType = None";
const LAZY_CONV_TRANSPOSE: &str = "out_channels: Int, kernel_size: Ints, stride: Ints = 1, \
                                   padding: Ints = 0, output_padding: Ints = 0, groups: Int = 1, \
                                   bias: Bool = True, dilation: Ints = 1, \
                                   padding_mode: Str = 'zeros', device: Str = None, dtype: DType = None";
/// torch's `_LazyNormBase` signature (LazyInstanceNorm's defaults are its too: affine and
/// track_running_stats True).
const LAZY_NORM: &str = "eps: Float = 1e-05, momentum: Float = 0.1 | None, affine: Bool = True, \
                         track_running_stats: Bool = True, device: Str = None, dtype: DType = None, \
                         bias: Bool = True";

/// `(eps, momentum, affine, track_running_stats, bias)` of `LAZY_NORM`.
fn norm_args(a: &Args) -> Result<(f64, Option<f64>, bool, bool, bool)> {
    factory(a, 4)?;
    Ok((a.f64(0)?, a.opt_f64(1)?, a.bool(2)?, a.bool(3)?, a.bool(6)?))
}

macro_rules! lazy_norm {
    ($name:literal, $t:ident) => {
        class($name, LAZY_NORM, |a| {
            let (eps, momentum, affine, track, bias) = norm_args(a)?;
            boxed($t::norm(eps, momentum, affine, track, bias)?)
        })
    };
}

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("LazyLinear", "out_features: Int, bias: Bool = True, device: Str = None, dtype: DType = None",
            |a| {
                factory(a, 2)?;
                boxed(LazyLinear::linear(a.usize(0)?, a.bool(1)?))
            }),
        class("LazyConv1d", LAZY_CONV, |a| boxed(LazyConv1d::conv1d(a.usize(0)?, &a.sizes(1)?, conv_options(a, 2)?))),
        class("LazyConv2d", LAZY_CONV, |a| boxed(LazyConv2d::conv2d(a.usize(0)?, &a.sizes(1)?, conv_options(a, 2)?))),
        class("LazyConv3d", LAZY_CONV, |a| boxed(LazyConv3d::conv3d(a.usize(0)?, &a.sizes(1)?, conv_options(a, 2)?))),
        class("LazyConvTranspose1d", LAZY_CONV_TRANSPOSE, |a| boxed(LazyConvTranspose1d::conv_transpose1d(
            a.usize(0)?, &a.sizes(1)?, transpose_options(a, 2)?))),
        class("LazyConvTranspose2d", LAZY_CONV_TRANSPOSE, |a| boxed(LazyConvTranspose2d::conv_transpose2d(
            a.usize(0)?, &a.sizes(1)?, transpose_options(a, 2)?))),
        class("LazyConvTranspose3d", LAZY_CONV_TRANSPOSE, |a| boxed(LazyConvTranspose3d::conv_transpose3d(
            a.usize(0)?, &a.sizes(1)?, transpose_options(a, 2)?))),
        lazy_norm!("LazyBatchNorm1d", LazyBatchNorm1d),
        lazy_norm!("LazyBatchNorm2d", LazyBatchNorm2d),
        lazy_norm!("LazyBatchNorm3d", LazyBatchNorm3d),
        lazy_norm!("LazyInstanceNorm1d", LazyInstanceNorm1d),
        lazy_norm!("LazyInstanceNorm2d", LazyInstanceNorm2d),
        lazy_norm!("LazyInstanceNorm3d", LazyInstanceNorm3d),
    ]
}
