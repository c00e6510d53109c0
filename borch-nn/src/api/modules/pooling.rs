//! MaxPool2d, AvgPool2d and AdaptiveAvgPool2d.

use super::{ModuleClass, boxed, class};
use crate::{AdaptiveAvgPool2d, AvgPool2d, MaxPool2d};

/// MaxPool1d/2d/3d's signature.
pub(super) const MAX_POOL: &str = "kernel_size: Ints, stride: Ints = None, padding: Ints = 0, \
                                   dilation: Ints = 1, return_indices: Bool = False, \
                                   ceil_mode: Bool = False";
/// AvgPool2d/3d's signature.
pub(super) const AVG_POOL: &str = "kernel_size: Ints, stride: Ints = None, padding: Ints = 0, \
                                   ceil_mode: Bool = False, count_include_pad: Bool = True, \
                                   divisor_override: Int = None";

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("MaxPool2d", MAX_POOL,
            |a| boxed(MaxPool2d::with_options(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(), &a.sizes(2)?,
                &a.sizes(3)?, a.bool(4)?, a.bool(5)?))),
        class("AvgPool2d", AVG_POOL,
            |a| boxed(AvgPool2d::with_options(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(), &a.sizes(2)?,
                a.bool(3)?, a.bool(4)?, a.opt_int(5)?))),
        // `None` in output_size keeps that input size.
        class("AdaptiveAvgPool2d", "output_size: SizesOrNone",
            |a| boxed(AdaptiveAvgPool2d::new(&a.sizes_or_none(0)?))),
    ]
}
