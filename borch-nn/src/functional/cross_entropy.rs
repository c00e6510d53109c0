//! torch's `F.nll_loss` and `F.cross_entropy` (class weights, ignore_index, label smoothing,
//! probability targets). nll_loss is an autograd function with torch's backward; the target
//! class is picked with `gather`.

use borch_autograd::{Ctx, Function, apply};
use borch_tensor::{BorchError, DType, Result, Tensor, where_cond, zeros};

use crate::functional::activation::log_softmax;
use crate::reduction::Reduction;
use crate::repr::cpp_double;

fn fmt_list(dims: &[usize]) -> String {
    let parts: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// `weight` (of the classes) viewed to broadcast along dim 1 of a `rank`-dim input.
fn class_view(weight: &Tensor, rank: usize) -> Result<Tensor> {
    let mut shape = vec![1isize; rank];
    shape[1] = weight.numel() as isize;
    weight.reshape(&shape)
}

/// The checks torch's `nll_loss_nd` makes on shapes and dtypes (input has a batch dim here).
fn check_nll(input: &Tensor, target: &Tensor, weight: Option<&Tensor>) -> Result<()> {
    if target.dtype() != DType::Int64 {
        let name = match target.dtype() {
            DType::Float32 => "Float",
            DType::Bool => "Bool",
            DType::Int64 => "Long",
        };
        return Err(BorchError::Runtime(format!(
            "expected target dtype to be Long or Byte, but got {name}"
        )));
    }
    if input.dim() < 2 {
        return Err(BorchError::Value(format!(
            "Expected 2 or more dimensions (got {})",
            input.dim()
        )));
    }
    let batch = target.shape().first().copied().unwrap_or(0);
    if input.shape()[0] != batch || target.dim() == 0 {
        return Err(BorchError::Value(format!(
            "Expected input batch_size ({}) to match target batch_size ({}).",
            input.shape()[0],
            batch
        )));
    }
    let mut expected: Vec<usize> = vec![input.shape()[0]];
    expected.extend(&input.shape()[2..]);
    if input.dim() == 2 && target.dim() != 1 {
        return Err(BorchError::Runtime(
            "0D or 1D target tensor expected, multi-target not supported".into(),
        ));
    }
    if target.shape() != expected.as_slice() {
        return Err(BorchError::Runtime(format!(
            "Expected target size {}, got {}",
            fmt_list(&expected),
            fmt_list(target.shape())
        )));
    }
    let classes = input.shape()[1];
    if let Some(w) = weight
        && (w.dim() != 1 || w.numel() != classes)
    {
        return Err(BorchError::Runtime(format!(
            "weight tensor should be defined either for all {classes} classes or no classes but \
             got weight tensor of shape: {}",
            fmt_list(w.shape())
        )));
    }
    Ok(())
}

/// Class-index targets prepared once: a gather index along the class dim (ignored targets
/// pointing at class 0), which targets are ignored, and each target's weight negated (0 where
/// ignored), so the elementwise loss is one product and `-Σ neg_weight` the mean's divisor.
struct Targets {
    index: Tensor,
    ignored: Tensor,
    neg_weight: Tensor,
}

fn targets(target: &Tensor, weight: Option<&Tensor>, ignore_index: i64) -> Result<Targets> {
    let ignored = target.eq(ignore_index)?;
    let safe = target.masked_fill(&ignored, 0)?;
    let neg_weight = match weight {
        Some(w) => {
            let shape: Vec<isize> = target.shape().iter().map(|&d| d as isize).collect();
            w.detach()
                .neg()?
                .index_select(0, &safe.reshape(&[-1])?)?
                .reshape(&shape)?
                .masked_fill(&ignored, 0.0)?
        }
        None => where_cond(&ignored, 0.0.into(), (-1.0).into())?,
    };
    Ok(Targets {
        index: safe.unsqueeze(1)?,
        ignored,
        neg_weight,
    })
}

/// torch's nll_loss with its own backward (the targets are not differentiable, nor is the
/// weight): `-weight[t] * input[t]` per sample; the mean divides by the targets' summed weight
/// (NaN when every target is ignored, with a zero gradient, as torch).
struct NllLoss {
    targets: Targets,
    reduction: Reduction,
}

impl Function for NllLoss {
    fn name(&self) -> &str {
        "NllLossBackward"
    }

    fn forward(&self, ctx: &mut Ctx, inputs: &[Tensor]) -> Result<Tensor> {
        let input = &inputs[0];
        let t = &self.targets;
        let loss = input
            .gather(1, &t.index)?
            .squeeze_dims(&[1])?
            .mul(&t.neg_weight)?;
        Ok(match self.reduction {
            Reduction::None => {
                ctx.save_for_backward(&[input]);
                loss
            }
            Reduction::Sum => {
                ctx.save_for_backward(&[input]);
                loss.sum(None, false)?
            }
            _ => {
                let total = t.neg_weight.sum(None, false)?.neg()?;
                ctx.save_for_backward(&[input, &total]);
                loss.sum(None, false)?.div(&total)?
            }
        })
    }

    fn backward(&self, ctx: &Ctx, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let saved = ctx.saved_tensors();
        let t = &self.targets;
        let mut coef = t.neg_weight.mul(g)?;
        if let Some(total) = saved.get(1) {
            coef = coef.div(total)?.masked_fill(&t.ignored, 0.0)?;
        }
        let grad = zeros(saved[0].shape(), DType::Float32)?;
        grad.scatter_add_(1, &t.index, &coef.unsqueeze(1)?)?;
        Ok(vec![Some(grad)])
    }
}

/// nll_loss on an input with a batch dim (already checked).
fn nll_batched(input: &Tensor, targets: Targets, reduction: Reduction) -> Result<Tensor> {
    apply(NllLoss { targets, reduction }, std::slice::from_ref(input))
}

/// Run `f` on an input with a batch dim: a 1-D input (one sample of classes) gets one, and an
/// unreduced result loses it again.
fn with_batch(
    input: &Tensor,
    target: &Tensor,
    reduction: Reduction,
    f: impl FnOnce(&Tensor, &Tensor) -> Result<Tensor>,
) -> Result<Tensor> {
    if input.dim() == 1 {
        let out = f(&input.unsqueeze(0)?, &target.unsqueeze(0)?)?;
        return match reduction {
            Reduction::None => out.squeeze_dims(&[0]),
            _ => Ok(out),
        };
    }
    f(input, target)
}

/// torch's `F.nll_loss(input, target, weight, ignore_index, reduction)`: `-weight[t] * input[t]`
/// per sample, the mean dividing by the summed weights of the targets not ignored. `input` is
/// `(C)`, `(N, C)` or `(N, C, d1, …)`; `target` holds class indices.
pub fn nll_loss(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
) -> Result<Tensor> {
    let reduction = reduction.plain()?;
    with_batch(input, target, reduction, |x, t| {
        check_nll(x, t, weight)?;
        nll_batched(x, targets(t, weight, ignore_index)?, reduction)
    })
}

/// torch's `F.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)`:
/// `log_softmax` over the class dim followed by the nll loss, for class-index targets, or
/// `-Σ target · log_softmax(input)` for class-probability targets (a float target of the
/// input's shape). `label_smoothing` mixes the target with the uniform distribution.
pub fn cross_entropy(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
    label_smoothing: f64,
) -> Result<Tensor> {
    let reduction = reduction.plain()?;
    // torch refuses only values above 1; a negative one means no smoothing.
    if label_smoothing > 1.0 {
        return Err(BorchError::Runtime(format!(
            "label_smoothing must be between 0.0 and 1.0. Got: {}",
            cpp_double(label_smoothing)
        )));
    }
    with_batch(input, target, reduction, |x, t| {
        if x.shape() == t.shape() {
            if t.dtype() != DType::Float32 {
                return Err(BorchError::Runtime(format!(
                    "Expected floating point type for target with class probabilities, got {}",
                    if t.dtype() == DType::Int64 {
                        "Long"
                    } else {
                        "Bool"
                    }
                )));
            }
            return probability_targets(x, t, weight, reduction, label_smoothing);
        }
        check_nll(x, t, weight)?;
        class_targets(x, t, weight, ignore_index, reduction, label_smoothing)
    })
}

fn class_targets(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
    label_smoothing: f64,
) -> Result<Tensor> {
    let log_probs = log_softmax(input, Some(1))?;
    let t = targets(target, weight, ignore_index)?;
    if label_smoothing <= 0.0 {
        return nll_batched(&log_probs, t, reduction);
    }
    // torch's cross_entropy_loss_label_smoothing: the nll mixed with the (weighted) sum of all
    // classes' log-probabilities, which is zero for ignored targets and, in the mean, divided by
    // the targets' summed weight (their count without weights).
    let classes = input.shape()[1] as f64;
    let ignored = t.ignored.clone();
    let divisor = t.neg_weight.sum(None, false)?.neg()?;
    let nll = nll_batched(&log_probs, t, reduction)?;
    let weighted = match weight {
        Some(w) => log_probs.mul(&class_view(w, input.dim())?)?,
        None => log_probs,
    };
    let smooth = weighted
        .sum(Some(&[1]), false)?
        .neg()?
        .masked_fill(&ignored, 0.0)?;
    let smooth = match reduction {
        Reduction::None => smooth,
        Reduction::Sum => smooth.sum(None, false)?,
        _ => smooth.sum(None, false)?.div(&divisor)?,
    };
    nll.mul(1.0 - label_smoothing)?
        .add(&smooth.mul(label_smoothing / classes)?)
}

fn probability_targets(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    reduction: Reduction,
    label_smoothing: f64,
) -> Result<Tensor> {
    // A 0-d input (with a 0-d target) has no class dim: torch's IndexError, not a panic.
    let classes = input.shape()[borch_tensor::wrap_dim(1, input.dim())?];
    if let Some(w) = weight
        && (w.dim() != 1 || w.numel() != classes)
    {
        return Err(BorchError::Runtime(format!(
            "weight tensor should be defined either for all {classes} classes or no classes but \
             got weight tensor of shape: {}",
            fmt_list(w.shape())
        )));
    }
    let log_probs = log_softmax(input, Some(1))?;
    let target = if label_smoothing > 0.0 {
        target
            .mul(1.0 - label_smoothing)?
            .add(label_smoothing / classes as f64)?
    } else {
        target.clone()
    };
    let mut prod = log_probs.mul(&target)?;
    if let Some(w) = weight {
        prod = prod.mul(&class_view(w, input.dim())?)?;
    }
    match reduction {
        Reduction::None => prod.sum(Some(&[1]), false)?.neg(),
        Reduction::Sum => prod.sum(None, false)?.neg(),
        _ => {
            let samples = (input.numel() / classes.max(1)) as f64;
            prod.sum(None, false)?.neg()?.div(samples)
        }
    }
}
