//! torch's `F.dropout` with torch's CPU mask: `empty_like(x).bernoulli_(1 - p)` drawn in x's
//! memory order from the default generator, divided by `1 - p`.

use borch_tensor::{BorchError, Result, Tensor, empty};

use crate::repr::py_float;

/// The dims of `t` ordered by decreasing stride when `t` is dense and non-overlapping (torch's
/// `empty_like` then keeps its strides, so the mask is drawn in its memory order); `None` when
/// torch's `empty_like` would be contiguous instead.
fn memory_order(t: &Tensor) -> Option<Vec<usize>> {
    let (shape, strides) = (t.shape(), t.stride());
    let mut dims: Vec<usize> = (0..t.dim()).filter(|&d| shape[d] != 1).collect();
    dims.sort_by_key(|&d| std::cmp::Reverse(strides[d]));
    let mut expected = 1isize;
    for &d in dims.iter().rev() {
        if strides[d] != expected {
            return None;
        }
        expected *= shape[d] as isize;
    }
    // Size-1 dims do not change the visiting order; put them first.
    let mut order: Vec<usize> = (0..t.dim()).filter(|&d| shape[d] == 1).collect();
    order.extend(dims);
    Some(order)
}

/// A bernoulli(`keep`) mask of `input`'s shape, drawn as torch draws `empty_like(input)`.
pub(crate) fn bernoulli_mask(input: &Tensor, keep: f64) -> Result<Tensor> {
    let order = memory_order(input).unwrap_or_else(|| (0..input.dim()).collect());
    let permuted: Vec<usize> = order.iter().map(|&d| input.shape()[d]).collect();
    let mask = empty(&permuted, input.dtype())?;
    mask.bernoulli_(keep, None)?;
    let mut inverse = vec![0isize; order.len()];
    for (i, &d) in order.iter().enumerate() {
        inverse[d] = i as isize;
    }
    mask.permute(&inverse)
}

/// torch's `F.dropout(input, p, training)`: in training, zero each element with probability `p`
/// and scale the rest by `1 / (1 - p)`; the identity otherwise.
pub fn dropout(input: &Tensor, p: f64, training: bool) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        return Err(BorchError::Value(format!(
            "dropout probability has to be between 0 and 1, but got {}",
            py_float(p)
        )));
    }
    if p == 0.0 || !training || input.numel() == 0 {
        return Ok(input.clone());
    }
    if p == 1.0 {
        return input.mul(0.0);
    }
    let mask = borch_autograd::no_grad(|| bernoulli_mask(input, 1.0 - p)?.div(1.0 - p))?;
    input.mul(&mask)
}
