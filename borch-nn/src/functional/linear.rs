//! torch's `F.linear` and `F.bilinear`.

use borch_tensor::{BorchError, Result, Tensor};

/// torch's `F.linear(input, weight, bias)`: `input @ weight.T + bias`.
pub fn linear(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    if weight.dim() != 2 {
        return Err(BorchError::Runtime(format!(
            "linear: weight must be 2-D, but got {}-D",
            weight.dim()
        )));
    }
    let weight_t = weight.t()?;
    // torch: addmm for a 2-D input with a bias (one fused kernel), and for a contiguous 3-D one
    // seen as 2-D (`_flatten_nd_linear`); matmul then add otherwise.
    match bias {
        Some(b) if input.dim() == 2 => b.addmm(input, &weight_t, 1.0, 1.0),
        Some(b) if input.dim() == 3 && input.is_contiguous() => {
            let s = input.shape();
            let flat = input.reshape(&[(s[0] * s[1]) as isize, s[2] as isize])?;
            let out = b.addmm(&flat, &weight_t, 1.0, 1.0)?;
            out.reshape(&[s[0] as isize, s[1] as isize, weight.shape()[0] as isize])
        }
        Some(b) => input.matmul(&weight_t)?.add(b),
        None => input.matmul(&weight_t),
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
    // y[n, o] = Σ_j (x1[n] @ W[o])[j] x2[n, j]: one matmul of x1 with W laid out as
    // (in1, out * in2), then a product with x2 summed over in2.
    let out_features = weight.shape()[0];
    let lead: Vec<isize> = input1.shape()[..input1.dim() - 1]
        .iter()
        .map(|&d| d as isize)
        .collect();
    let x1 = input1.reshape(&[-1, in1 as isize])?;
    let x2 = input2.reshape(&[-1, 1, in2 as isize])?;
    let w = weight
        .permute(&[1, 0, 2])?
        .reshape(&[in1 as isize, (out_features * in2) as isize])?;
    let mut shape = lead;
    shape.push(out_features as isize);
    let out = x1
        .matmul(&w)?
        .reshape(&[-1, out_features as isize, in2 as isize])?
        .mul(&x2)?
        .sum(Some(&[-1]), false)?
        .reshape(&shape)?;
    match bias {
        Some(b) => out.add(b),
        None => Ok(out),
    }
}
