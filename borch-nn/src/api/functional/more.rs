//! The catalog entries of the activations, losses, dropouts, distances and embedding_bag added
//! after the first catalog (`functional::{activation_more, loss_more, margin, ctc, distance,
//! dropout_more, embedding_bag}`), with torch's signatures.

use borch_tensor::api::{Args, Entry, Value};
use borch_tensor::{BorchError, Result, Tensor};

use super::{entry, legacy, not_in_place, ok, reduction};
use crate::functional::{self as F, BagMode, Lengths};

/// A length argument of ctc_loss: an int64 tensor or a list of ints.
fn lengths(a: &Args, i: usize) -> Result<Lengths> {
    match a.get(i) {
        Value::Tensor(t) => Ok(Lengths::Tensor(t.clone())),
        _ => Ok(Lengths::Ints(
            a.ints(i)?.into_iter().map(|v| v as i64).collect(),
        )),
    }
}

fn t(a: &Args, i: usize) -> Result<Tensor> {
    a.tensor(i)
}

/// The entries, in torch's documentation order within each group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<Entry> {
    vec![
        entry("prelu", "input: Tensor, weight: Tensor", |a| ok(F::prelu(&t(a, 0)?, &t(a, 1)?))),
        entry("rrelu", "input: Tensor, lower: Float = 0.125, upper: Float = 0.3333333333333333, \
                        training: Bool = False, inplace: Bool = False",
            |a| { not_in_place(a, "rrelu", 4)?; ok(F::rrelu(&t(a, 0)?, a.f64(1)?, a.f64(2)?, a.bool(3)?)) }),
        entry("celu", "input: Tensor, alpha: Float = 1.0, inplace: Bool = False",
            |a| { not_in_place(a, "celu", 2)?; ok(F::celu(&t(a, 0)?, a.f64(1)?)) }),
        entry("glu", "input: Tensor, dim: Int = -1", |a| ok(F::glu(&t(a, 0)?, a.int(1)?))),
        entry("logsigmoid", "input: Tensor", |a| ok(F::logsigmoid(&t(a, 0)?))),
        entry("hardsigmoid", "input: Tensor, inplace: Bool = False",
            |a| { not_in_place(a, "hardsigmoid", 1)?; ok(F::hardsigmoid(&t(a, 0)?)) }),
        entry("hardshrink", "input: Tensor, lambd: Float = 0.5", |a| ok(F::hardshrink(&t(a, 0)?, a.f64(1)?))),
        entry("softshrink", "input: Tensor, lambd: Float = 0.5", |a| ok(F::softshrink(&t(a, 0)?, a.f64(1)?))),
        entry("tanhshrink", "input: Tensor", |a| ok(F::tanhshrink(&t(a, 0)?))),
        entry("softsign", "input: Tensor", |a| ok(F::softsign(&t(a, 0)?))),
        entry("softmin", "input: Tensor, dim: Int = None, _stacklevel: Int = 3, dtype: DType = None",
            |a| {
                let x = match a.dtype(3)? { Some(d) => t(a, 0)?.to_dtype(d)?, None => t(a, 0)? };
                ok(F::softmin(&x, a.opt_int(1)?))
            }),
        entry("threshold", "input: Tensor, threshold: Scalar, value: Scalar, inplace: Bool = False",
            |a| { not_in_place(a, "threshold", 3)?; ok(F::threshold(&t(a, 0)?, a.scalar(1)?, a.scalar(2)?)) }),
        entry("poisson_nll_loss", "input: Tensor, target: Tensor, log_input: Bool = True, full: Bool = False, \
               size_average: Bool = None, eps: Float = 1e-08, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "poisson_nll_loss", 4, 6)?;
                ok(F::poisson_nll_loss(&t(a, 0)?, &t(a, 1)?, a.bool(2)?, a.bool(3)?, a.f64(5)?, reduction(a, 7)?))
            }),
        entry("gaussian_nll_loss", "input: Tensor, target: Tensor, var: Operand, full: Bool = False, \
               eps: Float = 1e-06, reduction: Str = 'mean'",
            |a| {
                let red = a.str(5)?;
                let r = red.parse().map_err(|_| BorchError::Value(format!("{red} is not valid")))?;
                ok(F::gaussian_nll_loss(&t(a, 0)?, &t(a, 1)?, a.operand(2)?, a.bool(3)?, a.f64(4)?, r))
            }),
        entry("margin_ranking_loss", "input1: Tensor, input2: Tensor, target: Tensor, margin: Float = 0.0, \
               size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "margin_ranking_loss", 4, 5)?;
                ok(F::margin_ranking_loss(&t(a, 0)?, &t(a, 1)?, &t(a, 2)?, a.f64(3)?, reduction(a, 6)?))
            }),
        entry("hinge_embedding_loss", "input: Tensor, target: Tensor, margin: Float = 1.0, \
               size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "hinge_embedding_loss", 3, 4)?;
                ok(F::hinge_embedding_loss(&t(a, 0)?, &t(a, 1)?, a.f64(2)?, reduction(a, 5)?))
            }),
        entry("multilabel_margin_loss", "input: Tensor, target: Tensor, size_average: Bool = None, \
               reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "multilabel_margin_loss", 2, 3)?;
                ok(F::multilabel_margin_loss(&t(a, 0)?, &t(a, 1)?, reduction(a, 4)?))
            }),
        entry("soft_margin_loss", "input: Tensor, target: Tensor, size_average: Bool = None, \
               reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "soft_margin_loss", 2, 3)?;
                ok(F::soft_margin_loss(&t(a, 0)?, &t(a, 1)?, reduction(a, 4)?))
            }),
        entry("multilabel_soft_margin_loss", "input: Tensor, target: Tensor, weight: Tensor = None, \
               size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "multilabel_soft_margin_loss", 3, 4)?;
                let red = a.str(5)?;
                let r = red.parse().map_err(|_| BorchError::Value(format!("{red} is not valid")))?;
                ok(F::multilabel_soft_margin_loss(&t(a, 0)?, &t(a, 1)?, a.opt_tensor(2)?.as_ref(), r))
            }),
        entry("cosine_embedding_loss", "input1: Tensor, input2: Tensor, target: Tensor, margin: Float = 0.0, \
               size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "cosine_embedding_loss", 4, 5)?;
                ok(F::cosine_embedding_loss(&t(a, 0)?, &t(a, 1)?, &t(a, 2)?, a.f64(3)?, reduction(a, 6)?))
            }),
        entry("multi_margin_loss", "input: Tensor, target: Tensor, p: Int = 1, margin: Float = 1.0, \
               weight: Tensor = None, size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "multi_margin_loss", 5, 6)?;
                ok(F::multi_margin_loss(&t(a, 0)?, &t(a, 1)?, a.i64(2)?, a.f64(3)?, a.opt_tensor(4)?.as_ref(),
                    reduction(a, 7)?))
            }),
        entry("triplet_margin_loss", "anchor: Tensor, positive: Tensor, negative: Tensor, margin: Float = 1.0, \
               p: Float = 2, eps: Float = 1e-06, swap: Bool = False, size_average: Bool = None, \
               reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "triplet_margin_loss", 7, 8)?;
                ok(F::triplet_margin_loss(&t(a, 0)?, &t(a, 1)?, &t(a, 2)?, a.f64(3)?, a.f64(4)?, a.f64(5)?,
                    a.bool(6)?, reduction(a, 9)?))
            }),
        entry("triplet_margin_with_distance_loss", "anchor: Tensor, positive: Tensor, negative: Tensor, \
               distance_function: Tensor = None, margin: Float = 1.0, swap: Bool = False, reduction: Str = 'mean'",
            |a| {
                if !a.get(3).is_none() {
                    return Err(BorchError::NotImplemented(
                        "triplet_margin_with_distance_loss(): borch's catalog takes no custom \
                         distance_function (a callable); leave it None for torch's pairwise_distance".into()));
                }
                let red = a.str(6)?;
                let r = red.parse().map_err(|_| BorchError::Value(format!("{red} is not a valid value for reduction")))?;
                ok(F::triplet_margin_with_distance_loss(&t(a, 0)?, &t(a, 1)?, &t(a, 2)?, None, a.f64(4)?,
                    a.bool(5)?, r))
            }),
        entry("ctc_loss", "log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor, \
               blank: Int = 0, reduction: Str = 'mean', zero_infinity: Bool = False",
            |a| ok(F::ctc_loss(&t(a, 0)?, &t(a, 1)?, &lengths(a, 2)?, &lengths(a, 3)?, a.i64(4)?,
                reduction(a, 5)?, a.bool(6)?))),
        entry("pairwise_distance", "x1: Tensor, x2: Tensor, p: Float = 2.0, eps: Float = 1e-06, keepdim: Bool = False",
            |a| ok(F::pairwise_distance(&t(a, 0)?, &t(a, 1)?, a.f64(2)?, a.f64(3)?, a.bool(4)?))),
        entry("cosine_similarity", "x1: Tensor, x2: Tensor, dim: Int = 1, eps: Float = 1e-08",
            |a| ok(F::cosine_similarity(&t(a, 0)?, &t(a, 1)?, a.int(2)?, a.f64(3)?))),
        entry("dropout1d", "input: Tensor, p: Float = 0.5, training: Bool = True, inplace: Bool = False",
            |a| { not_in_place(a, "dropout1d", 3)?; ok(F::dropout1d(&t(a, 0)?, a.f64(1)?, a.bool(2)?)) }),
        entry("dropout2d", "input: Tensor, p: Float = 0.5, training: Bool = True, inplace: Bool = False",
            |a| { not_in_place(a, "dropout2d", 3)?; ok(F::dropout2d(&t(a, 0)?, a.f64(1)?, a.bool(2)?)) }),
        entry("dropout3d", "input: Tensor, p: Float = 0.5, training: Bool = True, inplace: Bool = False",
            |a| { not_in_place(a, "dropout3d", 3)?; ok(F::dropout3d(&t(a, 0)?, a.f64(1)?, a.bool(2)?)) }),
        entry("alpha_dropout", "input: Tensor, p: Float = 0.5, training: Bool = False, inplace: Bool = False",
            |a| { not_in_place(a, "alpha_dropout", 3)?; ok(F::alpha_dropout(&t(a, 0)?, a.f64(1)?, a.bool(2)?)) }),
        entry("feature_alpha_dropout", "input: Tensor, p: Float = 0.5, training: Bool = False, inplace: Bool = False",
            |a| {
                not_in_place(a, "feature_alpha_dropout", 3)?;
                ok(F::feature_alpha_dropout(&t(a, 0)?, a.f64(1)?, a.bool(2)?))
            }),
        entry("embedding_bag", "input: Tensor, weight: Tensor, offsets: Tensor = None, max_norm: Float = None, \
               norm_type: Float = 2, scale_grad_by_freq: Bool = False, mode: Str = 'mean', sparse: Bool = False, \
               per_sample_weights: Tensor = None, include_last_offset: Bool = False, padding_idx: Int = None",
            |a| {
                let mode = BagMode::parse(a.str(6)?)?;
                if !a.get(3).is_none() || a.bool(5)? || a.bool(7)? {
                    return Err(BorchError::NotImplemented(
                        "embedding_bag(): borch has no max_norm, scale_grad_by_freq or sparse".into()));
                }
                ok(F::embedding_bag(&t(a, 0)?, &t(a, 1)?, a.opt_tensor(2)?.as_ref(), mode,
                    a.opt_tensor(8)?.as_ref(), a.bool(9)?, a.opt_int(10)?.map(|p| p as i64)))
            }),
    ]
}
