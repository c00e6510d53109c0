//! Regression and binary losses: mse, l1, smooth_l1, huber, binary_cross_entropy (with and
//! without logits) and kl_div, each with torch's `reduction`.

use borch_autograd::{Ctx, Function, apply};
use borch_tensor::{BorchError, Result, Tensor};

use crate::reduction::Reduction;

/// `torch.Size([3, 4])`.
pub(crate) fn torch_size(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("torch.Size([{}])", dims.join(", "))
}

/// torch's `F.mse_loss(input, target, reduction)`: `(input - target)²`, broadcasting.
pub fn mse_loss(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    reduction.plain()?;
    reduction.apply(&input.sub(target)?.square()?)
}

/// torch's `F.l1_loss(input, target, reduction)`: `|input - target|`.
pub fn l1_loss(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    reduction.plain()?;
    reduction.apply(&input.sub(target)?.abs()?)
}

/// torch's `F.smooth_l1_loss(input, target, reduction, beta)`: `0.5 d² / beta` where
/// `|d| < beta`, else `|d| - 0.5 beta`; `beta == 0` is the l1 loss.
pub fn smooth_l1_loss(
    input: &Tensor,
    target: &Tensor,
    reduction: Reduction,
    beta: f64,
) -> Result<Tensor> {
    reduction.plain()?;
    if beta < 0.0 {
        return Err(BorchError::Runtime(
            "smooth_l1_loss does not support negative values for beta.".into(),
        ));
    }
    if beta == 0.0 {
        return l1_loss(input, target, reduction);
    }
    let d = input.sub(target)?;
    let z = d.abs()?;
    let quadratic = d.square()?.mul(0.5 / beta)?;
    reduction.apply(&quadratic.where_(&z.lt(beta)?, z.sub(0.5 * beta)?)?)
}

/// torch's `F.huber_loss(input, target, reduction, delta)`: `0.5 d²` where `|d| < delta`, else
/// `delta (|d| - 0.5 delta)`.
pub fn huber_loss(
    input: &Tensor,
    target: &Tensor,
    reduction: Reduction,
    delta: f64,
) -> Result<Tensor> {
    reduction.plain()?;
    if delta <= 0.0 {
        return Err(BorchError::Runtime(
            "huber_loss does not support non-positive values for delta.".into(),
        ));
    }
    let d = input.sub(target)?;
    let z = d.abs()?;
    let quadratic = d.square()?.mul(0.5)?;
    let linear = z.sub(0.5 * delta)?.mul(delta)?;
    reduction.apply(&quadratic.where_(&z.lt(delta)?, linear)?)
}

/// The elementwise binary cross entropy with torch's derivatives, which stay finite where the
/// input is exactly 0 or 1 (the composed logs would give NaN there).
struct BinaryCrossEntropy;

impl Function for BinaryCrossEntropy {
    fn name(&self) -> &str {
        "BinaryCrossEntropyBackward"
    }

    fn forward(&self, ctx: &mut Ctx, inputs: &[Tensor]) -> Result<Tensor> {
        let (x, y) = (&inputs[0], &inputs[1]);
        ctx.save_for_backward(&[x, y]);
        let log_x = x.log()?.clamp_min(-100.0)?;
        let log_1mx = x.neg()?.log1p()?.clamp_min(-100.0)?;
        y.sub(1.0)?.mul(&log_1mx)?.sub(&y.mul(&log_x)?)
    }

    fn backward(&self, ctx: &Ctx, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let (x, y) = (&ctx.saved_tensors()[0], &ctx.saved_tensors()[1]);
        let denom = x.rsub(1.0)?.mul(x)?.clamp_min(1e-12)?;
        let grad_x = g.mul(&x.sub(y)?)?.div(&denom)?;
        let grad_y = g.mul(&x.div(&x.rsub(1.0)?)?.log()?.neg()?)?;
        Ok(vec![Some(grad_x), Some(grad_y)])
    }
}

/// torch's `F.binary_cross_entropy(input, target, weight, reduction)` for probabilities `input`;
/// logs are clamped at -100 as torch does.
pub fn binary_cross_entropy(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: Reduction,
) -> Result<Tensor> {
    reduction.plain()?;
    if target.shape() != input.shape() {
        return Err(BorchError::Value(format!(
            "Using a target size ({}) that is different to the input size ({}) is deprecated. \
             Please ensure they have the same size.",
            torch_size(target.shape()),
            torch_size(input.shape())
        )));
    }
    let mut loss = apply(BinaryCrossEntropy, &[input.clone(), target.clone()])?;
    if let Some(w) = weight {
        loss = loss.mul(w)?;
    }
    reduction.apply(&loss)
}

/// torch's `F.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)`:
/// `(1 - y) x - log σ(x)`, with `log σ(x)` weighted by `1 + (pos_weight - 1) y`.
pub fn binary_cross_entropy_with_logits(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: Reduction,
    pos_weight: Option<&Tensor>,
) -> Result<Tensor> {
    reduction.plain()?;
    if target.shape() != input.shape() {
        return Err(BorchError::Value(format!(
            "Target size ({}) must be the same as input size ({})",
            torch_size(target.shape()),
            torch_size(input.shape())
        )));
    }
    // log σ(x) = -softplus(-x): exact for large |x| and with the right gradient at 0.
    let mut log_sigmoid = input.neg()?.softplus(1.0, 20.0)?.neg()?;
    if let Some(pw) = pos_weight {
        log_sigmoid = log_sigmoid.mul(&pw.sub(1.0)?.mul(target)?.add(1.0)?)?;
    }
    let mut loss = target.rsub(1.0)?.mul(input)?.sub(&log_sigmoid)?;
    if let Some(w) = weight {
        loss = loss.mul(w)?;
    }
    reduction.apply(&loss)
}

/// torch's `F.kl_div(input, target, reduction, log_target)` with `input` as log-probabilities:
/// `target (log target - input)` (0 where target is 0), or `exp(target) (target - input)` when
/// `log_target`. `reduction` may also be `BatchMean` (the sum over the batch size).
pub fn kl_div(
    input: &Tensor,
    target: &Tensor,
    reduction: Reduction,
    log_target: bool,
) -> Result<Tensor> {
    let loss = if log_target {
        target.exp()?.mul(&target.sub(input)?)?
    } else {
        // torch's xlogy(target, target): 0 where target is 0 (log of 1 there keeps it finite).
        let safe = target.masked_fill(&target.eq(0.0)?, 1.0)?;
        target.mul(&safe.log()?)?.sub(&target.mul(input)?)?
    };
    match reduction {
        Reduction::BatchMean if input.dim() != 0 => {
            loss.sum(None, false)?.div(input.shape()[0] as f64)
        }
        Reduction::BatchMean => loss.sum(None, false),
        r => r.apply(&loss),
    }
}
