//! Derivatives of elementwise ops as one kernel each, for backward passes that build no graph
//! (torch's `threshold_backward` and `gelu_backward`): the composed rules take two to six
//! dispatches and as many passes over the tensor. Not recorded for autograd; the rules use the
//! composed ops while grad mode is on (`create_graph`).

use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::map::{Dest, MapSpec, map};
use crate::scalar::Operand;
use crate::tensor::Tensor;

fn backward_map(expr: &str, saved: &Tensor, grad: &Tensor) -> Result<Tensor> {
    if saved.dtype() != DType::Float32 || grad.dtype() != DType::Float32 {
        return runtime("internal: a fused derivative needs float32 tensors");
    }
    let spec = MapSpec {
        expr,
        compute: DType::Float32,
        result_bool: false,
        out_dtype: DType::Float32,
        extras: &[],
    };
    let operands = [
        Operand::Tensor(saved.clone()),
        Operand::Tensor(grad.clone()),
    ];
    map(&spec, &operands, Dest::New(grad.shape()))
}

/// `grad` where ReLU's output `out` is positive, else 0 (NaN outputs keep their gradient, as
/// the composed `masked_fill(out <= 0, 0)`).
pub fn relu_backward(grad: &Tensor, out: &Tensor) -> Result<Tensor> {
    backward_map("select(b, 0.0, le_f(a, 0.0))", out, grad)
}

/// `grad * (Φ(x) + x φ(x))`: exact GELU's derivative at its input `x`.
pub fn gelu_backward(grad: &Tensor, x: &Tensor) -> Result<Tensor> {
    backward_map(
        "b * (0.5 * (1.0 + erf_(a * 0.70710678118654752)) + a * exp_(-0.5 * a * a) * \
         0.39894228040143268)",
        x,
        grad,
    )
}
