//! Convolutions and linear maps with their epilogue (bias, a residual added, ReLU), the ops
//! behind `nn.intrinsic`'s fused modules: `relu(conv2d(x, w, b) + residual)` and
//! `relu(x @ w.T + b)`: one implicit-GEMM convolution with its epilogue (see `conv_gemm.rs`),
//! and one matmul with bias and ReLU in its stores.

use crate::error::Result;
use crate::ops::conv::{Padding, Params, convolution_fused};
use crate::tensor::Tensor;

/// `conv2d(input, weight, bias, stride, padding, dilation, groups)`, then `+ residual` (same
/// shape as the convolution's output) when given, then ReLU when `relu`.
#[allow(clippy::too_many_arguments)]
pub fn conv2d_fused(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    residual: Option<&Tensor>,
    relu: bool,
    stride: &[isize],
    padding: &Padding,
    dilation: &[isize],
    groups: isize,
) -> Result<Tensor> {
    let params = Params {
        stride,
        padding,
        dilation,
        groups,
    };
    convolution_fused(input, weight, bias, residual, relu, &params, 2)
}

/// `relu(input @ weight.T + bias)` (torch's `F.linear` then `F.relu`).
pub fn linear_relu(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    let weight_t = weight.t()?;
    let out = match bias {
        Some(b) if input.dim() == 2 => b.addmm(input, &weight_t, 1.0, 1.0)?,
        Some(b) => input.matmul(&weight_t)?.add(b)?,
        None => input.matmul(&weight_t)?,
    };
    out.relu()
}
