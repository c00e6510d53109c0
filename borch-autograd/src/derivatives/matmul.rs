//! Derivatives of matrix products.

use borch_tensor::{MatmulOp, Node, Result, Tensor};

pub fn derivative(op: &MatmulOp, node: &Node, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let _ = (node, g);
    Err(borch_tensor::BorchError::NotImplemented(format!(
        "the derivative of {op:?} is not implemented yet"
    )))
}
