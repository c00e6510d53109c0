//! The activation modules.

use super::{ModuleClass, boxed, class, no_inplace};
use crate::{
    ELU, GELU, Hardswish, Hardtanh, LeakyReLU, LogSoftmax, Mish, ReLU, ReLU6, SELU, SiLU, Sigmoid,
    Softmax, Softplus, Tanh,
};

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("ReLU", "inplace: Bool = False", |a| { no_inplace(a, 0)?; boxed(ReLU::new()) }),
        class("ReLU6", "inplace: Bool = False", |a| { no_inplace(a, 0)?; boxed(ReLU6::new()) }),
        class("SELU", "inplace: Bool = False", |a| { no_inplace(a, 0)?; boxed(SELU::new()) }),
        class("SiLU", "inplace: Bool = False", |a| { no_inplace(a, 0)?; boxed(SiLU::new()) }),
        class("Mish", "inplace: Bool = False", |a| { no_inplace(a, 0)?; boxed(Mish::new()) }),
        class("Tanh", "", |_| boxed(Tanh::new())),
        class("Sigmoid", "", |_| boxed(Sigmoid::new())),
        class("Hardswish", "inplace: Bool = False", |a| { no_inplace(a, 0)?; boxed(Hardswish::new()) }),
        class("LeakyReLU", "negative_slope: Float = 0.01, inplace: Bool = False",
            |a| { no_inplace(a, 1)?; boxed(LeakyReLU::new(a.f64(0)?)) }),
        class("ELU", "alpha: Float = 1.0, inplace: Bool = False",
            |a| { no_inplace(a, 1)?; boxed(ELU::new(a.f64(0)?)) }),
        class("GELU", "approximate: Str = 'none'", |a| boxed(GELU::new(a.str(0)?))),
        // torch's deprecated min_value / max_value, when given, take the place of min_val / max_val.
        class("Hardtanh", "min_val: Float = -1.0, max_val: Float = 1.0, inplace: Bool = False, \
                           min_value: Float = None, max_value: Float = None",
            |a| {
                no_inplace(a, 2)?;
                let min = a.opt_f64(3)?.map_or_else(|| a.f64(0), Ok)?;
                let max = a.opt_f64(4)?.map_or_else(|| a.f64(1), Ok)?;
                boxed(Hardtanh::new(min, max))
            }),
        class("Softplus", "beta: Float = 1.0, threshold: Float = 20.0",
            |a| boxed(Softplus::new(a.f64(0)?, a.f64(1)?))),
        class("Softmax", "dim: Int = None", |a| boxed(Softmax::new(a.opt_int(0)?))),
        class("LogSoftmax", "dim: Int = None", |a| boxed(LogSoftmax::new(a.opt_int(0)?))),
    ]
}
