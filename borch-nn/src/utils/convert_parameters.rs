//! torch's `parameters_to_vector` and `vector_to_parameters`.

use borch_autograd::no_grad;
use borch_tensor::{BorchError, Result, Tensor, cat};

/// torch's `parameters_to_vector(parameters)`: every parameter flattened, concatenated.
pub fn parameters_to_vector(parameters: &[Tensor]) -> Result<Tensor> {
    let flat = parameters
        .iter()
        .map(|p| p.reshape(&[-1]))
        .collect::<Result<Vec<_>>>()?;
    cat(&flat, 0)
}

/// torch's `vector_to_parameters(vec, parameters)`: each parameter's values taken in turn
/// from `vec`.
pub fn vector_to_parameters(vec: &Tensor, parameters: &[Tensor]) -> Result<()> {
    if vec.dim() != 1 {
        return Err(BorchError::Runtime(format!(
            "vector_to_parameters(): vec must be 1-D, got {} dims",
            vec.dim()
        )));
    }
    no_grad(|| {
        let mut at = 0usize;
        for p in parameters {
            let n = p.numel();
            let available = vec.numel().saturating_sub(at).min(n);
            let part = vec.narrow(0, at as isize, available)?;
            if available != n {
                return Err(BorchError::Runtime(format!(
                    "shape '{}' is invalid for input of size {available}",
                    fmt_shape(p.shape())
                )));
            }
            p.copy_(&part.view_as_shape(p.shape())?)?;
            at += n;
        }
        Ok(())
    })
}

/// `[4]`, `[2, 3]`, as torch's view error writes a shape.
fn fmt_shape(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(", "))
}
