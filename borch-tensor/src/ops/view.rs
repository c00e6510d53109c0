//! Views: new layouts over the same storage, as torch returns them, without copying.

use crate::autograd::{Op, ViewOp, record};
use crate::error::{BorchError, Result, index_err, runtime};
use crate::layout::{Layout, fmt_list, numel, wrap_dim, wrap_dims};
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// Resolve one `-1` in a requested shape against `n` elements.
pub(crate) fn infer_shape(shape: &[isize], n: usize) -> Result<Vec<usize>> {
    let mut infer = None;
    let mut known = 1u128;
    for (i, &d) in shape.iter().enumerate() {
        if d == -1 {
            if infer.is_some() {
                return runtime("only one dimension can be inferred");
            }
            infer = Some(i);
        } else if d < 0 {
            return runtime(format!("invalid shape dimension {d}"));
        } else {
            known = known.saturating_mul(d as u128);
        }
    }
    let show = || {
        let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        format!("[{}]", parts.join(", "))
    };
    let mut out: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    match infer {
        Some(i) => {
            if known == 0 || !(n as u128).is_multiple_of(known) {
                return runtime(format!(
                    "shape '{}' is invalid for input of size {n}",
                    show()
                ));
            }
            out[i] = (n as u128 / known) as usize;
        }
        None if known != n as u128 => {
            return runtime(format!(
                "shape '{}' is invalid for input of size {n}",
                show()
            ));
        }
        None => {}
    }
    Ok(out)
}

