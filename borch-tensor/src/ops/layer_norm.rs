//! LayerNorm over the trailing dims as fused kernels (`kernels/layer_norm.rs`), recorded for
//! autograd as one op with its own backward: one dispatch forward; backward one for the input
//! gradient and two for the weight and bias gradients. While a backward builds a graph
//! (`create_graph`), the gradients are composed from differentiable ops instead.

use std::sync::Arc;

use crate::autograd::{BackwardFn, Node, Op, is_grad_enabled, record};
use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::layer_norm as k;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// Whether `layer_norm_fused` takes these operands: a float32 input with elements whose
/// trailing `normalized_shape` dims it normalises, and float32 weight and bias of exactly that
/// shape (anything else takes the composed path and its errors).
pub fn layer_norm_fusable(
    input: &Tensor,
    normalized_shape: &[usize],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
) -> bool {
    let shape = input.shape();
    let k = normalized_shape.len();
    let affine_ok = |t: Option<&Tensor>| {
        t.is_none_or(|t| t.dtype() == DType::Float32 && t.shape() == normalized_shape)
    };
    input.dtype() == DType::Float32
        && input.numel() > 0
        && k > 0
        && shape.len() >= k
        && shape[shape.len() - k..] == *normalized_shape
        && affine_ok(weight)
        && affine_ok(bias)
}

/// torch's `F.layer_norm` over operands `layer_norm_fusable` accepts.
pub fn layer_norm_fused(
    input: &Tensor,
    normalized_shape: &[usize],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let d: usize = normalized_shape.iter().product();
    let rows = input.numel() / d;
    let x = input.detach().contiguous()?;
    let flat = |t: Option<&Tensor>| t.map(|t| t.detach().contiguous()).transpose();
    let (w, b) = (flat(weight)?, flat(bias)?);
    let (out, stats) = k::forward(&x, rows, d, eps, w.as_ref(), b.as_ref())?;
    let mut inputs = vec![Operand::Tensor(input.clone())];
    inputs.extend(weight.map(|t| Operand::Tensor(t.clone())));
    inputs.extend(bias.map(|t| Operand::Tensor(t.clone())));
    let backward = LayerNormBackward {
        eps,
        dims: normalized_shape.len(),
        stats,
        weight: weight.is_some(),
        bias: bias.is_some(),
    };
    Ok(record(Op::Custom(Arc::new(backward)), &inputs, out))
}

/// The derivative of one fused LayerNorm. Inputs: input, then weight and bias where given.
struct LayerNormBackward {
    eps: f64,
    /// How many trailing dims are normalised.
    dims: usize,
    /// `[2R]`: the rows' means, then their inverse standard deviations.
    stats: Tensor,
    weight: bool,
    bias: bool,
}

fn needs(node: &Node, i: usize) -> bool {
    matches!(node.inputs.get(i), Some(Operand::Tensor(t)) if t.requires_grad())
}

/// The recorded input `i` itself (with its graph), after the version check of its values.
fn original(node: &Node, i: usize) -> Result<Tensor> {
    node.saved_input(i)?;
    match &node.inputs[i] {
        Operand::Tensor(t) => Ok(t.clone()),
        Operand::Scalar(_) => runtime("internal: layer_norm input is a scalar"),
    }
}

impl LayerNormBackward {
    fn kernels(&self, node: &Node, grad: &Tensor, want: [bool; 3]) -> Result<[Option<Tensor>; 3]> {
        let g = grad.detach().contiguous()?;
        let x = node.saved_input(0)?.contiguous()?;
        let rows = self.stats.numel() / 2;
        let d = x.numel() / rows.max(1);
        let gx = if want[0] {
            let w = if self.weight {
                Some(node.saved_input(1)?.contiguous()?)
            } else {
                None
            };
            Some(k::grad_input(&g, &x, &self.stats, rows, d, w.as_ref())?)
        } else {
            None
        };
        let (gw, gb) = if want[1] || want[2] {
            let (gw, gb) = k::grad_affine(&g, &x, &self.stats, rows, d)?;
            (want[1].then_some(gw), want[2].then_some(gb))
        } else {
            (None, None)
        };
        Ok([gx, gw, gb])
    }

    /// The same gradients from differentiable ops on the recorded inputs, for backward passes
    /// that build a graph.
    fn composed(&self, node: &Node, g: &Tensor, want: [bool; 3]) -> Result<[Option<Tensor>; 3]> {
        let x = original(node, 0)?;
        let n = x.dim() as isize;
        let norm: Vec<isize> = (n - self.dims as isize..n).collect();
        let lead: Vec<isize> = (0..n - self.dims as isize).collect();
        let mean = x.mean(Some(&norm), true)?;
        let inv = x.var(Some(&norm), 0.0, true)?.add(self.eps)?.rsqrt()?;
        let xhat = x.sub(&mean)?.mul(&inv)?;
        let over_rows = |t: Tensor| -> Result<Tensor> {
            if lead.is_empty() {
                Ok(t)
            } else {
                t.sum(Some(&lead), false)
            }
        };
        let gw = if want[1] {
            Some(over_rows(g.mul(&xhat)?)?)
        } else {
            None
        };
        let gb = if want[2] {
            Some(over_rows(g.clone())?)
        } else {
            None
        };
        let gx = if want[0] {
            let gs = if self.weight {
                g.mul(&original(node, 1)?)?
            } else {
                g.clone()
            };
            let proj = xhat.mul(&gs.mul(&xhat)?.mean(Some(&norm), true)?)?;
            Some(
                gs.sub(&gs.mean(Some(&norm), true)?)?
                    .sub(&proj)?
                    .mul(&inv)?,
            )
        } else {
            None
        };
        Ok([gx, gw, gb])
    }
}

fn shape_of(t: &Tensor) -> Vec<isize> {
    t.shape().iter().map(|&d| d as isize).collect()
}

impl BackwardFn for LayerNormBackward {
    fn name(&self) -> &str {
        "native_layer_norm"
    }

    fn backward(&self, _: &Tensor) -> Result<Vec<Option<Tensor>>> {
        runtime("internal: layer_norm's backward needs its node")
    }

    fn backward_node(&self, node: &Node, grad: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let wi = 1;
        let bi = 1 + self.weight as usize;
        let want = [
            needs(node, 0),
            self.weight && needs(node, wi),
            self.bias && needs(node, bi),
        ];
        let [gx, gw, gb] = if is_grad_enabled() {
            self.composed(node, grad, want)?
        } else {
            self.kernels(node, grad, want)?
        };
        let shaped = |g: Option<Tensor>, i: usize| -> Result<Option<Tensor>> {
            match g {
                Some(g) => Ok(Some(g.reshape(&shape_of(&node.saved_layout(i)?))?)),
                None => Ok(None),
            }
        };
        let mut grads = vec![shaped(gx, 0)?];
        if self.weight {
            grads.push(shaped(gw, wi)?);
        }
        if self.bias {
            grads.push(shaped(gb, bi)?);
        }
        Ok(grads)
    }
}
