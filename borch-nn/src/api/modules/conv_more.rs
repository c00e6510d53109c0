//! Conv3d and ConvTranspose1d/2d/3d.

use borch_tensor::Result;
use borch_tensor::api::Args;

use super::{ModuleClass, boxed, class, factory};
use crate::{
    Conv3d, ConvOptions, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, ConvTransposeOptions,
};

/// torch's `Conv3d` constructor signature (`_ConvNd`'s).
const CONV: &str = "in_channels: Int, out_channels: Int, kernel_size: Ints, stride: Ints = 1, \
                    padding: Padding = 0, dilation: Ints = 1, groups: Int = 1, bias: Bool = True, \
                    padding_mode: Str = 'zeros', device: Str = None, dtype: DType = None";

/// torch's `_ConvTransposeNd` constructor signature.
const CONV_TRANSPOSE: &str = "in_channels: Int, out_channels: Int, kernel_size: Ints, \
                              stride: Ints = 1, padding: Ints = 0, output_padding: Ints = 0, \
                              groups: Int = 1, bias: Bool = True, dilation: Ints = 1, \
                              padding_mode: Str = 'zeros', device: Str = None, dtype: DType = None";

/// `CONV`'s arguments from `first` (stride) on as the core's options (Lazy classes too).
pub(super) fn conv_options(a: &Args, first: usize) -> Result<ConvOptions> {
    factory(a, first + 6)?;
    Ok(ConvOptions::default()
        .stride(&a.sizes(first)?)
        .padding(a.padding(first + 1)?)
        .dilation(&a.sizes(first + 2)?)
        .groups(a.usize(first + 3)?)
        .bias(a.bool(first + 4)?)
        .padding_mode(a.str(first + 5)?))
}

/// `CONV_TRANSPOSE`'s arguments from `first` (stride) on as the core's options.
pub(super) fn transpose_options(a: &Args, first: usize) -> Result<ConvTransposeOptions> {
    factory(a, first + 7)?;
    Ok(ConvTransposeOptions {
        stride: a.sizes(first)?,
        padding: a.sizes(first + 1)?,
        output_padding: a.sizes(first + 2)?,
        groups: a.usize(first + 3)?,
        bias: a.bool(first + 4)?,
        dilation: a.sizes(first + 5)?,
        padding_mode: a.str(first + 6)?.to_string(),
    })
}

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("Conv3d", CONV, |a| {
            let o = conv_options(a, 3)?;
            boxed(Conv3d::with_options(a.usize(0)?, a.usize(1)?, &a.sizes(2)?, o)?)
        }),
        class("ConvTranspose1d", CONV_TRANSPOSE, |a| {
            let o = transpose_options(a, 3)?;
            boxed(ConvTranspose1d::with_options(a.usize(0)?, a.usize(1)?, &a.sizes(2)?, o)?)
        }),
        class("ConvTranspose2d", CONV_TRANSPOSE, |a| {
            let o = transpose_options(a, 3)?;
            boxed(ConvTranspose2d::with_options(a.usize(0)?, a.usize(1)?, &a.sizes(2)?, o)?)
        }),
        class("ConvTranspose3d", CONV_TRANSPOSE, |a| {
            let o = transpose_options(a, 3)?;
            boxed(ConvTranspose3d::with_options(a.usize(0)?, a.usize(1)?, &a.sizes(2)?, o)?)
        }),
    ]
}
