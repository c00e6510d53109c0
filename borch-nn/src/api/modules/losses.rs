//! The loss modules. torch's deprecated `size_average` and `reduce` keep their places in the
//! signatures (so positions are torch's) and are refused when given.

use super::{ModuleClass, boxed, class, legacy, reduction};
use crate::{
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss,
    SmoothL1Loss,
};

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("MSELoss", "size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| { legacy(a, 0, 1)?; boxed(MSELoss::new().reduction(reduction(a, 2)?)) }),
        class("L1Loss", "size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| { legacy(a, 0, 1)?; boxed(L1Loss::new().reduction(reduction(a, 2)?)) }),
        class("SmoothL1Loss", "size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean', beta: Float = 1.0",
            |a| { legacy(a, 0, 1)?; boxed(SmoothL1Loss::new().reduction(reduction(a, 2)?).beta(a.f64(3)?)) }),
        class("HuberLoss", "reduction: Str = 'mean', delta: Float = 1.0",
            |a| boxed(HuberLoss::new().reduction(reduction(a, 0)?).delta(a.f64(1)?))),
        class("BCELoss", "weight: Tensor = None, size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, 1, 2)?;
                let mut l = BCELoss::new().reduction(reduction(a, 3)?);
                l.weight = a.opt_tensor(0)?;
                boxed(l)
            }),
        class("BCEWithLogitsLoss", "weight: Tensor = None, size_average: Bool = None, reduce: Bool = None, \
                                    reduction: Str = 'mean', pos_weight: Tensor = None",
            |a| {
                legacy(a, 1, 2)?;
                let mut l = BCEWithLogitsLoss::new().reduction(reduction(a, 3)?);
                l.weight = a.opt_tensor(0)?;
                l.pos_weight = a.opt_tensor(4)?;
                boxed(l)
            }),
        class("CrossEntropyLoss", "weight: Tensor = None, size_average: Bool = None, ignore_index: Int = -100, \
                                   reduce: Bool = None, reduction: Str = 'mean', label_smoothing: Float = 0.0",
            |a| {
                legacy(a, 1, 3)?;
                let mut l = CrossEntropyLoss::new()
                    .ignore_index(a.i64(2)?)
                    .reduction(reduction(a, 4)?)
                    .label_smoothing(a.f64(5)?);
                l.weight = a.opt_tensor(0)?;
                boxed(l)
            }),
        class("NLLLoss", "weight: Tensor = None, size_average: Bool = None, ignore_index: Int = -100, \
                          reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, 1, 3)?;
                let mut l = NLLLoss::new().ignore_index(a.i64(2)?).reduction(reduction(a, 4)?);
                l.weight = a.opt_tensor(0)?;
                boxed(l)
            }),
        class("KLDivLoss", "size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean', log_target: Bool = False",
            |a| { legacy(a, 0, 1)?; boxed(KLDivLoss::new().reduction(reduction(a, 2)?).log_target(a.bool(3)?)) }),
    ]
}
