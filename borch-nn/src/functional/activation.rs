//! Activations, composed from borch-tensor's differentiable ops so autograd needs nothing new.
//! Where torch's derivative at a kink differs from the naive composition, the composition is
//! chosen to give torch's value (noted per function).

use borch_tensor::{BorchError, Result, Tensor};

/// The `alpha` and `scale` of torch's SELU.
pub const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
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

/// torch's `F.elu(input, alpha)`: `x` for `x > 0`, else `alpha * (exp(x) - 1)`.
pub fn elu(input: &Tensor, alpha: f64) -> Result<Tensor> {
    // The exp branch sees min(x, 0) through masked_fill (not clamp), so it cannot overflow for
    // large x and still passes the gradient at x == 0, where torch's is alpha.
    let negative = input.masked_fill(&input.gt(0.0)?, 0.0)?;
    input.where_(&input.gt(0.0)?, negative.expm1()?.mul(alpha)?)
}

/// torch's `F.selu`: `scale * elu(x, alpha)` with torch's constants.
pub fn selu(input: &Tensor) -> Result<Tensor> {
    elu(input, SELU_ALPHA)?.mul(SELU_SCALE)
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

/// torch's `F.hardtanh(input, min_val, max_val)`; the gradient is zero at the bounds.
pub fn hardtanh(input: &Tensor, min_val: f64, max_val: f64) -> Result<Tensor> {
    input.clamp(Some(min_val.into()), Some(max_val.into()))
}

/// torch's `F.hardswish`: `x * relu6(x + 3) / 6`.
pub fn hardswish(input: &Tensor) -> Result<Tensor> {
    input.mul(&relu6(&input.add(3.0)?)?)?.div(6.0)
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
