//! Moving elements around without computing: `flip`, `roll`, `repeat`, `tile`. Each is one or a
//! few strided copies (the map kernel) from a view of the input into a new tensor.

use crate::autograd::{Op, ShapeOp, record};
use crate::error::{Result, index_err, runtime};
use crate::layout::{Layout, wrap_dim, wrap_dims};
use crate::scalar::Operand;
use crate::tensor::Tensor;

impl Tensor {
    /// torch's `flip(dims)`: a copy with the order of elements reversed along each of `dims`.
    pub fn flip(&self, dims: &[isize]) -> Result<Tensor> {
        let dims = wrap_dims(dims, self.dim())?;
        if self.dim() == 0 {
            return self.clone_contiguous();
        }
        let out = self
            .with_layout(self.flipped_layout(&dims))
            .clone_contiguous()?;
        Ok(self.recorded_from(ShapeOp::Flip { dims }, out))
    }

    /// torch's `roll(shifts, dims)`: elements shifted along each dim, wrapping around. With no
    /// dims the tensor is rolled as if flattened (then `shifts` must have one entry).
    pub fn roll(&self, shifts: &[isize], dims: &[isize]) -> Result<Tensor> {
        if shifts.is_empty() {
            return runtime("`shifts` required");
        }
        let x = self.detach();
        let (mut out, wrapped) = if dims.is_empty() && shifts.len() == 1 {
            let flat = x.flatten(0, -1)?;
            (
                roll_dim(&flat, shifts[0], 0)?.view_as_shape(self.shape())?,
                vec![],
            )
        } else {
            x.roll_dims(shifts, dims)?
        };
        if out.shares_storage(self) {
            out = out.clone_contiguous()?;
        }
        let op = ShapeOp::Roll {
            shifts: shifts.to_vec(),
            dims: wrapped,
        };
        Ok(self.recorded_from(op, out))
    }

    /// Rolls along each of `dims`, with the dims wrapped.
    fn roll_dims(&self, shifts: &[isize], dims: &[isize]) -> Result<(Tensor, Vec<usize>)> {
        if shifts.len() != dims.len() {
            return runtime(format!(
                "shifts and dimensions must align. shifts: {}, dims:{}",
                shifts.len(),
                dims.len()
            ));
        }
        if self.dim() == 0 {
            let d = wrap_dim(dims[0], 0)?;
            return index_err(format!(
                "Dimension specified as {d} but tensor has no dimensions"
            ));
        }
        let wrapped = dims
            .iter()
            .map(|&d| wrap_dim(d, self.dim()))
            .collect::<Result<Vec<_>>>()?;
        let mut out = self.clone();
        for (&shift, &dim) in shifts.iter().zip(&wrapped) {
            out = roll_dim(&out, shift, dim)?;
        }
        Ok((out, wrapped))
    }

    /// torch's `repeat(*sizes)`: the tensor tiled `sizes[i]` times along dim `i` (leading new
    /// dims when `sizes` is longer than `dim()`).
    pub fn repeat(&self, sizes: &[usize]) -> Result<Tensor> {
        if sizes.len() < self.dim() {
            return runtime(
                "Number of dimensions of repeat dims can not be smaller than number of \
                 dimensions of tensor",
            );
        }
        let extra = sizes.len() - self.dim();
        let l = self.layout();
        // Each dim i becomes a pair (repeat r_i with stride 0, size s_i with its own stride), so
        // one strided copy into a contiguous tensor of the paired shape writes every repeat.
        let mut paired = Layout {
            shape: Vec::with_capacity(2 * sizes.len()),
            strides: Vec::with_capacity(2 * sizes.len()),
            offset: l.offset,
        };
        let mut shape = Vec::with_capacity(sizes.len());
        for (i, &r) in sizes.iter().enumerate() {
            let (s, st) = if i < extra {
                (1, 0)
            } else {
                (l.shape[i - extra], l.strides[i - extra])
            };
            paired.shape.extend([r, s]);
            paired.strides.extend([0, st]);
            shape.push(r.saturating_mul(s));
        }
        let out = Tensor::uninit(self.device(), &paired.shape, self.dtype())?;
        out.copy_(&self.with_layout(paired))?;
        let out = out.view_as_shape(&shape)?;
        let sizes = sizes.to_vec();
        Ok(self.recorded_from(ShapeOp::Repeat { sizes }, out))
    }

    /// `out`, a new tensor computed from `self` alone, recorded for autograd as `op`.
    fn recorded_from(&self, op: ShapeOp, out: Tensor) -> Tensor {
        record(Op::Shape(op), &[Operand::Tensor(self.clone())], out)
    }

    /// torch's `tile(dims)`: `repeat`, with `dims` padded by leading 1s to `dim()` entries.
    pub fn tile(&self, dims: &[usize]) -> Result<Tensor> {
        if dims.len() >= self.dim() {
            return self.repeat(dims);
        }
        let mut sizes = vec![1; self.dim() - dims.len()];
        sizes.extend_from_slice(dims);
        self.repeat(&sizes)
    }
}

/// One roll along dim `d`: two slice copies into a new tensor (or `x` itself when nothing moves).
fn roll_dim(x: &Tensor, shift: isize, d: usize) -> Result<Tensor> {
    let n = x.shape()[d];
    if n == 0 || x.numel() == 0 {
        return Ok(x.clone());
    }
    let s = shift.rem_euclid(n as isize) as usize;
    if s == 0 {
        return Ok(x.clone());
    }
    let out = Tensor::uninit(x.device(), x.shape(), x.dtype())?;
    let di = d as isize;
    out.narrow(di, s as isize, n - s)?
        .copy_(&x.narrow(di, 0, n - s)?)?;
    out.narrow(di, 0, s)?
        .copy_(&x.narrow(di, (n - s) as isize, s)?)?;
    Ok(out)
}
