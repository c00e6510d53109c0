//! More of torch's losses, composed as torch composes them (so the gradients are torch's):
//! poisson_nll, gaussian_nll, margin_ranking, hinge_embedding, soft_margin,
//! multilabel_soft_margin, cosine_embedding, triplet_margin and
//! triplet_margin_with_distance (with the default distance).

use borch_tensor::{BorchError, Operand, Result, Tensor, fmt_size, ones, where_cond};

use super::activation_more::logsigmoid;
use super::distance::pairwise_distance;
use crate::reduction::Reduction;

/// A distance between two batches of vectors (`triplet_margin_with_distance_loss`'s
/// `distance_function`).
pub type Distance<'a> = &'a dyn Fn(&Tensor, &Tensor) -> Result<Tensor>;

fn value_err<T>(msg: String) -> Result<T> {
    Err(BorchError::Value(msg))
}

/// torch's `F.poisson_nll_loss(input, target, log_input, full, eps, reduction)`.
pub fn poisson_nll_loss(
    input: &Tensor,
    target: &Tensor,
    log_input: bool,
    full: bool,
    eps: f64,
    reduction: Reduction,
) -> Result<Tensor> {
    reduction.plain()?;
    let mut loss = if log_input {
        input.exp()?.sub(&target.mul(input)?)?
    } else {
        input.sub(&target.mul(&input.add(eps)?.log()?)?)?
    };
    if full {
        // target log(target) - target + 0.5 log(2π target), zero where target <= 1.
        let stirling = target
            .mul(&target.log()?)?
            .sub(target)?
            .add(&target.mul(2.0 * std::f64::consts::PI)?.log()?.mul(0.5)?)?;
        loss = loss.add(&stirling.masked_fill(&target.le(1.0)?, 0.0)?)?;
    }
    reduction.apply(&loss)
}

/// torch's `F.gaussian_nll_loss(input, target, var, full, eps, reduction)`:
/// `0.5 (log var + (input - target)² / var)` with `var` clamped at `eps` (the clamp does not
/// stop the gradient, as torch's in-place clamp under no_grad). torch's check that no entry of
/// `var` is negative reads the data back: borch does not make it.
pub fn gaussian_nll_loss(
    input: &Tensor,
    target: &Tensor,
    var: Operand,
    full: bool,
    eps: f64,
    reduction: Reduction,
) -> Result<Tensor> {
    let mut var = match var {
        Operand::Tensor(v) => v,
        Operand::Scalar(s) => {
            let v = s.to_f64();
            if v < 0.0 {
                return value_err("var has negative entry/entries".into());
            }
            ones(input.shape(), input.dtype())?.mul(v)?
        }
    };
    if var.shape() != input.shape() {
        let (is, vs) = (input.shape(), var.shape());
        let mismatched: usize = is
            .iter()
            .zip(vs)
            .filter(|(x, y)| x != y)
            .map(|(_, &y)| y)
            .sum();
        if !is.is_empty() && &is[..is.len() - 1] == vs {
            var = var.unsqueeze(-1)?;
        } else if !(is.len() == vs.len() && mismatched == 1) {
            return value_err("var is of incorrect size".into());
        }
    }
    if matches!(reduction, Reduction::BatchMean) {
        return value_err("batchmean is not valid".into());
    }
    let clamped = var.clamp_min(eps)?.sub(&var)?.detach();
    let var = var.add(&clamped)?;
    let mut loss = var
        .log()?
        .add(&input.sub(target)?.square()?.div(&var)?)?
        .mul(0.5)?;
    if full {
        loss = loss.add(0.5 * (2.0 * std::f64::consts::PI).ln())?;
    }
    reduction.apply(&loss)
}

/// torch's `F.margin_ranking_loss(input1, input2, target, margin, reduction)`:
/// `max(0, -target (input1 - input2) + margin)`.
pub fn margin_ranking_loss(
    input1: &Tensor,
    input2: &Tensor,
    target: &Tensor,
    margin: f64,
    reduction: Reduction,
) -> Result<Tensor> {
    reduction.plain()?;
    if input1.dim() != input2.dim() || input1.dim() != target.dim() {
        return Err(BorchError::Runtime(format!(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: \
             input1: {}, input2: {}, target: {} ",
            fmt_size(input1.shape()),
            fmt_size(input2.shape()),
            fmt_size(target.shape())
        )));
    }
    let loss = target
        .neg()?
        .mul(&input1.sub(input2)?)?
        .add(margin)?
        .clamp_min(0.0)?;
    reduction.apply(&loss)
}

/// torch's `F.hinge_embedding_loss(input, target, margin, reduction)`: `input` where the target
/// is 1, `max(0, margin - input)` where it is -1.
pub fn hinge_embedding_loss(
    input: &Tensor,
    target: &Tensor,
    margin: f64,
    reduction: Reduction,
) -> Result<Tensor> {
    reduction.plain()?;
    let margin_clamp = input.rsub(margin)?.clamp_min(0.0)?;
    let output_margin = where_cond(&target.ne(1.0)?, margin_clamp.into(), 0.0.into())?;
    let output_self = where_cond(&target.ne(-1.0)?, input.into(), 0.0.into())?;
    reduction.apply(&output_margin.add(&output_self)?)
}

/// torch's `F.soft_margin_loss(input, target, reduction)`: `log(1 + exp(-target input))`.
pub fn soft_margin_loss(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    reduction.plain()?;
    reduction.apply(&input.neg()?.mul(target)?.exp()?.log1p()?)
}

