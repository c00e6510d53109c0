//! torch's `F.layer_norm` (borch-tensor's fused kernels where they apply, else composed) and
//! `F.rms_norm`, composed from reductions and elementwise ops.

use borch_tensor::{BorchError, Result, Tensor};

fn fmt_list(dims: &[usize]) -> String {
    let parts: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// The trailing dims that `normalized_shape` names, as negative dims, after torch's check.
fn normalized_dims(input: &Tensor, normalized_shape: &[usize], star: &str) -> Result<Vec<isize>> {
    let k = normalized_shape.len();
    let shape = input.shape();
    if k == 0 || shape.len() < k || shape[shape.len() - k..] != *normalized_shape {
        let inner: Vec<String> = normalized_shape.iter().map(usize::to_string).collect();
        return Err(BorchError::Runtime(format!(
            "Given normalized_shape={}, expected input with shape [*{star}{}], but got input of \
             size{}",
            fmt_list(normalized_shape),
            inner.join(", "),
            fmt_list(shape)
        )));
    }
    Ok((-(k as isize)..0).collect())
}

fn affine(x: Tensor, weight: Option<&Tensor>, bias: Option<&Tensor>) -> Result<Tensor> {
    let x = match weight {
        Some(w) => x.mul(w)?,
        None => x,
    };
    match bias {
        Some(b) => x.add(b),
        None => Ok(x),
    }
}

/// torch's `F.layer_norm(input, normalized_shape, weight, bias, eps)`: normalize over the
/// trailing `normalized_shape` dims with the biased variance, then scale and shift.
pub fn layer_norm(
    input: &Tensor,
    normalized_shape: &[usize],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    use borch_tensor::op_trace::{Attr, Span};
    let span = Span::begin();
    let out = (|| {
        let dims = normalized_dims(input, normalized_shape, ", ")?;
        if borch_tensor::layer_norm_fusable(input, normalized_shape, weight, bias) {
            return borch_tensor::layer_norm_fused(input, normalized_shape, weight, bias, eps);
        }
        let centered = input.sub(&input.mean(Some(&dims), true)?)?;
        let var = centered.square()?.mean(Some(&dims), true)?;
        let normed = centered.mul(&var.add(eps)?.rsqrt()?)?;
        affine(normed, weight, bias)
    })();
    let axis = input.dim() as i64 - normalized_shape.len() as i64;
    let attrs = vec![("axis", Attr::Int(axis)), ("epsilon", Attr::Float(eps))];
    span.finish("layer_norm", &[Some(input), weight, bias], attrs, out)
}

/// torch's `F.rms_norm(input, normalized_shape, weight, eps)`: `x / sqrt(mean(x²) + eps)` over
/// the trailing dims, times `weight`; `eps` of `None` is float32's machine epsilon, as torch.
pub fn rms_norm(
    input: &Tensor,
    normalized_shape: &[usize],
    weight: Option<&Tensor>,
    eps: Option<f64>,
) -> Result<Tensor> {
    let dims = normalized_dims(input, normalized_shape, "")?;
    let eps = eps.unwrap_or(f64::from(f32::EPSILON));
    let ms = input.square()?.mean(Some(&dims), true)?;
    affine(input.mul(&ms.add(eps)?.rsqrt()?)?, weight, None)
}