/// torch's `computeStride`: strides that view `old` as `new_shape`, if any exist.
fn view_strides(old: &Layout, new_shape: &[usize]) -> Option<Vec<isize>> {
    if old.numel() == 0 || old.rank() == 0 {
        return Some(crate::layout::contiguous_strides(new_shape));
    }
    let mut new_strides = vec![0isize; new_shape.len()];
    let mut view_d = new_shape.len() as isize - 1;
    let mut chunk_base_stride = *old.strides.last().unwrap_or(&1);
    let mut tensor_numel = 1usize;
    let mut view_numel = 1usize;
    for tensor_d in (0..old.rank()).rev() {
        tensor_numel *= old.shape[tensor_d];
        if tensor_d == 0
            || (old.shape[tensor_d - 1] != 1
                && old.strides[tensor_d - 1] != tensor_numel as isize * chunk_base_stride)
        {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel as isize * chunk_base_stride;
                view_numel *= new_shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old.strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

impl Tensor {
    /// A view of this tensor with `layout`, recorded for autograd as `op`.
    fn view_of(&self, layout: Layout, op: ViewOp) -> Tensor {
        let out = self.with_layout(layout);
        record(Op::View(op), &[Operand::Tensor(self.clone())], out)
    }

    /// torch's `view(*shape)`: the same storage with a new shape; one dim may be -1.
    pub fn view(&self, shape: &[isize]) -> Result<Tensor> {
        let new_shape = infer_shape(shape, self.numel())?;
        let strides = view_strides(self.layout(), &new_shape).ok_or_else(|| {
            BorchError::Runtime(
                "view size is not compatible with input tensor's size and stride (at least one \
                 dimension spans across two contiguous subspaces). Use .reshape(...) instead."
                    .into(),
            )
        })?;
        Ok(self.view_of(
            Layout {
                shape: new_shape,
                strides,
                offset: self.storage_offset(),
            },
            ViewOp::Reshape,
        ))
    }

    /// torch's `reshape(*shape)`: a view when possible, else a copy.
    pub fn reshape(&self, shape: &[isize]) -> Result<Tensor> {
        let new_shape = infer_shape(shape, self.numel())?;
        match view_strides(self.layout(), &new_shape) {
            Some(strides) => Ok(self.view_of(
                Layout {
                    shape: new_shape,
                    strides,
                    offset: self.storage_offset(),
                },
                ViewOp::Reshape,
            )),
            None => self.clone_contiguous()?.view(shape),
        }
    }

    /// `view` with unsigned sizes.
    pub fn view_as_shape(&self, shape: &[usize]) -> Result<Tensor> {
        let s: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
        self.reshape(&s)
    }

    /// torch's `permute(*dims)`.
    pub fn permute(&self, dims: &[isize]) -> Result<Tensor> {
        if dims.len() != self.dim() {
            return runtime(format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match \
                 the length of the desired ordering of dimensions i.e. input.dim() = {} is not \
                 equal to len(dims) = {}",
                self.dim(),
                dims.len()
            ));
        }
        let dims = wrap_dims(dims, self.dim()).map_err(|e| match e {
            BorchError::Runtime(_) => {
                BorchError::Runtime("permute(): duplicate dims are not allowed.".into())
            }
            other => other,
        })?;
        let l = self.layout();
        let layout = Layout {
            shape: dims.iter().map(|&d| l.shape[d]).collect(),
            strides: dims.iter().map(|&d| l.strides[d]).collect(),
            offset: l.offset,
        };
        Ok(self.view_of(layout, ViewOp::Permute(dims)))
    }

    /// torch's `transpose(dim0, dim1)`.
    pub fn transpose(&self, dim0: isize, dim1: isize) -> Result<Tensor> {
        let rank = self.dim();
        if rank == 0 {
            wrap_dim(dim0, 0)?;
            wrap_dim(dim1, 0)?;
            return Ok(self.clone());
        }
        let (a, b) = (wrap_dim(dim0, rank)?, wrap_dim(dim1, rank)?);
        let mut l = self.layout().clone();
        l.shape.swap(a, b);
        l.strides.swap(a, b);
        let mut perm: Vec<usize> = (0..rank).collect();
        perm.swap(a, b);
        Ok(self.view_of(l, ViewOp::Permute(perm)))
    }

    /// torch's `t()` for tensors of at most two dims.
    pub fn t(&self) -> Result<Tensor> {
        if self.dim() > 2 {
            return runtime(format!(
                "t() expects a tensor with <= 2 dimensions, but self is {}D",
                self.dim()
            ));
        }
        if self.dim() < 2 {
            return Ok(self.clone());
        }
        self.transpose(0, 1)
    }

    /// torch's `mT`: the last two dims swapped.
    pub fn mt(&self) -> Result<Tensor> {
        if self.dim() < 2 {
            return runtime(format!(
                "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                self.dim()
            ));
        }
        self.transpose(-2, -1)
    }

    /// torch's `expand(*sizes)`; -1 keeps a dim.
    pub fn expand(&self, sizes: &[isize]) -> Result<Tensor> {
        if sizes.len() < self.dim() {
            return runtime(format!(
                "expand(torch.FloatTensor{{{}}}, size=[{}]): the number of sizes provided ({}) \
                 must be greater or equal to the number of dimensions in the tensor ({})",
                fmt_list(self.shape()),
                sizes
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                sizes.len(),
                self.dim()
            ));
        }
        let extra = sizes.len() - self.dim();
        let mut shape = Vec::with_capacity(sizes.len());
        for (i, &s) in sizes.iter().enumerate() {
            if s == -1 {
                if i < extra {
                    return runtime(format!(
                        "The expanded size of the tensor (-1) isn't allowed in a leading, \
                         non-existing dimension {i}"
                    ));
                }
                shape.push(self.shape()[i - extra]);
            } else if s < 0 {
                return runtime(format!("invalid shape dimension {s}"));
            } else {
                shape.push(s as usize);
            }
        }
        Ok(self.view_of(self.layout().broadcast_to(&shape)?, ViewOp::Expand))
    }

    /// torch's `expand_as(other)`.
    pub fn expand_as(&self, other: &Tensor) -> Result<Tensor> {
        Ok(self.view_of(self.layout().broadcast_to(other.shape())?, ViewOp::Expand))
    }

    /// torch's `broadcast_to(shape)`.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        Ok(self.view_of(self.layout().broadcast_to(shape)?, ViewOp::Expand))
    }

    /// torch's `squeeze()`: every size-1 dim removed.
    pub fn squeeze(&self) -> Result<Tensor> {
        let dims: Vec<usize> = (0..self.dim()).filter(|&d| self.shape()[d] == 1).collect();
        Ok(self.drop_unit_dims(&dims))
    }

    /// torch's `squeeze(dim)` or `squeeze(dims)`: the listed dims removed if they have size 1.
    pub fn squeeze_dims(&self, dims: &[isize]) -> Result<Tensor> {
        let dims = wrap_dims(dims, self.dim())?;
        let keep: Vec<usize> = dims
            .into_iter()
            .filter(|&d| self.dim() > 0 && self.shape()[d] == 1)
            .collect();
        Ok(self.drop_unit_dims(&keep))
    }

    fn drop_unit_dims(&self, dims: &[usize]) -> Tensor {
        let l = self.layout();
        let mut out = Layout {
            shape: vec![],
            strides: vec![],
            offset: l.offset,
        };
        for d in 0..l.rank() {
            if !dims.contains(&d) {
                out.shape.push(l.shape[d]);
                out.strides.push(l.strides[d]);
            }
        }
        self.view_of(out, ViewOp::Reshape)
    }

    /// torch's `unsqueeze(dim)`, dim in `[-dim()-1, dim()]`.
    pub fn unsqueeze(&self, dim: isize) -> Result<Tensor> {
        let rank = self.dim();
        let d = wrap_dim(dim, rank + 1)?;
        let mut l = self.layout().clone();
        let stride = if d < rank {
            l.strides[d] * l.shape[d] as isize
        } else {
            1
        };
        l.shape.insert(d, 1);
        l.strides.insert(d, stride);
        Ok(self.view_of(l, ViewOp::Reshape))
    }

    /// torch's `narrow(dim, start, length)`.
    pub fn narrow(&self, dim: isize, start: isize, length: usize) -> Result<Tensor> {
        if self.dim() == 0 {
            return runtime("narrow() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, self.dim())?;
        let size = self.shape()[d] as isize;
        if start < -size || start > size {
            return index_err(format!(
                "start out of range (expected to be in range of [{}, {size}], but got {start})",
                -size
            ));
        }
        let start = if start < 0 { start + size } else { start };
        if start as i64 + length as i64 > size as i64 {
            return runtime(format!(
                "start ({start}) + length ({length}) exceeds dimension size ({size})."
            ));
        }
        self.slice(dim, Some(start), Some(start + length as isize), 1)
    }

    /// Python slicing `[start:end:step]` along `dim` (torch's `slice`), clamped like Python.
    pub fn slice(
        &self,
        dim: isize,
        start: Option<isize>,
        end: Option<isize>,
        step: isize,
    ) -> Result<Tensor> {
        if self.dim() == 0 {
            return index_err("slice() cannot be applied to a 0-dim tensor.");
        }
        if step <= 0 {
            return Err(BorchError::Value("step must be greater than zero".into()));
        }
        let d = wrap_dim(dim, self.dim())?;
        let size = self.shape()[d] as isize;
        let clampi = |v: isize| {
            if v < 0 {
                (v + size).max(0)
            } else {
                v.min(size)
            }
        };
        let s = clampi(start.unwrap_or(0));
        let e = clampi(end.unwrap_or(size)).max(s);
        let mut l = self.layout().clone();
        l.offset = (l.offset as isize + s * l.strides[d]) as usize;
        l.shape[d] = ((e - s) as usize).div_ceil(step as usize);
        l.strides[d] *= step;
        Ok(self.view_of(
            l,
            ViewOp::Slice {
                dim: d,
                start: s as usize,
                step: step as usize,
            },
        ))
    }

    /// torch's `select(dim, index)`: the dim removed at `index`.
    pub fn select(&self, dim: isize, index: isize) -> Result<Tensor> {
        if self.dim() == 0 {
            return index_err("select() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, self.dim())?;
        let size = self.shape()[d] as isize;
        if index < -size || index >= size {
            return index_err(format!(
                "select(): index {index} out of range for tensor of size {} at dimension {d}",
                fmt_list(self.shape())
            ));
        }
        let i = if index < 0 { index + size } else { index };
        let mut l = self.layout().clone();
        l.offset = (l.offset as isize + i * l.strides[d]) as usize;
        l.shape.remove(d);
        l.strides.remove(d);
        Ok(self.view_of(
            l,
            ViewOp::Select {
                dim: d,
                index: i as usize,
            },
        ))
    }

    /// torch's `flatten(start_dim, end_dim)`.
    pub fn flatten(&self, start_dim: isize, end_dim: isize) -> Result<Tensor> {
        if self.dim() == 0 {
            return self.reshape(&[1]);
        }
        let (s, e) = (
            wrap_dim(start_dim, self.dim())?,
            wrap_dim(end_dim, self.dim())?,
        );
        if s > e {
            return runtime("flatten() has invalid args: start_dim cannot come after end_dim");
        }
        let mut shape: Vec<isize> = self.shape()[..s].iter().map(|&d| d as isize).collect();
        shape.push(numel(&self.shape()[s..=e]) as isize);
        shape.extend(self.shape()[e + 1..].iter().map(|&d| d as isize));
        self.reshape(&shape)
    }

    /// torch's `unflatten(dim, sizes)`.
    pub fn unflatten(&self, dim: isize, sizes: &[isize]) -> Result<Tensor> {
        crate::layout::no_dims_check(self.dim(), dim)?;
        let d = wrap_dim(dim, self.dim())?;
        let inner = infer_shape(sizes, self.shape()[d]).map_err(|_| {
            BorchError::Runtime(format!(
                "unflatten: Provided sizes [{}] don't multiply up to the size of dim {dim} ({}) in the input tensor",
                sizes.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "),
                self.shape()[d]
            ))
        })?;
        let mut shape: Vec<isize> = self.shape()[..d].iter().map(|&x| x as isize).collect();
        shape.extend(inner.iter().map(|&x| x as isize));
        shape.extend(self.shape()[d + 1..].iter().map(|&x| x as isize));
        self.view(&shape)
    }

    /// A flipped layout (negative strides); only copy kernels read it.
    #[allow(dead_code)]
    pub(crate) fn flipped_layout(&self, dims: &[usize]) -> Layout {
        let mut l = self.layout().clone();
        for &d in dims {
            if l.shape[d] > 0 {
                l.offset = (l.offset as isize + (l.shape[d] as isize - 1) * l.strides[d]) as usize;
                l.strides[d] = -l.strides[d];
            }
        }
        l
    }
}
