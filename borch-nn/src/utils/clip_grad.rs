//! torch's `clip_grad_norm_` and `clip_grad_value_`: the gradients of the given parameters
//! scaled or clamped in place, as ordinary tensor ops on the GPU.

use borch_autograd::no_grad;
use borch_tensor::{BorchError, DType, Operand, Result, Tensor, full, stack};

fn grads(parameters: &[Tensor]) -> Vec<Tensor> {
    parameters.iter().filter_map(Tensor::grad).collect()
}

/// torch's `clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False)`:
/// scales every gradient by `max_norm / (total_norm + 1e-6)` when that is below 1 and returns
/// the total norm (of the gradients' norms). `error_if_nonfinite` reads the norm back, so it is
/// offered natively only.
pub fn clip_grad_norm_(
    parameters: &[Tensor],
    max_norm: f64,
    norm_type: f64,
    error_if_nonfinite: bool,
) -> Result<Tensor> {
    let grads = grads(parameters);
    if grads.is_empty() {
        return full(&[], 0.0, Some(DType::Float32));
    }
    no_grad(|| {
        let norms = grads
            .iter()
            .map(|g| g.norm(norm_type, None, false))
            .collect::<Result<Vec<_>>>()?;
        let total = stack(&norms, 0)?.norm(norm_type, None, false)?;
        if error_if_nonfinite {
            check_finite(&total, norm_type)?;
        }
        let coef = full(&[], max_norm, Some(DType::Float32))?
            .div(total.add(1e-6)?)?
            .clamp(None, Some(Operand::from(1.0)))?;
        for g in &grads {
            g.copy_(&g.mul(&coef)?)?;
        }
        Ok(total)
    })
}

#[cfg(not(target_arch = "wasm32"))]
fn check_finite(total: &Tensor, norm_type: f64) -> Result<()> {
    let value = total.item_blocking()?.to_f64();
    if value.is_finite() {
        return Ok(());
    }
    Err(BorchError::Runtime(format!(
        "The total norm of order {} for gradients from `parameters` is non-finite, so it cannot \
         be clipped. To disable this error and scale the gradients by the non-finite norm \
         anyway, set `error_if_nonfinite=False`",
        python_float(norm_type)
    )))
}

#[cfg(target_arch = "wasm32")]
fn check_finite(_total: &Tensor, _norm_type: f64) -> Result<()> {
    Err(BorchError::NotImplemented(
        "clip_grad_norm_(error_if_nonfinite=True) reads the norm back, which borch cannot do \
         synchronously in a browser: check the returned norm with isfinite() instead"
            .into(),
    ))
}

/// `2.0`, `inf`, as Python prints a float.
#[cfg(not(target_arch = "wasm32"))]
fn python_float(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x.fract() == 0.0 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// torch's `clip_grad_value_(parameters, clip_value)`: every gradient clamped in place to
/// `[-clip_value, clip_value]`.
pub fn clip_grad_value_(parameters: &[Tensor], clip_value: f64) -> Result<()> {
    no_grad(|| {
        for g in grads(parameters) {
            let clamped = g.clamp(
                Some(Operand::from(-clip_value)),
                Some(Operand::from(clip_value)),
            )?;
            g.copy_(&clamped)?;
        }
        Ok(())
    })
}
