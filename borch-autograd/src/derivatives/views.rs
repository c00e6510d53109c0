//! Views route the gradient back into the input's shape.

use borch_tensor::{Node, Result, Tensor, ViewOp, zeros};

use super::sum_to_shape;

fn input_shape(node: &Node) -> Vec<usize> {
    match &node.inputs[0] {
        borch_tensor::Operand::Tensor(t) => t.shape().to_vec(),
        borch_tensor::Operand::Scalar(_) => vec![],
    }
}

pub fn derivative(view: &ViewOp, node: &Node, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let shape = input_shape(node);
    let dims: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    let grad = match view {
        ViewOp::Reshape => g.reshape(&dims)?,
        ViewOp::Permute(perm) => {
            let mut inverse = vec![0isize; perm.len()];
            for (i, &p) in perm.iter().enumerate() {
                inverse[p] = i as isize;
            }
            g.permute(&inverse)?
        }
        ViewOp::Expand => sum_to_shape(g, &shape)?,
        ViewOp::Slice { dim, start, step } => {
            let z = zeros(&shape, g.dtype())?;
            let d = *dim as isize;
            z.slice(d, Some(*start as isize), None, *step as isize)?
                .narrow(d, 0, g.shape()[*dim])?
                .copy_(g)?;
            z
        }
        ViewOp::Select { dim, index } => {
            let z = zeros(&shape, g.dtype())?;
            z.select(*dim as isize, *index as isize)?.copy_(g)?;
            z
        }
    };
    Ok(vec![Some(grad)])
}
