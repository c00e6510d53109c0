//! Derivatives of shape and indexing ops.

use borch_tensor::{Node, Result, ShapeOp, Tensor};

pub fn derivative(op: &ShapeOp, node: &Node, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let _ = (node, g);
    Err(borch_tensor::BorchError::NotImplemented(format!(
        "the derivative of {} is not implemented yet",
        match op {
            ShapeOp::Cat { .. } => "cat",
            _ => "this shape op",
        }
    )))
}
