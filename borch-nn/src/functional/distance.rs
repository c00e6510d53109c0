//! torch's `F.pairwise_distance` and `F.cosine_similarity`.

use borch_tensor::{BorchError, DType, Result, Tensor};

/// torch's `F.pairwise_distance(x1, x2, p, eps, keepdim)`: the p-norm of `x1 - x2 + eps` over
/// the last dim (of the broadcast shape).
pub fn pairwise_distance(
    x1: &Tensor,
    x2: &Tensor,
    p: f64,
    eps: f64,
    keepdim: bool,
) -> Result<Tensor> {
    let output_dim = x1.dim().max(x2.dim());
    let innermost = output_dim as isize - 1;
    x1.sub(x2)?.add(eps)?.norm(p, Some(&[innermost]), keepdim)
}

/// A norm whose value is clamped at `eps` while its gradient is that of the unclamped norm (torch
/// clamps a clone in place under no_grad).
fn clamped_norm(x: &Tensor, dim: isize, eps: f64) -> Result<Tensor> {
    let norm = x.norm(2.0, Some(&[dim]), true)?;
    let shift = norm.clamp_min(eps)?.sub(&norm)?.detach();
    norm.add(&shift)
}

/// torch's `F.cosine_similarity(x1, x2, dim, eps)`: `Σ (x1 / ‖x1‖)(x2 / ‖x2‖)` over `dim`, each
/// norm clamped at `eps`.
pub fn cosine_similarity(x1: &Tensor, x2: &Tensor, dim: isize, eps: f64) -> Result<Tensor> {
    let float = |t: &Tensor| -> Result<Tensor> {
        match t.dtype() {
            DType::Float32 => Ok(t.clone()),
            _ => t.to_dtype(DType::Float32),
        }
    };
    if x1.dtype() != DType::Float32 && x2.dtype() != DType::Float32 {
        return Err(BorchError::Runtime(format!(
            "expected common dtype to be floating point, yet common dtype is {}",
            x1.dtype().promote(x2.dtype()).scalar_type_name()
        )));
    }
    let shape = borch_tensor::broadcast_shapes(x1.shape(), x2.shape())?;
    let sizes: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    let (a, b) = (float(x1)?.expand(&sizes)?, float(x2)?.expand(&sizes)?);
    let d = borch_tensor::wrap_dim(dim, shape.len())? as isize;
    let a = a.div(&clamped_norm(&a, d, eps)?)?;
    let b = b.div(&clamped_norm(&b, d, eps)?)?;
    a.mul(&b)?.sum(Some(&[d]), false)
}