/// torch's `F.multilabel_soft_margin_loss(input, target, weight, reduction)`: the binary
/// logistic loss of every class, averaged over the classes (dim -1).
pub fn multilabel_soft_margin_loss(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: Reduction,
) -> Result<Tensor> {
    let positive = target.mul(&logsigmoid(input)?)?;
    let negative = target.rsub(1.0)?.mul(&logsigmoid(&input.neg()?)?)?;
    let mut loss = positive.add(&negative)?.neg()?;
    if let Some(w) = weight {
        loss = loss.mul(w)?;
    }
    let class_dim = input.dim() as isize - 1;
    let classes = input.size_at(class_dim)?;
    let loss = loss.sum(Some(&[class_dim]), false)?.div(classes as f64)?;
    match reduction {
        Reduction::BatchMean => value_err("batchmean is not valid".into()),
        r => r.apply(&loss),
    }
}

/// torch's `F.cosine_embedding_loss(input1, input2, target, margin, reduction)`: `1 - cos` where
/// the target is 1, `max(0, cos - margin)` where it is -1.
pub fn cosine_embedding_loss(
    input1: &Tensor,
    input2: &Tensor,
    target: &Tensor,
    margin: f64,
    reduction: Reduction,
) -> Result<Tensor> {
    reduction.plain()?;
    let targ_dim = target.dim();
    let sizes = || format!("{:?} and {:?}.", input1.shape(), input2.shape());
    if targ_dim > 1 {
        return Err(BorchError::Runtime(
            "0D or 1D target tensor expected, multi-target not supported".into(),
        ));
    }
    if targ_dim == 1 && (input1.dim() != 2 || input2.dim() != 2) {
        return Err(BorchError::Runtime(format!(
            "1D target tensor expects 2D input tensors, but found inputs with sizes {}",
            sizes()
        )));
    }
    if targ_dim == 0 && (input1.dim() != 1 || input2.dim() != 1) {
        return Err(BorchError::Runtime(format!(
            "0D target tensor expects 1D input tensors, but found inputs with sizes {}",
            sizes()
        )));
    }
    const EPSILON: f64 = 1e-12;
    let d = [targ_dim as isize];
    let prod_sum = input1.mul(input2)?.sum(Some(&d), false)?;
    let mag1 = input1.mul(input1)?.sum(Some(&d), false)?.add(EPSILON)?;
    let mag2 = input2.mul(input2)?.sum(Some(&d), false)?.add(EPSILON)?;
    let cos = prod_sum.div(&mag1.mul(&mag2)?.sqrt()?)?;
    let pos = cos.rsub(1.0)?;
    let neg = cos.sub(margin)?.clamp_min(0.0)?;
    let output_pos = where_cond(&target.eq(1.0)?, pos.into(), 0.0.into())?;
    let output_neg = where_cond(&target.eq(-1.0)?, neg.into(), 0.0.into())?;
    reduction.apply(&output_pos.add(&output_neg)?)
}

fn same_dims(anchor: &Tensor, positive: &Tensor, negative: &Tensor) -> Result<()> {
    let (a, p, n) = (anchor.dim(), positive.dim(), negative.dim());
    if a == p && p == n {
        return Ok(());
    }
    Err(BorchError::Runtime(format!(
        "The anchor, positive, and negative tensors are expected to have the same number of \
         dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
    )))
}

/// torch's `F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
/// reduction)`: `max(0, margin + d(a, p) - d(a, n))` with the pairwise p-norm distance.
#[allow(clippy::too_many_arguments)]
pub fn triplet_margin_loss(
    anchor: &Tensor,
    positive: &Tensor,
    negative: &Tensor,
    margin: f64,
    p: f64,
    eps: f64,
    swap: bool,
    reduction: Reduction,
) -> Result<Tensor> {
    reduction.plain()?;
    same_dims(anchor, positive, negative)?;
    let distance = |x: &Tensor, y: &Tensor| pairwise_distance(x, y, p, eps, false);
    triplet(
        anchor, positive, negative, &distance, margin, swap, reduction,
    )
}

fn triplet(
    anchor: &Tensor,
    positive: &Tensor,
    negative: &Tensor,
    distance: Distance,
    margin: f64,
    swap: bool,
    reduction: Reduction,
) -> Result<Tensor> {
    let dist_pos = distance(anchor, positive)?;
    let mut dist_neg = distance(anchor, negative)?;
    if swap {
        dist_neg = dist_neg.minimum(&distance(positive, negative)?)?;
    }
    let loss = dist_pos.add(margin)?.sub(&dist_neg)?.clamp_min(0.0)?;
    reduction.apply(&loss)
}

/// torch's `F.triplet_margin_with_distance_loss(anchor, positive, negative, *,
/// distance_function, margin, swap, reduction)`; `None` is torch's default distance
/// (`pairwise_distance`).
pub fn triplet_margin_with_distance_loss(
    anchor: &Tensor,
    positive: &Tensor,
    negative: &Tensor,
    distance_function: Option<Distance>,
    margin: f64,
    swap: bool,
    reduction: Reduction,
) -> Result<Tensor> {
    if reduction == Reduction::BatchMean {
        return value_err("batchmean is not a valid value for reduction".into());
    }
    if margin <= 0.0 {
        return value_err(format!(
            "margin must be greater than 0, got {}",
            crate::repr::py_float(margin)
        ));
    }
    same_dims(anchor, positive, negative)?;
    let default = |x: &Tensor, y: &Tensor| pairwise_distance(x, y, 2.0, 1e-6, false);
    let distance = distance_function.unwrap_or(&default);
    triplet(
        anchor, positive, negative, distance, margin, swap, reduction,
    )
}
