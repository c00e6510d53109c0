//! Python subscripts (`t[1:, ::2]`, `t[0]`, `t[..., None]`, `t[idx]`) interpreted once, here, for
//! every binding: each item becomes the view op torch uses for it (select, slice, unsqueeze) or
//! `index_select` for an integer tensor (index tensors over the leading dims are combined into
//! one linear index). A boolean mask's result has a data-dependent shape: `index_async` reads the
//! mask back awaiting it; `index` blocks on native targets and, in a browser (a synchronous call
//! cannot read back), raises NotImplementedError naming `index_async`.

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

/// torch's `t[items]`, awaiting the read of a boolean mask (`t[mask]`); any other subscript is
/// `index`'s.
pub async fn index_async(t: &Tensor, items: &[Index]) -> Result<Tensor> {
    match items {
        [Index::Tensor(mask)] if mask.dtype() == DType::Bool => t.mask_index(mask).await,
        _ => index(t, items),
    }
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
    let tensors = items
        .iter()
        .filter(|i| matches!(i, Index::Tensor(_)))
        .count();
    if let [Index::Tensor(mask)] = items
        && mask.dtype() == DType::Bool
    {
        return mask_index(t, mask);
    }
    for i in items {
        if let Index::Tensor(ix) = i
            && ix.dtype() == DType::Bool
        {
            return not_impl(
                "a boolean mask among other subscripts (t[mask, ...]): borch indexes with a \
                 boolean mask alone (t[mask])",
            );
        }
    }
    if tensors > 1 {
        let lead: Vec<Tensor> = items
            .iter()
            .take_while(|i| matches!(i, Index::Tensor(_)))
            .filter_map(|i| match i {
                Index::Tensor(x) => Some(x.clone()),
                _ => None,
            })
            .collect();
        let tail_full = items[lead.len()..].iter().all(|i| {
            matches!(
                i,
                Index::Ellipsis | Index::Slice(None, None, None | Some(1))
            )
        });
        if lead.len() != tensors || !tail_full {
            return not_impl(
                "several index tensors mixed with other subscripts: borch indexes with index \
                 tensors over the leading dims (followed by ':' or '...') only",
            );
        }
        let (lin, b) = crate::ops::index_put::linear_index(t.shape(), &lead)?;
        let rest = &t.shape()[lead.len()..];
        let p: usize = t.shape()[..lead.len()].iter().product();
        let mut rows = vec![p as isize];
        rows.extend(rest.iter().map(|&d| d as isize));
        let picked = t.reshape(&rows)?.index_select(0, &lin.reshape(&[-1])?)?;
        let mut shape: Vec<isize> = b.iter().map(|&d| d as isize).collect();
        shape.extend(rest.iter().map(|&d| d as isize));
        return picked.reshape(&shape);
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
                // Python indexing wraps negative positions (index_select does not).
                let size = t.shape()[src] as i64;
                let flat = ix.reshape(&[-1])?;
                let flat = flat.add(&flat.lt(0)?.to_dtype(DType::Int64)?.mul(size)?)?;
                out = out.index_select(d, &flat)?;
                let mut shape: Vec<isize> = out.shape().iter().map(|&s| s as isize).collect();
                let at = d as usize;
                shape.splice(at..at + 1, ix.shape().iter().map(|&s| s as isize));
                out = out.reshape(&shape)?;
                d += ix.dim() as isize;
                src += 1;
            }
        }
    }
    Ok(out)
}

/// `t[mask]`: blocking on native targets; a browser cannot read the mask back inside a
/// synchronous call.
fn mask_index(t: &Tensor, mask: &Tensor) -> Result<Tensor> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        t.mask_index_blocking(mask)
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = (t, mask);
        not_impl(
            "boolean mask indexing (t[mask]): its result's shape depends on the mask's values, \
             which borch cannot read back inside a synchronous call in a browser: await the \
             async form (the catalog's index_async; borch-ts: await t.indexAsync([mask]))",
        )
    }
}
