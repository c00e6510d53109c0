//! More of torch's activations: prelu, rrelu (eval), celu, glu, logsigmoid, hardsigmoid, the
//! shrinks, softsign, softmin and threshold. Composed from borch-tensor's differentiable ops
//! where their gradients are torch's (masked_fill and where pass torch's branches), autograd
//! functions in `pointwise` where a kink needs torch's own formula.

use borch_tensor::{BorchError, DType, Result, Scalar, Tensor};

use super::activation::{implicit_softmax_dim, leaky_relu};
use super::pointwise;

/// torch's CPU kernels refuse integer inputs for these: `"hardshrink_cpu" not implemented for
/// 'Long'`.
fn float_only(input: &Tensor, kernel: &str) -> Result<()> {
    if input.dtype() == DType::Float32 {
        return Ok(());
    }
    Err(BorchError::NotImplemented(format!(
        "\"{kernel}_cpu\" not implemented for '{}'",
        input.dtype().scalar_type_name()
    )))
}

/// torch's `F.prelu(input, weight)`: `x` where `x > 0`, else `weight * x`, with one weight or
/// one per channel (dim 1).
pub fn prelu(input: &Tensor, weight: &Tensor) -> Result<Tensor> {
    if weight.dim() > 1 {
        return Err(BorchError::Runtime(format!(
            "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {}",
            weight.dim()
        )));
    }
    if input.dtype() != weight.dtype() {
        let name = |d: DType| d.scalar_type_name();
        return Err(BorchError::Runtime(format!(
            "prelu: Type promoting not supported. Got {} and {}",
            name(input.dtype()),
            name(weight.dtype())
        )));
    }
    let n = weight.numel();
    let w = if n == 1 {
        weight.reshape(&[])?
    } else {
        let channels = if input.dim() > 1 { input.shape()[1] } else { 1 };
        if channels != n {
            return Err(BorchError::Runtime(format!(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers \
                 = {n} and channel size = {channels}."
            )));
        }
        let mut shape = vec![1isize; input.dim()];
        shape[1] = n as isize;
        weight.reshape(&shape)?
    };
    input.where_(&input.gt(0.0)?, w.mul(input)?)
}

fn check_rrelu_bounds(lower: f64, upper: f64) -> Result<()> {
    if lower > upper {
        return Err(BorchError::Runtime(
            "Lower bound should be less than or equal to the upper bound".into(),
        ));
    }
    Ok(())
}

/// torch's `F.rrelu(input, lower, upper, training)` outside training: leaky_relu with slope
/// `(lower + upper) / 2`. Training draws one slope per negative element (how many depends on the
/// data, which would need a readback): refused.
pub fn rrelu(input: &Tensor, lower: f64, upper: f64, training: bool) -> Result<Tensor> {
    check_rrelu_bounds(lower, upper)?;
    if training {
        return Err(BorchError::NotImplemented(
            "rrelu(): borch has no training mode for rrelu (torch draws a slope per negative \
             element, which needs the data on the host); use training=False"
                .into(),
        ));
    }
    leaky_relu(input, (lower + upper) / 2.0)
}

/// torch's `F.celu(input, alpha)`: `max(0, x) + min(0, alpha (exp(x / alpha) - 1))`.
pub fn celu(input: &Tensor, alpha: f64) -> Result<Tensor> {
    if alpha == 0.0 {
        return Err(BorchError::Runtime(
            "ZeroDivisionError: alpha cannot be 0 for CELU".into(),
        ));
    }
    pointwise::celu(input, alpha)
}

/// torch's `F.glu(input, dim)`: `a * sigmoid(b)` for the two halves `a`, `b` of `dim`.
pub fn glu(input: &Tensor, dim: isize) -> Result<Tensor> {
    if input.dim() == 0 {
        return Err(BorchError::Runtime(
            "glu does not support scalars because halving size must be even".into(),
        ));
    }
    let d = borch_tensor::wrap_dim(dim, input.dim())?;
    let size = input.shape()[d];
    if !size.is_multiple_of(2) {
        return Err(BorchError::Runtime(format!(
            "Halving dimension must be even, but dimension {d} is size {size}"
        )));
    }
    let half = size / 2;
    let a = input.narrow(d as isize, 0, half)?;
    let b = input.narrow(d as isize, half as isize, half)?;
    a.mul(&b.sigmoid()?)
}

/// torch's `F.logsigmoid`: `-softplus(-x)`.
pub fn logsigmoid(input: &Tensor) -> Result<Tensor> {
    float_only(input, "log_sigmoid")?;
    input.neg()?.softplus(1.0, 20.0)?.neg()
}

/// torch's `F.hardsigmoid`: `relu6(x + 3) / 6`.
pub fn hardsigmoid(input: &Tensor) -> Result<Tensor> {
    float_only(input, "hardsigmoid")?;
    pointwise::hardsigmoid(input)
}

/// The mask `-lambd <= x <= lambd` of the shrinks.
fn inside(input: &Tensor, lambd: f64) -> Result<Tensor> {
    input.ge(-lambd)?.logical_and(&input.le(lambd)?)
}

/// torch's `F.hardshrink(input, lambd)`: `x` where `|x| > lambd`, else 0.
pub fn hardshrink(input: &Tensor, lambd: f64) -> Result<Tensor> {
    float_only(input, "hardshrink")?;
    input.masked_fill(&inside(input, lambd)?, 0.0)
}

/// torch's `F.softshrink(input, lambd)`: `x - lambd` above `lambd`, `x + lambd` below `-lambd`,
/// else 0.
pub fn softshrink(input: &Tensor, lambd: f64) -> Result<Tensor> {
    float_only(input, "softshrink")?;
    if !(0.0..=f64::from(f32::MAX)).contains(&lambd) {
        return Err(BorchError::Runtime(format!(
            "lambda must be in range [0, 3.40282e+38] for input dtype Float, but found {}",
            crate::repr::py_float(lambd).trim_end_matches(".0")
        )));
    }
    let shifted = input.sub(
        &input
            .gt(0.0)?
            .to_dtype(DType::Float32)?
            .mul(2.0 * lambd)?
            .sub(lambd)?,
    )?;
    shifted.masked_fill(&inside(input, lambd)?, 0.0)
}

/// torch's `F.tanhshrink`: `x - tanh(x)`.
pub fn tanhshrink(input: &Tensor) -> Result<Tensor> {
    input.sub(&input.tanh()?)
}

/// torch's `F.softsign`: `x / (1 + |x|)`.
pub fn softsign(input: &Tensor) -> Result<Tensor> {
    input.div(&input.abs()?.add(1.0)?)
}

/// torch's `F.softmin(input, dim)`: `softmax(-x, dim)`; `None` takes torch's implicit dim.
pub fn softmin(input: &Tensor, dim: Option<isize>) -> Result<Tensor> {
    let dim = dim.unwrap_or_else(|| implicit_softmax_dim(input.dim()));
    input.neg()?.softmax(dim)
}

/// torch's `nn.Softmax2d`: softmax over the channels (dim -3) of a 3-D or 4-D input.
pub fn softmax2d(input: &Tensor) -> Result<Tensor> {
    if !matches!(input.dim(), 3 | 4) {
        return Err(BorchError::Value(format!(
            "Softmax2d: expected input to be 3D or 4D, got {}D instead",
            input.dim()
        )));
    }
    input.softmax(-3)
}

/// torch's `F.threshold(input, threshold, value)`: `x` where `x > threshold`, else `value`.
pub fn threshold(input: &Tensor, threshold: Scalar, value: Scalar) -> Result<Tensor> {
    input.masked_fill(&input.le(threshold)?, value)
}
