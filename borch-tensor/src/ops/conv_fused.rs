//! Convolutions and linear maps with their epilogue (bias, a residual added, ReLU), the ops
//! behind `nn.intrinsic`'s fused modules: `relu(conv2d(x, w, b) + residual)` and
//! `relu(x @ w.T + b)`: one implicit-GEMM convolution with its epilogue (see `conv_gemm.rs`),
//! and one matmul with bias and ReLU in its stores.

use std::sync::Arc;

use crate::autograd::{BackwardFn, Node, Op, record};
use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::matmul::{Gemm, gemm};
use crate::ops::conv::{Padding, Params, convolution_fused};
use crate::scalar::Operand;
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

/// `relu(input @ weight.T + bias)` (torch's `F.linear` then `F.relu`): one matmul dispatch with
/// the bias and ReLU in its stores for a 2-D float input, else composed.
pub fn linear_relu(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    let span = crate::op_trace::Span::begin();
    let out = linear_relu_inner(input, weight, bias);
    span.finish(
        "linear_relu",
        &[Some(input), Some(weight), bias],
        Vec::new(),
        out,
    )
}

fn linear_relu_inner(input: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    let weight_t = weight.t()?;
    let float = |t: &Tensor| t.dtype() == DType::Float32;
    let fits = input.dim() == 2
        && weight.dim() == 2
        && input.shape()[1] == weight.shape()[1]
        && float(input)
        && float(weight)
        && bias.is_none_or(|b| b.dim() == 1 && b.shape()[0] == weight.shape()[0] && float(b));
    if !fits {
        let out = match bias {
            Some(b) if input.dim() == 2 => b.addmm(input, &weight_t, 1.0, 1.0)?,
            Some(b) => input.matmul(&weight_t)?.add(b)?,
            None => input.matmul(&weight_t)?,
        };
        return out.relu();
    }
    let shape = [input.shape()[0] as isize, weight.shape()[0] as isize];
    let c = bias.map(|b| b.expand(&shape)).transpose()?;
    let out = gemm(&Gemm {
        a: &input.detach(),
        b: &weight_t.detach(),
        c: c.as_ref().map(|c| (c, 1.0)),
        alpha: 1.0,
        tile: None,
        relu: true,
    })?;
    let mut inputs = vec![
        Operand::Tensor(input.clone()),
        Operand::Tensor(weight.clone()),
    ];
    inputs.extend(bias.map(|b| Operand::Tensor(b.clone())));
    Ok(record(
        Op::Custom(Arc::new(LinearReluBackward)),
        &inputs,
        out,
    ))
}

/// The derivative of `linear_relu`: the gradient masked where the output is not positive (as
/// ReLU's), then linear's (`g @ W`, `g^T @ x`, `g.sum(0)`), from differentiable ops on the
/// recorded inputs, so a backward that builds a graph differentiates it again.
struct LinearReluBackward;

impl BackwardFn for LinearReluBackward {
    fn name(&self) -> &str {
        "linear_relu"
    }

    fn backward(&self, _: &Tensor) -> Result<Vec<Option<Tensor>>> {
        runtime("internal: linear_relu's backward needs its node")
    }

    fn backward_node(&self, node: &Node, grad: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let g = grad.masked_fill(&node.output()?.le(0.0)?, 0.0)?;
        let input = |i: usize| -> Result<Option<Tensor>> {
            match node.inputs.get(i) {
                Some(Operand::Tensor(t)) => {
                    node.saved_input(i)?;
                    Ok(Some(t.clone()))
                }
                _ => Ok(None),
            }
        };
        let needs =
            |i: usize| matches!(node.inputs.get(i), Some(Operand::Tensor(t)) if t.requires_grad());
        let (x, w) = (input(0)?, input(1)?);
        let mut grads = vec![
            match (needs(0), &w) {
                (true, Some(w)) => Some(g.mm(w)?),
                _ => None,
            },
            match (needs(1), &x) {
                (true, Some(x)) => Some(g.t()?.mm(x)?),
                _ => None,
            },
        ];
        if node.inputs.len() > 2 {
            grads.push(needs(2).then(|| g.sum(Some(&[0]), false)).transpose()?);
        }
        Ok(grads)
    }
}
