//! Writing by index: torch's `index_put_` / `index_put` (integer index tensors over the leading
//! dims, broadcast together) and Python's `t[items] = v` (`__setitem__`). Every write is composed
//! from recorded ops (`scatter`, `index_add`, `where`), so autograd sees it as torch does; a
//! boolean mask with one value per true element is placed by a running count of the mask on the
//! device (no readback).

use crate::dtype::DType;
use crate::error::{BorchError, Result, index_err, not_impl};
use crate::layout::broadcast_shapes;
use crate::ops::creation;
use crate::ops::indexing::Index;
use crate::scalar::Operand;
use crate::tensor::Tensor;

fn isz(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

/// `value` as a tensor of `dtype` (a number becomes a 0-dim tensor).
fn value_tensor(value: Operand, dtype: DType) -> Result<Tensor> {
    match value {
        Operand::Scalar(s) => creation::full(&[], s, Some(dtype)),
        Operand::Tensor(v) => v.to_dtype(dtype),
    }
}

/// Integer index tensors (broadcast together) over the leading dims of `shape` as one linear
/// index of the flattened leading dims, negative entries wrapped; returns it and the broadcast
/// shape of the indices.
pub(crate) fn linear_index(shape: &[usize], indices: &[Tensor]) -> Result<(Tensor, Vec<usize>)> {
    if indices.len() > shape.len() {
        return index_err(format!(
            "too many indices for tensor of dimension {} (got {})",
            shape.len(),
            indices.len()
        ));
    }
    let mut b: Vec<usize> = Vec::new();
    for ix in indices {
        if ix.dtype() != DType::Int64 {
            return index_err("tensors used as indices must be long, int, byte or bool tensors");
        }
        b = broadcast_shapes(&b, ix.shape())?;
    }
    let mut lin = creation::zeros(&b, DType::Int64)?;
    for (k, ix) in indices.iter().enumerate() {
        let size = shape[k] as i64;
        let stride: i64 = shape[k + 1..indices.len()]
            .iter()
            .map(|&d| d as i64)
            .product();
        let wrapped = ix.add(&ix.lt(0)?.to_dtype(DType::Int64)?.mul(size)?)?;
        lin = lin.add(&wrapped.mul(stride)?)?;
    }
    Ok((lin, b))
}

impl Tensor {
    /// torch's `index_put(indices, values, accumulate)`: `self[indices] = values` (or `+=`) on
    /// a copy. Boolean index tensors are turned into integer ones, which reads them back.
    pub fn index_put(
        &self,
        indices: &[Tensor],
        values: Operand,
        accumulate: bool,
    ) -> Result<Tensor> {
        let mut ints = Vec::new();
        for ix in indices {
            if ix.dtype() == DType::Bool {
                ints.extend(crate::ops::nonzero::mask_indices(ix)?);
            } else {
                ints.push(ix.clone());
            }
        }
        let n = ints.len();
        let (lin, b) = linear_index(self.shape(), &ints)?;
        let rest = &self.shape()[n..];
        let lead: usize = self.shape()[..n].iter().product();
        let count: usize = b.iter().product();
        let mut target = [b.clone(), rest.to_vec()].concat();
        let values = value_tensor(values, self.dtype())?;
        // torch: the values broadcast to the indexed shape.
        broadcast_shapes(&target, values.shape()).and_then(|s| {
            if s == target {
                Ok(())
            } else {
                Err(BorchError::Runtime(format!(
                    "shape mismatch: value tensor of shape {} cannot be broadcast to indexing \
                     result of shape {}",
                    crate::layout::fmt_list(values.shape()),
                    crate::layout::fmt_list(&target)
                )))
            }
        })?;
        let values = values.expand(&isz(&target))?;
        target = [vec![count], rest.to_vec()].concat();
        let values = values.reshape(&isz(&target))?;
        let flat = self.reshape(&isz(&[vec![lead], rest.to_vec()].concat()))?;
        let lin = lin.reshape(&[-1])?;
        let out = if accumulate {
            flat.index_add(0, &lin, &values, 1.0)?
        } else {
            let mut ishape = vec![count as isize];
            ishape.extend(std::iter::repeat_n(1, rest.len()));
            let index = lin.reshape(&ishape)?.expand(&isz(&target))?;
            flat.scatter(0, &index, Operand::Tensor(values))?
        };
        out.reshape(&isz(self.shape()))
    }

    /// torch's `index_put_(indices, values, accumulate)`.
    pub fn index_put_(&self, indices: &[Tensor], values: Operand, accumulate: bool) -> Result<()> {
        let mut others: Vec<&Tensor> = indices.iter().collect();
        if let Operand::Tensor(v) = &values {
            others.push(v);
        }
        self.inplace_from(&others, |prev| {
            prev.index_put(indices, values.clone(), accumulate)
        })
    }
}

/// One subscript item turned into an index tensor over one dim of `t` (None for a new axis).
fn item_index(item: &Index, size: usize) -> Result<Option<Tensor>> {
    Ok(Some(match item {
        Index::Select(i) => {
            let s = size as isize;
            if *i < -s || *i >= s {
                return index_err(format!(
                    "index {i} is out of bounds for dimension with size {size}"
                ));
            }
            creation::full(&[], *i as i64, Some(DType::Int64))?
        }
        Index::Slice(start, stop, step) => {
            let step = step.unwrap_or(1);
            if step <= 0 {
                return Err(BorchError::Value("step must be greater than zero".into()));
            }
            let s = size as isize;
            let norm = |v: Option<isize>, d: isize| match v {
                None => d,
                Some(v) if v < 0 => (v + s).max(0),
                Some(v) => v.min(s),
            };
            let (a, b) = (norm(*start, 0), norm(*stop, s));
            let b = b.max(a);
            creation::arange(a as i64, b as i64, step as i64)?
        }
        Index::NewAxis => return Ok(None),
        Index::Ellipsis | Index::Tensor(_) => {
            return not_impl("internal: item_index of an ellipsis or tensor");
        }
    }))
}

/// Python's `t[items] = value` (torch's `__setitem__`), in place and recorded.
pub fn setitem(t: &Tensor, items: &[Index], value: Operand) -> Result<()> {
    // A boolean mask over the leading dims.
    if let [Index::Tensor(mask)] = items
        && mask.dtype() == DType::Bool
    {
        let mut others = vec![mask];
        if let Operand::Tensor(v) = &value {
            others.push(v);
        }
        return t.inplace_from(&others, |prev| mask_put(prev, mask, value.clone()));
    }
    // Integer index tensors over the leading dims, then full slices.
    let tensors: Vec<Tensor> = items
        .iter()
        .take_while(|i| matches!(i, Index::Tensor(_)))
        .filter_map(|i| match i {
            Index::Tensor(x) => Some(x.clone()),
            _ => None,
        })
        .collect();
    if !tensors.is_empty() {
        let tail_full = items[tensors.len()..].iter().all(|i| {
            matches!(
                i,
                Index::Ellipsis | Index::Slice(None, None, None | Some(1))
            )
        });
        if !tail_full {
            return not_impl(
                "t[idx] = v with index tensors mixed with other subscripts: borch assigns \
                 through index tensors over the leading dims (followed by ':' or '...') only",
            );
        }
        return t.index_put_(&tensors, value, false);
    }
    // Basic subscripts: each becomes an index tensor over its dim, as an open mesh.
    let ellipses = items
        .iter()
        .filter(|i| matches!(i, Index::Ellipsis))
        .count();
    if ellipses > 1 {
        return index_err("an index can only have a single ellipsis ('...')");
    }
    let consumed = items
        .iter()
        .filter(|i| !matches!(i, Index::NewAxis | Index::Ellipsis))
        .count();
    if consumed > t.dim() {
        return index_err(format!(
            "too many indices for tensor of dimension {}",
            t.dim()
        ));
    }
    let mut per_dim: Vec<Tensor> = Vec::new();
    let mut dim = 0usize;
    for item in items {
        if let Index::Ellipsis = item {
            for _ in 0..t.dim() - consumed {
                per_dim.push(creation::arange(0, t.shape()[dim] as i64, 1)?);
                dim += 1;
            }
            continue;
        }
        if let Some(ix) = item_index(item, t.shape().get(dim).copied().unwrap_or(0))? {
            per_dim.push(ix);
            dim += 1;
        }
    }
    while dim < t.dim() {
        per_dim.push(creation::arange(0, t.shape()[dim] as i64, 1)?);
        dim += 1;
    }
    // The sliced dims, in order, form the mesh; selected dims (0-dim indices) add none.
    let sliced: Vec<usize> = per_dim
        .iter()
        .enumerate()
        .filter(|(_, x)| x.dim() == 1)
        .map(|(i, _)| i)
        .collect();
    let mut mesh = Vec::new();
    for ix in &per_dim {
        if ix.dim() == 0 {
            mesh.push(ix.clone());
            continue;
        }
        let k = sliced.iter().position(|&s| mesh.len() == s).unwrap_or(0);
        let mut shape = vec![1isize; sliced.len()];
        shape[k] = -1;
        mesh.push(ix.reshape(&shape)?);
    }
    // torch drops the value's leading size-1 dims beyond the indexed result's rank.
    let value = match value {
        Operand::Tensor(v) if v.dim() > sliced.len() => {
            let extra = v.dim() - sliced.len();
            if v.shape()[..extra].iter().any(|&d| d != 1) {
                return Err(BorchError::Runtime(format!(
                    "shape mismatch: value tensor of shape {} cannot be broadcast to indexing \
                     result of shape {}",
                    crate::layout::fmt_list(v.shape()),
                    crate::layout::fmt_list(
                        &sliced
                            .iter()
                            .map(|&i| per_dim[i].numel())
                            .collect::<Vec<_>>()
                    )
                )));
            }
            Operand::Tensor(v.reshape(&isz(&v.shape()[extra..]))?)
        }
        other => other,
    };
    // torch copies into the view: its expand message when the value does not fit.
    if let Operand::Tensor(v) = &value {
        let target: Vec<usize> = sliced.iter().map(|&i| per_dim[i].numel()).collect();
        let off = target.len() - v.dim();
        for (k, &vd) in v.shape().iter().enumerate() {
            let want = target[off + k];
            if vd != want && vd != 1 {
                return Err(BorchError::Runtime(format!(
                    "The expanded size of the tensor ({want}) must match the existing size ({vd}) \
                     at non-singleton dimension {}.  Target sizes: {}.  Tensor sizes: {}",
                    off + k,
                    crate::layout::fmt_list(&target),
                    crate::layout::fmt_list(v.shape())
                )));
            }
        }
    }
    t.index_put_(&mesh, value, false)
}

/// `t[mask] = value` for a boolean mask over `t`'s leading dims: a value that broadcasts to
/// one element's shape fills every true position; one row per true element is placed in order.
fn mask_put(t: &Tensor, mask: &Tensor, value: Operand) -> Result<Tensor> {
    let k = mask.dim();
    if k > t.dim() || mask.shape() != &t.shape()[..k] {
        return index_err(format!(
            "The shape of the mask {} at index 0 does not match the shape of the indexed tensor {} at index 0",
            crate::layout::fmt_list(mask.shape()),
            crate::layout::fmt_list(t.shape())
        ));
    }
    let rest = &t.shape()[k..];
    let value = value_tensor(value, t.dtype())?;
    let mut mshape = isz(mask.shape());
    mshape.extend(std::iter::repeat_n(1, rest.len()));
    let m = mask.reshape(&mshape)?;
    let broadcasts =
        value.dim() <= rest.len() || (value.dim() == rest.len() + 1 && value.shape()[0] == 1);
    if broadcasts {
        let v = if value.dim() > rest.len() {
            value.reshape(&isz(&value.shape()[1..]))?
        } else {
            value
        };
        return crate::where_cond(&m, Operand::Tensor(v), Operand::Tensor(t.clone()));
    }
    if value.shape()[0] == 0 {
        return t.clone_contiguous();
    }
    let p: usize = mask.numel();
    let flat = mask.reshape(&[-1])?;
    let position = flat
        .to_dtype(DType::Int64)?
        .cumsum(0)?
        .sub(1)?
        .clamp_min(0)?;
    let rows = value.index_select(0, &position)?;
    let mut rshape = vec![p as isize];
    rshape.extend(isz(rest));
    let mut fshape = vec![p as isize];
    fshape.extend(std::iter::repeat_n(1, rest.len()));
    let out = crate::where_cond(
        &flat.reshape(&fshape)?,
        Operand::Tensor(rows.reshape(&rshape)?),
        Operand::Tensor(t.reshape(&rshape)?),
    )?;
    out.reshape(&isz(t.shape()))
}
