//! Cross-entropy from tensor ops: torch's `F.cross_entropy(logits, target)` with mean reduction
//! is `-log_softmax(logits, 1).gather(1, target[:, None]).mean()`.

use borch_tensor::{Result, Tensor};

/// Mean cross-entropy of `logits` `[batch, classes]` against int64 class indices `[batch]`.
pub fn cross_entropy(logits: &Tensor, target: &Tensor) -> Result<Tensor> {
    logits
        .log_softmax(1)?
        .gather(1, &target.unsqueeze(1)?)?
        .mean(None, false)?
        .neg()
}

/// Fraction of rows whose largest logit is at the target class.
pub fn accuracy(logits: &Tensor, target: &Tensor) -> Result<f64> {
    let correct = logits
        .argmax(Some(1), false)?
        .eq(target)?
        .sum(None, false)?
        .item_blocking()?
        .to_f64();
    Ok(correct / target.numel() as f64)
}
