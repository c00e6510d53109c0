//! Python subscripts (`t[1:, ::2]`, `t[0]`, `t[..., None]`, `t[idx]`) interpreted once, here, for
//! every binding: each item becomes the view op torch uses for it (select, slice, unsqueeze) or
//! `index_select` for a 1-D integer tensor. A boolean mask's result has a data-dependent shape,
//! which a browser cannot read back inside a synchronous call: it raises NotImplementedError.

use crate::dtype::DType;
use crate::error::{Result, index_err, not_impl};
use crate::tensor::Tensor;

/// One item of a subscript.
#[derive(Debug, Clone)]
pub enum Index {
    /// An integer: the dim is removed at that position.
    Select(isize),
    /// `start:stop:step`, each optional.
    Slice(Option<isize>, Option<isize>, Option<isize>),
    /// `None`: a new dim of size 1.
    NewAxis,
    /// `...`: as many full slices as the other items leave.
    Ellipsis,
    /// A 1-D int64 tensor of positions, or a boolean mask (not supported).
    Tensor(Tensor),
}

/// torch's `t[items]`.
pub fn index(t: &Tensor, items: &[Index]) -> Result<Tensor> {
    if items
        .iter()
        .filter(|i| matches!(i, Index::Ellipsis))
        .count()
        > 1
    {
        return index_err("an index can only have a single ellipsis ('...')");
    }
    for i in items {
        if let Index::Tensor(ix) = i {
            if ix.dtype() == DType::Bool {
                return not_impl(
                    "boolean mask indexing (t[mask]): its result's shape depends on the mask's \
                     values, which borch cannot read back inside a synchronous call; use \
                     torch.where(mask, t, other) or masked_fill",
                );
            }
            if ix.dim() != 1 {
                return not_impl(format!(
                    "indexing with a {}-d integer tensor: borch supports 1-d index tensors \
                     (index_select) only",
                    ix.dim()
                ));
            }
        }
    }
    let consumed = items
        .iter()
        .filter(|i| !matches!(i, Index::NewAxis | Index::Ellipsis))
        .count();
    if consumed > t.dim() {
        if t.dim() == 0 {
            return index_err(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or \
                 `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
            );
        }
        return index_err(format!(
            "too many indices for tensor of dimension {}",
            t.dim()
        ));
    }
    let mut out = t.clone();
    // `d`: the dim of `out` the next item applies to; `src`: the dim of `t` it consumes.
    let mut d = 0isize;
    let mut src = 0usize;
    for item in items {
        match item {
            Index::Select(i) => {
                let size = t.shape()[src] as isize;
                if *i < -size || *i >= size {
                    return index_err(format!(
                        "index {i} is out of bounds for dimension {src} with size {size}"
                    ));
                }
                out = out.select(d, *i)?;
                src += 1;
            }
            Index::Slice(start, stop, step) => {
                out = out.slice(d, *start, *stop, step.unwrap_or(1))?;
                d += 1;
                src += 1;
            }
            Index::NewAxis => {
                out = out.unsqueeze(d)?;
                d += 1;
            }
            Index::Ellipsis => {
                let skip = t.dim() - consumed;
                d += skip as isize;
                src += skip;
            }
            Index::Tensor(ix) => {
                out = out.index_select(d, ix)?;
                d += 1;
                src += 1;
            }
        }
    }
    Ok(out)
}
