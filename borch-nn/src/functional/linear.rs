//! torch's `F.linear` and `F.bilinear`.

use borch_tensor::{BorchError, Result, Tensor};

/// `input @ weight.T` for `input` of shape `(*, in)` and `weight` of `(out, in)`.
fn matmul_weight_t(input: &Tensor, weight: &Tensor) -> Result<Tensor> {
    // A broadcast product summed over `in`: (*, 1, in) * (out, in) -> (*, out). It needs only
    // elementwise ops and a reduction, whose derivatives exist.
    input.unsqueeze(-2)?.mul(weight)?.sum(Some(&[-1]), false)
}

/// torch's `F.linear(input, weight, bias)`: `input @ weight.T + bias`.
pub fn linear(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    if weight.dim() != 2 {
        return Err(BorchError::Runtime(format!(
            "linear: weight must be 2-D, but got {}-D",
            weight.dim()
        )));
    }
    let (out_features, in_features) = (weight.shape()[0], weight.shape()[1]);
    let k = input.shape().last().copied().unwrap_or(1);
    if input.dim() == 0 || k != in_features {
        let rows = if input.dim() <= 1 {
            1
        } else {
            input.numel() / k.max(1)
        };
        let op = if input.dim() == 2 && bias.is_some() {
            "addmm: "
        } else {
            ""
        };
        return Err(BorchError::Runtime(format!(
            "{op}mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {in_features}x{out_features})"
        )));
    }
    let out = matmul_weight_t(input, weight)?;
    match bias {
        Some(b) => out.add(b),
        None => Ok(out),
    }
}

/// torch's `F.bilinear(input1, input2, weight, bias)`: `y[..., o] = x1 @ weight[o] @ x2 + b[o]`
/// for `x1` of shape `(*, in1)`, `x2` of `(*, in2)` and `weight` of `(out, in1, in2)`.
pub fn bilinear(
    input1: &Tensor,
    input2: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
) -> Result<Tensor> {
    if weight.dim() != 3 {
        return Err(BorchError::Runtime(format!(
            "bilinear(): weight must be 3-dimensional, but got {}-D",
            weight.dim()
        )));
    }
    let (in1, in2) = (weight.shape()[1], weight.shape()[2]);
    let last = |t: &Tensor| t.shape().last().copied().unwrap_or(0);
    if input1.dim() != input2.dim() {
        return Err(BorchError::Runtime(format!(
            "bilinear(): input dimensions do not match: got {} and {}",
            input1.dim(),
            input2.dim()
        )));
    }
    if last(input1) != in1 {
        return Err(BorchError::Runtime(format!(
            "bilinear(): input1 size does not match weight size: got {} but expected {in1}",
            last(input1)
        )));
    }
    if last(input2) != in2 {
        return Err(BorchError::Runtime(format!(
            "bilinear(): input2 size does not match weight size: got {} but expected {in2}",
            last(input2)
        )));
    }
    // (*, 1, in1, 1) * (out, in1, in2) * (*, 1, 1, in2), summed over in1 and in2.
    let x1 = input1.unsqueeze(-2)?.unsqueeze(-1)?;
    let x2 = input2.unsqueeze(-2)?.unsqueeze(-2)?;
    let out = x1.mul(weight)?.mul(&x2)?.sum(Some(&[-2, -1]), false)?;
    match bias {
        Some(b) => out.add(b),
        None => Ok(out),
    }
}
