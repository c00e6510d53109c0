//! Ops whose output shape depends on the values: `nonzero`, `masked_select`, `t[mask]`, `unique`
//! and `repeat_interleave` with a repeats tensor. Each reads back what decides the shape (the
//! mask, the values, the repeats): `async` in the core (a browser awaits the read), with a
//! `_blocking` form on native targets. The values themselves are then gathered on the device by
//! recorded ops (`take`, `index_select`), so gradients flow as in torch.

use crate::dtype::DType;
use crate::error::{Result, index_err, runtime};
use crate::host::HostData;
use crate::layout::broadcast_shapes;
use crate::tensor::Tensor;

fn isz(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

fn truthy(h: &HostData) -> Vec<bool> {
    match h {
        HostData::F32(v) => v.iter().map(|&x| x != 0.0).collect(),
        HostData::I64(v) => v.iter().map(|&x| x != 0).collect(),
        HostData::Bool(v) => v.clone(),
    }
}

/// The row-major positions of the true elements.
fn positions(flags: &[bool]) -> Vec<i64> {
    flags
        .iter()
        .enumerate()
        .filter(|(_, f)| **f)
        .map(|(i, _)| i as i64)
        .collect()
}

fn long(values: Vec<i64>, shape: &[usize]) -> Result<Tensor> {
    Tensor::from_host(&HostData::I64(values), shape)
}

/// Coordinates of flat positions in `shape`: one row per position.
fn coordinates(flat: &[i64], shape: &[usize]) -> Vec<i64> {
    let mut out = Vec::with_capacity(flat.len() * shape.len());
    for &p in flat {
        let mut rem = p as usize;
        let mut row = vec![0i64; shape.len()];
        for d in (0..shape.len()).rev() {
            row[d] = (rem % shape[d].max(1)) as i64;
            rem /= shape[d].max(1);
        }
        out.extend(row);
    }
    out
}

impl Tensor {
    /// torch's `nonzero()`: the indices of the nonzero elements, one row each, `[n, dim]` int64.
    pub async fn nonzero(&self) -> Result<Tensor> {
        let flags = truthy(&self.to_host().await?);
        let flat = positions(&flags);
        let n = flat.len();
        long(coordinates(&flat, self.shape()), &[n, self.dim()])
    }

    /// torch's `nonzero(as_tuple=True)`: one 1-D index tensor per dim.
    pub async fn nonzero_tuple(&self) -> Result<Vec<Tensor>> {
        let flags = truthy(&self.to_host().await?);
        let flat = positions(&flags);
        let coords = coordinates(&flat, self.shape());
        let k = self.dim().max(1);
        if self.dim() == 0 {
            return Ok(vec![long(vec![0; flat.len()], &[flat.len()])?]);
        }
        (0..k)
            .map(|d| {
                let col = coords.iter().skip(d).step_by(k).copied().collect();
                long(col, &[flat.len()])
            })
            .collect()
    }

    /// torch's `masked_select(mask)`: the elements where `mask` (broadcast with `self`) is true,
    /// as a 1-D tensor.
    pub async fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        if mask.dtype() != DType::Bool {
            return runtime("masked_select: expected BoolTensor for mask");
        }
        let b = broadcast_shapes(self.shape(), mask.shape())?;
        let flags = truthy(&mask.expand(&isz(&b))?.to_host().await?);
        let flat = positions(&flags);
        let n = flat.len();
        self.expand(&isz(&b))?.take(&long(flat, &[n])?)
    }

    /// Python's `t[mask]` for a boolean mask over the leading dims: the selected elements (or
    /// rows), `[count, rest…]`.
    pub async fn mask_index(&self, mask: &Tensor) -> Result<Tensor> {
        let k = mask.dim();
        if k > self.dim() || mask.shape() != &self.shape()[..k] {
            return index_err(format!(
                "The shape of the mask {} at index 0 does not match the shape of the indexed \
                 tensor {} at index 0",
                crate::layout::fmt_list(mask.shape()),
                crate::layout::fmt_list(self.shape())
            ));
        }
        let flat = positions(&truthy(&mask.to_host().await?));
        let n = flat.len();
        let lead: usize = mask.numel();
        let mut rows = vec![lead as isize];
        rows.extend(isz(&self.shape()[k..]));
        self.reshape(&rows)?.index_select(0, &long(flat, &[n])?)
    }

    /// torch's `unique(sorted, return_inverse, return_counts)` over every element (dim=None):
    /// the distinct values in ascending order, and optionally each element's position among
    /// them (the input's shape) and each value's count.
    pub async fn unique(
        &self,
        return_inverse: bool,
        return_counts: bool,
    ) -> Result<(Tensor, Option<Tensor>, Option<Tensor>)> {
        let values = self.to_host().await?.to_f64();
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        let mut distinct: Vec<f64> = Vec::new();
        let mut counts: Vec<i64> = Vec::new();
        let mut inverse = vec![0i64; values.len()];
        for &i in &order {
            if distinct.last() != Some(&values[i]) {
                distinct.push(values[i]);
                counts.push(0);
            }
            *counts.last_mut().unwrap_or(&mut 0) += 1;
            inverse[i] = distinct.len() as i64 - 1;
        }
        let n = distinct.len();
        let out = match self.dtype() {
            DType::Float32 => HostData::F32(distinct.iter().map(|&x| x as f32).collect()),
            DType::Int64 => HostData::I64(distinct.iter().map(|&x| x as i64).collect()),
            DType::Bool => HostData::Bool(distinct.iter().map(|&x| x != 0.0).collect()),
        };
        let out = Tensor::from_host(&out, &[n])?;
        let inverse = return_inverse
            .then(|| long(inverse, self.shape()))
            .transpose()?;
        let counts = return_counts.then(|| long(counts, &[n])).transpose()?;
        Ok((out, inverse, counts))
    }

    /// torch's `repeat_interleave(repeats, dim)` with a repeats tensor (one count per slice, or
    /// one for all): the counts are read back to size the result.
    pub async fn repeat_interleave_tensor(
        &self,
        repeats: &Tensor,
        dim: Option<isize>,
    ) -> Result<Tensor> {
        if repeats.dtype() != DType::Int64 {
            return runtime("repeat_interleave only accept 1D vector as repeat");
        }
        if repeats.dim() > 1 {
            return runtime("repeats must be 0-dim or 1-dim tensor");
        }
        let (input, d) = match dim {
            None => (self.reshape(&[-1])?, 0),
            Some(d) => (self.clone(), crate::layout::wrap_dim(d, self.dim().max(1))?),
        };
        let size = if input.dim() == 0 {
            1
        } else {
            input.shape()[d]
        };
        let mut counts = repeats.to_vec::<i64>().await?;
        if counts.len() == 1 {
            counts = vec![counts[0]; size];
        }
        if counts.len() != size {
            return runtime(format!(
                "repeats must have the same size as input along dim, but got repeats.size(0) = \
                 {} and input.size({d}) = {size}",
                counts.len()
            ));
        }
        if counts.iter().any(|&c| c < 0) {
            return runtime("repeats can not be negative");
        }
        let index: Vec<i64> = counts
            .iter()
            .enumerate()
            .flat_map(|(i, &c)| std::iter::repeat_n(i as i64, c as usize))
            .collect();
        let n = index.len();
        input.index_select(d as isize, &long(index, &[n])?)
    }
}

