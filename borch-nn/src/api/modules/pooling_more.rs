//! MaxPool1d/3d, AvgPool1d/3d, AdaptiveAvgPool1d/3d, AdaptiveMaxPool1d/2d/3d, LPPool1d/2d/3d
//! and MaxUnpool1d/2d/3d.

use borch_tensor::api::Args;
use borch_tensor::{BorchError, Result};

use super::pooling::{AVG_POOL, MAX_POOL};
use super::{ModuleClass, boxed, class};
use crate::{
    AdaptiveAvgPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d,
    AvgPool1d, AvgPool3d, LPPool1d, LPPool2d, LPPool3d, MaxPool1d, MaxPool3d, MaxUnpool1d,
    MaxUnpool2d, MaxUnpool3d,
};

const LP_POOL: &str = "norm_type: Float, kernel_size: Ints, stride: Ints = None, \
                       ceil_mode: Bool = False";
const MAX_UNPOOL: &str = "kernel_size: Ints, stride: Ints = None, padding: Ints = 0";
const ADAPTIVE_MAX: &str = "output_size: SizesOrNone, return_indices: Bool = False";

/// AvgPool1d's one size (torch's `_single`; torch's forward refuses a longer tuple the same way).
fn single(a: &Args, i: usize, name: &str) -> Result<usize> {
    match a.sizes(i)?.as_slice() {
        [x] => Ok(*x),
        v => Err(BorchError::Runtime(format!(
            "avg_pool1d() argument '{name}' should contain one int (got {})",
            v.len()
        ))),
    }
}

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("MaxPool1d", MAX_POOL, |a| boxed(MaxPool1d::with_options(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(),
            &a.sizes(2)?, &a.sizes(3)?, a.bool(4)?, a.bool(5)?))),
        class("MaxPool3d", MAX_POOL, |a| boxed(MaxPool3d::with_options(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(),
            &a.sizes(2)?, &a.sizes(3)?, a.bool(4)?, a.bool(5)?))),
        class("AvgPool1d", "kernel_size: Ints, stride: Ints = None, padding: Ints = 0, ceil_mode: Bool = False, \
                            count_include_pad: Bool = True",
            |a| {
                let stride = match a.get(1).is_none() { true => None, false => Some(single(a, 1, "stride")?) };
                boxed(AvgPool1d::new(single(a, 0, "kernel_size")?, stride, single(a, 2, "padding")?,
                    a.bool(3)?, a.bool(4)?))
            }),
        class("AvgPool3d", AVG_POOL,
            |a| boxed(AvgPool3d::with_options(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(), &a.sizes(2)?, a.bool(3)?,
                a.bool(4)?, a.opt_int(5)?))),
        class("AdaptiveAvgPool1d", "output_size: SizesOrNone",
            |a| boxed(AdaptiveAvgPool1d::new(&a.sizes_or_none(0)?))),
        class("AdaptiveAvgPool3d", "output_size: SizesOrNone",
            |a| boxed(AdaptiveAvgPool3d::new(&a.sizes_or_none(0)?))),
        class("AdaptiveMaxPool1d", ADAPTIVE_MAX,
            |a| boxed(AdaptiveMaxPool1d::new(&a.sizes_or_none(0)?, a.bool(1)?))),
        class("AdaptiveMaxPool2d", ADAPTIVE_MAX,
            |a| boxed(AdaptiveMaxPool2d::new(&a.sizes_or_none(0)?, a.bool(1)?))),
        class("AdaptiveMaxPool3d", ADAPTIVE_MAX,
            |a| boxed(AdaptiveMaxPool3d::new(&a.sizes_or_none(0)?, a.bool(1)?))),
        class("LPPool1d", LP_POOL,
            |a| boxed(LPPool1d::new(a.scalar(0)?, &a.sizes(1)?, a.opt_sizes(2)?.as_deref(), a.bool(3)?))),
        class("LPPool2d", LP_POOL,
            |a| boxed(LPPool2d::new(a.scalar(0)?, &a.sizes(1)?, a.opt_sizes(2)?.as_deref(), a.bool(3)?))),
        class("LPPool3d", LP_POOL,
            |a| boxed(LPPool3d::new(a.scalar(0)?, &a.sizes(1)?, a.opt_sizes(2)?.as_deref(), a.bool(3)?))),
        class("MaxUnpool1d", MAX_UNPOOL,
            |a| boxed(MaxUnpool1d::new(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(), &a.sizes(2)?))),
        class("MaxUnpool2d", MAX_UNPOOL,
            |a| boxed(MaxUnpool2d::new(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(), &a.sizes(2)?))),
        class("MaxUnpool3d", MAX_UNPOOL,
            |a| boxed(MaxUnpool3d::new(&a.sizes(0)?, a.opt_sizes(1)?.as_deref(), &a.sizes(2)?))),
    ]
}
