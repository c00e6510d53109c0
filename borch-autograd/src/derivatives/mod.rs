//! The derivative of every op borch records, in one place, keyed by the op. Derivatives are
//! ordinary tensor ops, so they run on the GPU and are themselves differentiable.

mod elementwise;
mod matmul;
mod reduce;
mod shape;
mod views;

use borch_tensor::{Node, Op, Result, Tensor};

pub use elementwise::has_map_derivative;

/// Gradients for each of `node`'s inputs (None for scalars and non-differentiable inputs).
pub fn derivative(node: &Node, grad: &Tensor) -> Result<Vec<Option<Tensor>>> {
    match &node.op {
        Op::Map { op, params } => elementwise::derivative(op.name, node, params, grad),
        Op::View(view) => views::derivative(view, node, grad),
        Op::Identity => Ok(vec![Some(grad.clone())]),
        Op::Reduce { op, dims, keepdim } => reduce::derivative(op, dims, *keepdim, node, grad),
        Op::Along { op, dim } => reduce::along(op, *dim, node, grad),
        Op::Shape(op) => shape::derivative(op, node, grad),
        Op::Matmul(op) => matmul::derivative(op, node, grad),
        Op::Custom(f) => f.backward_node(node, grad),
    }
}

/// Sum `g` down to `shape`, undoing broadcasting (leading dims and size-1 dims).
pub fn sum_to_shape(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    if g.shape() == shape {
        return Ok(g.clone());
    }
    let lead = g.dim() - shape.len();
    let mut dims: Vec<isize> = (0..lead as isize).collect();
    for (i, &s) in shape.iter().enumerate() {
        if s == 1 && g.shape()[lead + i] != 1 {
            dims.push((lead + i) as isize);
        }
    }
    let summed = if dims.is_empty() {
        g.clone()
    } else {
        g.sum(Some(&dims), true)?
    };
    let target: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    summed.reshape(&target)
}