/// A boolean mask as integer index tensors, one per dim (for `index_put` with a mask).
pub(crate) fn mask_indices(mask: &Tensor) -> Result<Vec<Tensor>> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        mask.nonzero_tuple_blocking()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = mask;
        crate::error::not_impl(
            "index_put with a boolean mask reads the mask back, which borch cannot do inside a \
             synchronous call in a browser: use t[mask] = v or masked_scatter",
        )
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Tensor {
    /// `nonzero`, blocking (native targets).
    pub fn nonzero_blocking(&self) -> Result<Tensor> {
        pollster::block_on(self.nonzero())
    }
    /// `nonzero(as_tuple=True)`, blocking.
    pub fn nonzero_tuple_blocking(&self) -> Result<Vec<Tensor>> {
        pollster::block_on(self.nonzero_tuple())
    }
    /// `masked_select`, blocking.
    pub fn masked_select_blocking(&self, mask: &Tensor) -> Result<Tensor> {
        pollster::block_on(self.masked_select(mask))
    }
    /// `t[mask]`, blocking.
    pub fn mask_index_blocking(&self, mask: &Tensor) -> Result<Tensor> {
        pollster::block_on(self.mask_index(mask))
    }
    /// `unique`, blocking.
    pub fn unique_blocking(
        &self,
        return_inverse: bool,
        return_counts: bool,
    ) -> Result<(Tensor, Option<Tensor>, Option<Tensor>)> {
        pollster::block_on(self.unique(return_inverse, return_counts))
    }
    /// `repeat_interleave` with a repeats tensor, blocking.
    pub fn repeat_interleave_tensor_blocking(
        &self,
        repeats: &Tensor,
        dim: Option<isize>,
    ) -> Result<Tensor> {
        pollster::block_on(self.repeat_interleave_tensor(repeats, dim))
    }
}
