//! torch's class-index margin losses: `F.multilabel_margin_loss` and `F.multi_margin_loss`,
//! composed over one-hot masks so that no index is read back. torch's checks on the index
//! values (a class out of range) read the data: borch does not make them.

use borch_tensor::{BorchError, DType, Result, Tensor};

use crate::reduction::Reduction;

fn runtime<T>(msg: String) -> Result<T> {
    Err(BorchError::Runtime(msg))
}

/// An input of 0, 1 or 2 dims as `[N, C]`: torch's "vector or matrix with optional 0-dim
/// batch size".
fn as_matrix(input: &Tensor) -> Result<Tensor> {
    match input.dim() {
        0 => input.reshape(&[1, 1]),
        1 => input.unsqueeze(0),
        2 if input.shape()[1] > 0 => Ok(input.clone()),
        _ => runtime(format!(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: {:?}",
            input.shape()
        )),
    }
}

fn long_target(target: &Tensor) -> Result<()> {
    if target.dtype() == DType::Int64 {
        return Ok(());
    }
    let name = match target.dtype() {
        DType::Float32 => "Float",
        DType::Bool => "Bool",
        DType::Int64 => "Long",
    };
    runtime(format!("expected scalar type Long but found {name}"))
}

/// The per-sample losses `[N]` reduced as torch: `none` keeps `[N]` (a scalar for an input of
/// fewer than 2 dims), `mean` divides the sum by N.
fn reduce(per_sample: &Tensor, input_dim: usize, reduction: Reduction) -> Result<Tensor> {
    match reduction.plain()? {
        Reduction::None if input_dim < 2 => per_sample.reshape(&[]),
        r => r.apply(per_sample),
    }
}

/// torch's `F.multilabel_margin_loss(input, target, reduction)`: for each sample, the target
/// classes are `target`'s entries up to the first -1; the loss sums
/// `max(0, 1 - (x[y] - x[i]))` over target classes `y` and non-target classes `i`, divided by
/// the number of classes.
pub fn multilabel_margin_loss(
    input: &Tensor,
    target: &Tensor,
    reduction: Reduction,
) -> Result<Tensor> {
    reduction.plain()?;
    let x = as_matrix(input)?;
    long_target(target)?;
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let target_ok = match input.dim() {
        0 => target.dim() <= 1 && target.numel() == 1,
        1 => target.dim() <= 1 && target.numel() == c,
        _ => target.shape() == x.shape(),
    };
    if !target_ok {
        return runtime(format!(
            "inconsistent target size: {:?} for input of size: {:?}",
            target.shape(),
            input.shape()
        ));
    }
    let t = target.reshape(&[n as isize, c as isize])?;
    // valid[n, j]: j comes before the first -1.
    let valid = t.ge(0)?.to_dtype(DType::Float32)?.cumprod(1)?;
    let index = t.clamp_min(0)?;
    let picked = index.one_hot(c)?.to_dtype(DType::Float32)?;
    let is_target = picked
        .mul(&valid.unsqueeze(2)?)?
        .sum(Some(&[1]), false)?
        .gt(0.0)?;
    let other = is_target.logical_not()?.to_dtype(DType::Float32)?;
    let weight = valid.unsqueeze(2)?.mul(&other.unsqueeze(1)?)?;
    let x_target = x.gather(1, &index)?;
    let z = x
        .unsqueeze(1)?
        .sub(&x_target.unsqueeze(2)?)?
        .add(1.0)?
        .relu()?;
    let per_sample = z.mul(&weight)?.sum(Some(&[1, 2]), false)?.div(c as f64)?;
    reduce(&per_sample, input.dim(), reduction)
}

/// torch's `F.multi_margin_loss(input, target, p, margin, weight, reduction)`: for each sample
/// `Σ_{i ≠ y} max(0, margin - x[y] + x[i])^p · weight[y] / C`. The weight gets no gradient (torch
/// refuses one).
pub fn multi_margin_loss(
    input: &Tensor,
    target: &Tensor,
    p: i64,
    margin: f64,
    weight: Option<&Tensor>,
    reduction: Reduction,
) -> Result<Tensor> {
    reduction.plain()?;
    if p != 1 && p != 2 {
        return Err(BorchError::Value("only p == 1 and p == 2 supported".into()));
    }
    if weight.is_some_and(|w| w.dim() != 1) {
        return Err(BorchError::Value("weight must be one-dimensional".into()));
    }
    let x = as_matrix(input)?;
    let (n, c) = (x.shape()[0], x.shape()[1]);
    if !(target.dim() <= 1 && target.numel() == n) {
        return runtime(format!(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of \
             input samples (batch size). Expected target size [{n}], but got {:?}. Input has \
             shape {:?}.",
            target.shape(),
            input.shape()
        ));
    }
    long_target(target)?;
    if let Some(w) = weight
        && w.numel() != c
    {
        return runtime(format!(
            "inconsistent weight size, expected {c} but got {:?}",
            w.shape()
        ));
    }
    let y = target.reshape(&[n as isize, 1])?;
    let x_y = x.gather(1, &y)?;
    let mut z = x.sub(&x_y)?.add(margin)?.relu()?;
    if p == 2 {
        z = z.square()?;
    }
    let others = y
        .squeeze_dims(&[1])?
        .one_hot(c)?
        .to_dtype(DType::Float32)?
        .rsub(1.0)?;
    let mut h = z.mul(&others)?;
    if let Some(w) = weight {
        let w_y = w.detach().index_select(0, &y.reshape(&[-1])?)?;
        h = h.mul(&w_y.unsqueeze(1)?)?;
    }
    let per_sample = h.sum(Some(&[1]), false)?.div(c as f64)?;
    reduce(&per_sample, input.dim(), reduction)
}
