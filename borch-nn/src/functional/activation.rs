//! Activations: most composed from borch-tensor's differentiable ops; those with kinks whose
//! gradient torch defines by its own formula (hardtanh, hardswish, elu) are autograd functions
//! in `pointwise`.

use borch_tensor::{BorchError, Result, Tensor};

use super::pointwise;

/// The `alpha` and `scale` of torch's SELU.
pub const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
/// SELU's `scale` (torch's constant).
pub const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

/// torch's `F.relu`.
pub fn relu(input: &Tensor) -> Result<Tensor> {
    input.relu()
}

/// torch's `F.relu6`: `hardtanh(input, 0, 6)` (gradient zero at 0 and 6, as torch).
pub fn relu6(input: &Tensor) -> Result<Tensor> {
    hardtanh(input, 0.0, 6.0)
}

/// torch's `F.leaky_relu(input, negative_slope)`; the gradient at 0 is `negative_slope`.
pub fn leaky_relu(input: &Tensor, negative_slope: f64) -> Result<Tensor> {
    input.where_(&input.gt(0.0)?, input.mul(negative_slope)?)
}

/// torch's `F.elu(input, alpha)`: `alpha * (exp(x) - 1)` for `x <= 0`, else `x`.
pub fn elu(input: &Tensor, alpha: f64) -> Result<Tensor> {
    pointwise::elu(input, alpha, 1.0)
}

/// torch's `F.selu`: `scale * elu(x, alpha)` with torch's constants.
pub fn selu(input: &Tensor) -> Result<Tensor> {
    pointwise::elu(input, SELU_ALPHA, SELU_SCALE)
}

/// torch's `F.gelu(input, approximate)`, `approximate` being `"none"` or `"tanh"`.
pub fn gelu(input: &Tensor, approximate: &str) -> Result<Tensor> {
    match approximate {
        "none" | "tanh" => input.gelu(approximate),
        _ => Err(BorchError::Runtime(
            "approximate argument must be either none or tanh.".into(),
        )),
    }
}

/// torch's `F.silu`.
pub fn silu(input: &Tensor) -> Result<Tensor> {
    input.silu()
}

/// torch's `F.mish`: `x * tanh(softplus(x))`.
pub fn mish(input: &Tensor) -> Result<Tensor> {
    input.mul(&input.softplus(1.0, 20.0)?.tanh()?)
}

/// torch's `F.tanh`.
pub fn tanh(input: &Tensor) -> Result<Tensor> {
    input.tanh()
}

/// torch's `F.sigmoid`.
pub fn sigmoid(input: &Tensor) -> Result<Tensor> {
    input.sigmoid()
}

/// torch's `F.hardtanh(input, min_val, max_val)`: the gradient is zero at and beyond the bounds.
pub fn hardtanh(input: &Tensor, min_val: f64, max_val: f64) -> Result<Tensor> {
    pointwise::hardtanh(input, min_val, max_val)
}

/// torch's `F.hardswish`: `x * relu6(x + 3) / 6`.
pub fn hardswish(input: &Tensor) -> Result<Tensor> {
    pointwise::hardswish(input)
}

/// torch's `F.softplus(input, beta, threshold)`.
pub fn softplus(input: &Tensor, beta: f64, threshold: f64) -> Result<Tensor> {
    input.softplus(beta, threshold)
}

/// torch's `_get_softmax_dim`: the dim softmax uses when none is given.
pub fn implicit_softmax_dim(ndim: usize) -> isize {
    if matches!(ndim, 0 | 1 | 3) { 0 } else { 1 }
}

fn softmax_dim(input: &Tensor, dim: Option<isize>) -> isize {
    dim.unwrap_or_else(|| implicit_softmax_dim(input.dim()))
}

/// torch's `F.softmax(input, dim)`; `None` takes torch's implicit (deprecated) choice.
pub fn softmax(input: &Tensor, dim: Option<isize>) -> Result<Tensor> {
    input.softmax(softmax_dim(input, dim))
}

/// torch's `F.log_softmax(input, dim)`.
pub fn log_softmax(input: &Tensor, dim: Option<isize>) -> Result<Tensor> {
    input.log_softmax(softmax_dim(input, dim))
}
