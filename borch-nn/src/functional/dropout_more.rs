//! torch's channel-wise and alpha dropouts: `F.dropout1d/2d/3d`, `F.alpha_dropout`,
//! `F.feature_alpha_dropout`, with torch's CPU masks (`bernoulli_(1 - p)` on the default
//! generator: per element in the input's memory order, or per (batch, channel) for the feature
//! forms).

use borch_tensor::{BorchError, Result, Tensor, empty};

use super::dropout::bernoulli_mask;
use crate::repr::py_float;

/// torch's `alpha` of the SELU-preserving dropouts.
const ALPHA: f64 = 1.758_099_340_847_376_6;

fn check_p(p: f64) -> Result<()> {
    if (0.0..=1.0).contains(&p) {
        return Ok(());
    }
    Err(BorchError::Value(format!(
        "dropout probability has to be between 0 and 1, but got {}",
        py_float(p)
    )))
}

/// torch's `_dropout_impl<feature, alpha>`.
fn dropout_impl(input: &Tensor, p: f64, train: bool, feature: bool, alpha: bool) -> Result<Tensor> {
    check_p(p)?;
    if p == 0.0 || !train || input.numel() == 0 {
        return Ok(input.clone());
    }
    if p == 1.0 {
        return input.mul(0.0);
    }
    if feature && input.dim() < 2 {
        return Err(BorchError::Runtime(
            "Feature dropout requires at least 2 dimensions in the input".into(),
        ));
    }
    let (noise, b) = borch_autograd::no_grad(|| -> Result<(Tensor, Option<Tensor>)> {
        let noise = if feature {
            let mut sizes = vec![1usize; input.dim()];
            sizes[0] = input.shape()[0];
            sizes[1] = input.shape()[1];
            let noise = empty(&sizes, input.dtype())?;
            noise.bernoulli_(1.0 - p, None)?;
            noise
        } else {
            bernoulli_mask(input, 1.0 - p)?
        };
        if !alpha {
            return Ok((noise.div(1.0 - p)?, None));
        }
        let a = 1.0 / ((ALPHA * ALPHA * p + 1.0) * (1.0 - p)).sqrt();
        let b = noise.sub(1.0)?.mul(ALPHA * a)?.add(ALPHA * a * p)?;
        Ok((noise.mul(a)?, Some(b)))
    })?;
    let out = input.mul(&noise)?;
    match b {
        Some(b) => out.add(&b),
        None => Ok(out),
    }
}

/// `feature_dropout` on an input given one dim short of its batched form (torch unsqueezes it).
fn feature_unbatched(input: &Tensor, p: f64, training: bool, batched: bool) -> Result<Tensor> {
    if batched {
        return dropout_impl(input, p, training, true, false);
    }
    dropout_impl(&input.unsqueeze(0)?, p, training, true, false)?.squeeze_dims(&[0])
}

/// torch's `F.dropout1d(input, p, training)`: zero whole channels of a `(N, C, L)` or `(C, L)`
/// input.
pub fn dropout1d(input: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    check_p(p)?;
    let dim = input.dim();
    if !matches!(dim, 2 | 3) {
        return Err(BorchError::Runtime(format!(
            "dropout1d: Expected 2D or 3D input, but received a {dim}D input. Note that \
             dropout1d exists to provide channel-wise dropout on inputs with 1 spatial \
             dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D \
             inputs)."
        )));
    }
    feature_unbatched(input, p, training, dim == 3)
}

/// torch's `F.dropout2d(input, p, training)`: channel-wise on `(N, C, H, W)`; as torch, a 3-D
/// input is taken as `(N, C, L)` (torch warns), other ranks as batched too.
pub fn dropout2d(input: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    check_p(p)?;
    dropout_impl(input, p, training, true, false)
}

/// torch's `F.dropout3d(input, p, training)`: channel-wise on `(N, C, D, H, W)` or
/// `(C, D, H, W)`.
pub fn dropout3d(input: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    check_p(p)?;
    feature_unbatched(input, p, training, input.dim() == 5)
}

/// torch's `F.alpha_dropout(input, p, training)`: dropout keeping SELU's mean and variance.
pub fn alpha_dropout(input: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    dropout_impl(input, p, training, false, true)
}

/// torch's `F.feature_alpha_dropout(input, p, training)`: alpha dropout of whole channels.
pub fn feature_alpha_dropout(input: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    dropout_impl(input, p, training, true, true)
}
