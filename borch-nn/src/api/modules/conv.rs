//! Conv1d and Conv2d.

use borch_tensor::Result;
use borch_tensor::api::Args;

use super::{ModuleClass, boxed, class, factory};
use crate::{Conv1d, Conv2d, ConvOptions};

/// torch's `_ConvNd` constructor signature.
const CONV: &str = "in_channels: Int, out_channels: Int, kernel_size: Ints, stride: Ints = 1, \
                    padding: Padding = 0, dilation: Ints = 1, groups: Int = 1, bias: Bool = True, \
                    padding_mode: Str = 'zeros', device: Str = None, dtype: DType = None";

/// Arguments 3..=8 of `CONV` as the core's options.
fn options(a: &Args) -> Result<ConvOptions> {
    factory(a, 9)?;
    Ok(ConvOptions::default()
        .stride(&a.sizes(3)?)
        .padding(a.padding(4)?)
        .dilation(&a.sizes(5)?)
        .groups(a.usize(6)?)
        .bias(a.bool(7)?)
        .padding_mode(a.str(8)?))
}

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("Conv1d", CONV, |a| {
            let o = options(a)?;
            boxed(Conv1d::with_options(a.usize(0)?, a.usize(1)?, &a.sizes(2)?, o)?)
        }),
        class("Conv2d", CONV, |a| {
            let o = options(a)?;
            boxed(Conv2d::with_options(a.usize(0)?, a.usize(1)?, &a.sizes(2)?, o)?)
        }),
    ]
}
