//! LayerNorm and RMSNorm.

use super::{ModuleClass, boxed, class, factory};
use crate::{LayerNorm, RMSNorm};

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("LayerNorm", "normalized_shape: Ints, eps: Float = 1e-05, elementwise_affine: Bool = True, \
                            bias: Bool = True, device: Str = None, dtype: DType = None",
            |a| { factory(a, 4)?; boxed(LayerNorm::with_options(&a.sizes(0)?, a.f64(1)?, a.bool(2)?, a.bool(3)?)?) }),
        class("RMSNorm", "normalized_shape: Ints, eps: Float = None, elementwise_affine: Bool = True, \
                          device: Str = None, dtype: DType = None",
            |a| { factory(a, 3)?; boxed(RMSNorm::with_options(&a.sizes(0)?, a.opt_f64(1)?, a.bool(2)?)?) }),
    ]
}
