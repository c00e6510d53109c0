//! torch's `F.nll_loss` and `F.cross_entropy` (class weights, ignore_index, label smoothing,
//! probability targets). The target class is picked with `gather`.

use borch_tensor::{BorchError, DType, Result, Tensor, where_cond};

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

/// What nll_loss and the label-smoothing term share for class-index targets: the targets as a
/// gather index along the class dim (ignored ones pointing at class 0), which are ignored, and
/// each target's weight (0 where ignored).
struct Picked {
    index: Tensor,
    ignored: Tensor,
    weight: Tensor,
}

fn pick(target: &Tensor, weight: Option<&Tensor>, ignore_index: i64) -> Result<Picked> {
    let ignored = target.eq(ignore_index)?;
    let safe = target.masked_fill(&ignored, 0)?;
    let weight = match weight {
        Some(w) => {
            let shape: Vec<isize> = target.shape().iter().map(|&d| d as isize).collect();
            w.detach()
                .index_select(0, &safe.reshape(&[-1])?)?
                .reshape(&shape)?
                .masked_fill(&ignored, 0.0)?
        }
        None => where_cond(&ignored, 0.0.into(), 1.0.into())?,
    };
    Ok(Picked {
        index: safe.unsqueeze(1)?,
        ignored,
        weight,
    })
}

/// nll_loss on an input with a batch dim (already checked).
fn nll_batched(
    input: &Tensor,
    target: &Tensor,
    weight: Option<&Tensor>,
    ignore_index: i64,
    reduction: Reduction,
) -> Result<Tensor> {
    let p = pick(target, weight, ignore_index)?;
    let picked = input.gather(1, &p.index)?.squeeze_dims(&[1])?;
    let loss = picked.mul(&p.weight)?.neg()?;
    match reduction {
        Reduction::None => Ok(loss),
        Reduction::Sum => loss.sum(None, false),
        _ => {
            // torch's nll_loss divides by the total weight; when every target is ignored the
            // loss is NaN and, by torch's own derivative, the gradient zero. Dividing by the
            // total with 0 replaced by 1, then selecting NaN, gives both.
            let total = p.weight.sum(None, false)?;
            let empty = total.eq(0.0)?;
            let mean = loss
                .sum(None, false)?
                .div(&total.masked_fill(&empty, 1.0)?)?;
            where_cond(&empty, f64::NAN.into(), mean.into())
        }
    }
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
        nll_batched(x, t, weight, ignore_index, reduction)
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
    let nll = nll_batched(&log_probs, target, weight, ignore_index, reduction)?;
    if label_smoothing <= 0.0 {
        return Ok(nll);
    }
    // torch's cross_entropy_loss_label_smoothing.
    let classes = input.shape()[1] as f64;
    let p = pick(target, weight, ignore_index)?;
    let weighted = match weight {
        Some(w) => log_probs.mul(&class_view(w, input.dim())?)?,
        None => log_probs.clone(),
    };
    let smooth = weighted
        .sum(Some(&[1]), false)?
        .neg()?
        .masked_fill(&p.ignored, 0.0)?;
    let smooth = match reduction {
        Reduction::None => smooth,
        Reduction::Sum => smooth.sum(None, false)?,
        _ => {
            let denominator = match weight {
                Some(_) => p.weight.sum(None, false)?,
                None => p
                    .ignored
                    .logical_not()?
                    .to_dtype(DType::Float32)?
                    .sum(None, false)?,
            };
            smooth.sum(None, false)?.div(&denominator)?
        }
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
