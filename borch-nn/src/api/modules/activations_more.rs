//! The activation modules added after the first set (PReLU … Threshold).

use super::{ModuleClass, boxed, class, factory, no_inplace};
use crate::{
    CELU, GLU, Hardshrink, Hardsigmoid, LogSigmoid, PReLU, RReLU, Softmax2d, Softmin, Softshrink,
    Softsign, Tanhshrink, Threshold,
};

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("PReLU", "num_parameters: Int = 1, init: Float = 0.25, device: Str = None, dtype: DType = None",
            |a| { factory(a, 2)?; boxed(PReLU::new(a.usize(0)?, a.f64(1)?)?) }),
        class("RReLU", "lower: Float = 0.125, upper: Float = 0.3333333333333333, inplace: Bool = False",
            |a| { no_inplace(a, 2)?; boxed(RReLU::new(a.f64(0)?, a.f64(1)?)) }),
        class("CELU", "alpha: Float = 1.0, inplace: Bool = False",
            |a| { no_inplace(a, 1)?; boxed(CELU::new(a.f64(0)?)) }),
        class("GLU", "dim: Int = -1", |a| boxed(GLU::new(a.int(0)?))),
        class("LogSigmoid", "", |_| boxed(LogSigmoid::new())),
        class("Hardsigmoid", "inplace: Bool = False", |a| { no_inplace(a, 0)?; boxed(Hardsigmoid::new()) }),
        class("Hardshrink", "lambd: Float = 0.5", |a| boxed(Hardshrink::new(a.f64(0)?))),
        class("Softshrink", "lambd: Float = 0.5", |a| boxed(Softshrink::new(a.f64(0)?))),
        class("Tanhshrink", "", |_| boxed(Tanhshrink::new())),
        class("Softsign", "", |_| boxed(Softsign::new())),
        class("Softmin", "dim: Int = None", |a| boxed(Softmin::new(a.opt_int(0)?))),
        class("Softmax2d", "", |_| boxed(Softmax2d::new())),
        class("Threshold", "threshold: Scalar, value: Scalar, inplace: Bool = False",
            |a| { no_inplace(a, 2)?; boxed(Threshold::new(a.scalar(0)?, a.scalar(1)?)) }),
    ]
}
