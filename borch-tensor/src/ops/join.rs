//! Joining tensors: `cat` and `stack`, written as strided copies into slices of a new tensor.

use std::borrow::Borrow;

use crate::autograd::{Op, ShapeOp, record};
use crate::dtype::DType;
use crate::error::{BorchError, Result, runtime};
use crate::layout::{fmt_list, wrap_dim};
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// torch's legacy rule: a 1-D tensor with no elements is left out of `cat`, whatever its shape
/// elsewhere.
fn skipped(t: &Tensor) -> bool {
    t.dim() == 1 && t.numel() == 0
}

/// torch.cat(tensors, dim): the tensors joined along `dim`, promoted to a common dtype. 1-D empty
/// tensors are skipped as in torch; the others must agree in every size but `dim`.
pub fn cat<T: Borrow<Tensor>>(tensors: &[T], dim: isize) -> Result<Tensor> {
    let ts: Vec<&Tensor> = tensors.iter().map(Borrow::borrow).collect();
    // The views of the new output that fill it are not ops of the traced graph.
    let quiet = crate::op_trace::Span::begin();
    let (out, d) = cat_unrecorded(&ts, dim)?;
    drop(quiet);
    Ok(record(
        Op::Shape(ShapeOp::Cat { dim: d }),
        &operands(&ts),
        out,
    ))
}

fn operands(ts: &[&Tensor]) -> Vec<Operand> {
    ts.iter().map(|&t| Operand::Tensor(t.clone())).collect()
}

/// `cat` without recording, with the wrapped dim (0 when every tensor was skipped).
fn cat_unrecorded(ts: &[&Tensor], dim: isize) -> Result<(Tensor, usize)> {
    let Some(first) = ts.first() else {
        return Err(BorchError::Value(
            "torch.cat(): expected a non-empty list of Tensors".into(),
        ));
    };
    for (i, t) in ts.iter().enumerate() {
        if t.dim() == 0 {
            return runtime(format!(
                "zero-dimensional tensor (at position {i}) cannot be concatenated"
            ));
        }
        t.check_same_device_as(first.device())?;
    }
    let dtype = ts
        .iter()
        .map(|t| t.dtype())
        .fold(DType::Bool, DType::promote);
    let Some(reference) = ts.iter().find(|t| !skipped(t)) else {
        return Ok((Tensor::uninit(first.device(), &[0], dtype)?, 0));
    };
    let d = wrap_dim(dim, reference.dim())?;
    let mut total = 0;
    for (i, t) in ts.iter().enumerate().filter(|(_, t)| !skipped(t)) {
        if t.dim() != reference.dim() {
            return runtime(format!(
                "Tensors must have same number of dimensions: got {} and {}",
                reference.dim(),
                t.dim()
            ));
        }
        for axis in (0..t.dim()).filter(|&a| a != d) {
            if t.shape()[axis] != reference.shape()[axis] {
                return runtime(format!(
                    "Sizes of tensors must match except in dimension {d}. Expected size {} but \
                     got size {} for tensor number {i} in the list.",
                    reference.shape()[axis],
                    t.shape()[axis]
                ));
            }
        }
        total += t.shape()[d];
    }
    let mut shape = reference.shape().to_vec();
    shape[d] = total;
    let out = Tensor::uninit(first.device(), &shape, dtype)?;
    let mut start = 0;
    for t in ts.iter().filter(|t| !skipped(t)) {
        let len = t.shape()[d];
        if len > 0 {
            out.narrow(d as isize, start as isize, len)?.copy_(t)?;
        }
        start += len;
    }
    Ok((out, d))
}

/// torch.stack(tensors, dim): equal-shaped tensors joined along a new dim `dim`.
pub fn stack<T: Borrow<Tensor>>(tensors: &[T], dim: isize) -> Result<Tensor> {
    let ts: Vec<&Tensor> = tensors.iter().map(Borrow::borrow).collect();
    let Some(first) = ts.first() else {
        return runtime("stack expects a non-empty TensorList");
    };
    let d = wrap_dim(dim, first.dim() + 1)?;
    for (i, t) in ts.iter().enumerate().skip(1) {
        if t.shape() != first.shape() {
            return runtime(format!(
                "stack expects each tensor to be equal size, but got {} at entry 0 and {} at \
                 entry {i}",
                fmt_list(first.shape()),
                fmt_list(t.shape())
            ));
        }
    }
    let quiet = crate::op_trace::Span::begin();
    let unsqueezed = ts
        .iter()
        .map(|t| t.detach().unsqueeze(d as isize))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Tensor> = unsqueezed.iter().collect();
    let (out, _) = cat_unrecorded(&refs, d as isize)?;
    drop(quiet);
    Ok(record(
        Op::Shape(ShapeOp::Stack { dim: d }),
        &operands(&ts),
        out,
    ))
}
