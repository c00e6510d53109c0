//! Derivatives of matrix products (torch's mm_mat1_backward / mm_mat2_backward): for
//! `out = a @ b`, `grad_a = g @ b^T` and `grad_b = a^T @ g`, batched alike over any leading dims
//! (the batched product's inputs are already broadcast views, whose own backward sums). As in
//! torch, only the inputs that require grad get one, and a column-major operand gets its
//! gradient in its own layout.

use borch_tensor::{MatmulOp, Node, Operand, Result, Tensor};

/// `t * s`, skipping the multiply when `s` is 1 (as torch's `maybe_multiply`).
fn scaled(t: Tensor, s: f64) -> Result<Tensor> {
    if s == 1.0 { Ok(t) } else { t.mul(s) }
}

/// Whether input `i` of `node` needs a gradient (torch's `needs_input_grad`): a product's
/// gradient for an input that does not require grad (a batch of data) is never computed.
fn needs(node: &Node, i: usize) -> bool {
    matches!(node.inputs.get(i), Some(Operand::Tensor(t)) if t.requires_grad())
}

/// Input `i`'s values when input `other` needs a gradient (which reads them, with the version
/// check); else only its layout is used, so an in-place write to it since is no error.
fn read(node: &Node, i: usize, other: usize) -> Result<Tensor> {
    if needs(node, other) {
        node.saved_input(i)
    } else {
        node.saved_layout(i)
    }
}

/// A matrix stored column-major: the transpose of a contiguous matrix (e.g. `weight.t()`).
fn column_major(m: &Tensor) -> bool {
    let (s, st) = (m.shape(), m.stride());
    st[0] == 1 && st[1] == s[0] as isize && s[0] > 1 && s[1] > 1
}

/// torch's `mm_mat1_backward`: `g @ b^T`, computed transposed when `a` is column-major so the
/// gradient has `a`'s layout (then `a`'s own view backward makes it contiguous again).
fn mat1_grad(g: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if column_major(a) {
        b.mm(&g.t()?)?.t()
    } else {
        g.mm(&b.t()?)
    }
}

/// torch's `mm_mat2_backward`: `a^T @ g`, computed transposed when `b` is column-major — as
/// for `linear`'s `weight.t()`, whose weight gradient then needs no copy to be contiguous.
fn mat2_grad(g: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if column_major(b) {
        g.t()?.mm(a)?.t()
    } else {
        a.t()?.mm(g)
    }
}

pub fn derivative(op: &MatmulOp, node: &Node, g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    match op {
        MatmulOp::Mm => {
            let (a, b) = (read(node, 0, 1)?, read(node, 1, 0)?);
            Ok(vec![
                needs(node, 0).then(|| mat1_grad(g, &a, &b)).transpose()?,
                needs(node, 1).then(|| mat2_grad(g, &a, &b)).transpose()?,
            ])
        }
        MatmulOp::Bmm => {
            let (a, b) = (read(node, 0, 1)?, read(node, 1, 0)?);
            Ok(vec![
                needs(node, 0).then(|| g.matmul(&b.mt()?)).transpose()?,
                needs(node, 1).then(|| a.mt()?.matmul(g)).transpose()?,
            ])
        }
        MatmulOp::Addmm { beta, alpha } => {
            let (m1, m2) = (read(node, 1, 2)?, read(node, 2, 1)?);
            Ok(vec![
                needs(node, 0)
                    .then(|| scaled(g.clone(), *beta))
                    .transpose()?,
                needs(node, 1)
                    .then(|| scaled(mat1_grad(g, &m1, &m2)?, *alpha))
                    .transpose()?,
                needs(node, 2)
                    .then(|| scaled(mat2_grad(g, &m1, &m2)?, *alpha))
                    .transpose()?,
            ])
        }
    }
}
