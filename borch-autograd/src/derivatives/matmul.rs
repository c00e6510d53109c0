//! Derivatives of matrix products (torch's mm_mat1_backward / mm_mat2_backward): for
//! `out = a @ b`, `grad_a = g @ b^T` and `grad_b = a^T @ g`, batched alike over any leading dims
//! (the batched product's inputs are already broadcast views, whose own backward sums).

use borch_tensor::{MatmulOp, Node, Result, Tensor};

/// `t * s`, skipping the multiply when `s` is 1 (as torch's `maybe_multiply`).
fn scaled(t: Tensor, s: f64) -> Result<Tensor> {
    if s == 1.0 { Ok(t) } else { t.mul(s) }
}

pub fn derivative(op: &MatmulOp, node: &Node, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    match op {
        MatmulOp::Mm => {
            let (a, b) = (node.saved_input(0)?, node.saved_input(1)?);
            Ok(vec![Some(g.mm(&b.t()?)?), Some(a.t()?.mm(g)?)])
        }
        MatmulOp::Bmm => {
            let (a, b) = (node.saved_input(0)?, node.saved_input(1)?);
            Ok(vec![Some(g.matmul(&b.mt()?)?), Some(a.mt()?.matmul(g)?)])
        }
        MatmulOp::Addmm { beta, alpha } => {
            let (m1, m2) = (node.saved_input(1)?, node.saved_input(2)?);
            Ok(vec![
                Some(scaled(g.clone(), *beta)?),
                Some(scaled(g.mm(&m2.t()?)?, *alpha)?),
                Some(scaled(m1.t()?.mm(g)?, *alpha)?),
            ])
        }
    }
}
