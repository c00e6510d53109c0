//! The loss modules added after the first nine. torch's deprecated `size_average` and `reduce`
//! keep their places (refused when given); torch's keyword-only options are ordinary keywords.

use borch_tensor::BorchError;

use super::{ModuleClass, boxed, class, legacy, reduction};
use crate::{
    CTCLoss, CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, MarginRankingLoss,
    MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, PoissonNLLLoss,
    SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
};

const LEGACY: &str = "size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'";

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("PoissonNLLLoss", "log_input: Bool = True, full: Bool = False, size_average: Bool = None, \
                                 eps: Float = 1e-08, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, 2, 4)?;
                let mut l = PoissonNLLLoss::new();
                (l.log_input, l.full, l.eps, l.reduction) = (a.bool(0)?, a.bool(1)?, a.f64(3)?, reduction(a, 5)?);
                boxed(l)
            }),
        class("GaussianNLLLoss", "full: Bool = False, eps: Float = 1e-06, reduction: Str = 'mean'",
            |a| {
                let mut l = GaussianNLLLoss::new();
                (l.full, l.eps, l.reduction) = (a.bool(0)?, a.f64(1)?, reduction(a, 2)?);
                boxed(l)
            }),
        class("MarginRankingLoss", "margin: Float = 0.0, size_average: Bool = None, reduce: Bool = None, \
                                    reduction: Str = 'mean'",
            |a| {
                legacy(a, 1, 2)?;
                let mut l = MarginRankingLoss::new();
                (l.margin, l.reduction) = (a.f64(0)?, reduction(a, 3)?);
                boxed(l)
            }),
        class("HingeEmbeddingLoss", "margin: Float = 1.0, size_average: Bool = None, reduce: Bool = None, \
                                     reduction: Str = 'mean'",
            |a| {
                legacy(a, 1, 2)?;
                let mut l = HingeEmbeddingLoss::new();
                (l.margin, l.reduction) = (a.f64(0)?, reduction(a, 3)?);
                boxed(l)
            }),
        class("MultiLabelMarginLoss", LEGACY, |a| {
            legacy(a, 0, 1)?;
            let mut l = MultiLabelMarginLoss::new();
            l.reduction = reduction(a, 2)?;
            boxed(l)
        }),
        class("SoftMarginLoss", LEGACY, |a| {
            legacy(a, 0, 1)?;
            let mut l = SoftMarginLoss::new();
            l.reduction = reduction(a, 2)?;
            boxed(l)
        }),
        class("MultiLabelSoftMarginLoss", "weight: Tensor = None, size_average: Bool = None, reduce: Bool = None, \
                                           reduction: Str = 'mean'",
            |a| {
                legacy(a, 1, 2)?;
                let mut l = MultiLabelSoftMarginLoss::new();
                (l.weight, l.reduction) = (a.opt_tensor(0)?, reduction(a, 3)?);
                boxed(l)
            }),
        class("CosineEmbeddingLoss", "margin: Float = 0.0, size_average: Bool = None, reduce: Bool = None, \
                                      reduction: Str = 'mean'",
            |a| {
                legacy(a, 1, 2)?;
                let mut l = CosineEmbeddingLoss::new();
                (l.margin, l.reduction) = (a.f64(0)?, reduction(a, 3)?);
                boxed(l)
            }),
        class("MultiMarginLoss", "p: Int = 1, margin: Float = 1.0, weight: Tensor = None, size_average: Bool = None, \
                                  reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, 3, 4)?;
                let p = a.i64(0)?;
                if p != 1 && p != 2 {
                    return Err(BorchError::Value("only p == 1 and p == 2 supported".into()));
                }
                let weight = a.opt_tensor(2)?;
                if let Some(w) = weight.as_ref().filter(|w| w.dim() != 1) {
                    return Err(BorchError::Value(format!(
                        "MultiMarginLoss: expected weight to be None or 1D tensor, got {}D instead", w.dim())));
                }
                let mut l = MultiMarginLoss::new();
                (l.p, l.margin, l.weight, l.reduction) = (p, a.f64(1)?, weight, reduction(a, 5)?);
                boxed(l)
            }),
        class("TripletMarginLoss", "margin: Float = 1.0, p: Float = 2.0, eps: Float = 1e-06, swap: Bool = False, \
                                    size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, 4, 5)?;
                let mut l = TripletMarginLoss::new();
                (l.margin, l.p, l.eps, l.swap, l.reduction) =
                    (a.f64(0)?, a.f64(1)?, a.f64(2)?, a.bool(3)?, reduction(a, 6)?);
                boxed(l)
            }),
        class("TripletMarginWithDistanceLoss", "distance_function: Tensor = None, margin: Float = 1.0, \
                                                swap: Bool = False, reduction: Str = 'mean'",
            |a| {
                if !a.get(0).is_none() {
                    return Err(BorchError::NotImplemented(
                        "TripletMarginWithDistanceLoss(distance_function=...): borch's catalog takes no \
                         custom distance function (a callable); leave it None for torch's pairwise_distance".into()));
                }
                let margin = a.f64(1)?;
                if margin <= 0.0 {
                    return Err(BorchError::Value(format!(
                        "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {} instead",
                        crate::py_float(margin))));
                }
                let mut l = TripletMarginWithDistanceLoss::new();
                (l.margin, l.swap, l.reduction) = (margin, a.bool(2)?, reduction(a, 3)?);
                boxed(l)
            }),
        class("CTCLoss", "blank: Int = 0, reduction: Str = 'mean', zero_infinity: Bool = False",
            |a| {
                let mut l = CTCLoss::new();
                (l.blank, l.reduction, l.zero_infinity) = (a.i64(0)?, reduction(a, 1)?, a.bool(2)?);
                boxed(l)
            }),
    ]
}
