use crate::error::{Result, index_err, runtime};

/// Where a tensor's elements sit in its storage: shape, strides (in elements) and offset.
/// Strides may be negative internally (a flipped view read by a copy kernel) but never escape
/// as a user-visible view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The size of each dim.
    pub shape: Vec<usize>,
    /// Elements between neighbours along each dim.
    pub strides: Vec<isize>,
    /// The first element's index in the storage.
    pub offset: usize,
}

/// Row-major strides for `shape` (a size-0 dim counts as 1, as in torch).
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for (s, &n) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc *= n.max(1) as isize;
    }
    strides
}

/// The number of elements of `shape`.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

impl Layout {
    /// A row-major layout of `shape` at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// The number of elements.
    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }

    /// The number of dims.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Row-major contiguous, ignoring the strides of size-1 dims (as torch does).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1isize;
        for (&n, &s) in self.shape.iter().zip(&self.strides).rev() {
            if n != 1 && s != expected {
                return false;
            }
            expected *= n as isize;
        }
        true
    }

    /// This layout seen with `shape`, by torch's broadcasting (size-1 and missing dims stride 0).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        let extra = shape.len().checked_sub(self.rank()).ok_or_else(|| {
            crate::BorchError::Runtime(format!(
                "The expanded size of the tensor ({}) must match the existing size ({}) at \
                 non-singleton dimension 0.  Target sizes: {:?}.  Tensor sizes: {:?}",
                shape.len(),
                self.rank(),
                shape,
                self.shape
            ))
        })?;
        let mut strides = vec![0isize; shape.len()];
        for (i, (&n, &s)) in self.shape.iter().zip(&self.strides).enumerate().rev() {
            let target = shape[extra + i];
            if n == target {
                strides[extra + i] = if n == 1 { 0 } else { s };
            } else if n == 1 {
                strides[extra + i] = 0;
            } else {
                return runtime(format!(
                    "The expanded size of the tensor ({target}) must match the existing size \
                     ({n}) at non-singleton dimension {}.  Target sizes: {}.  Tensor sizes: {}",
                    extra + i,
                    fmt_list(shape),
                    fmt_list(&self.shape)
                ));
            }
        }
        crate::size::view_numel("expand", shape)?;
        Ok(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }
}

pub(crate) fn fmt_list(xs: &[usize]) -> String {
    let inner: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    format!("[{}]", inner.join(", "))
}

/// torch's `Size` printed as `torch.Size([2, 3])`.
pub fn fmt_size(shape: &[usize]) -> String {
    format!("torch.Size({})", fmt_list(shape))
}

/// The broadcast shape of two shapes, with torch's message when they do not fit.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for i in (0..rank).rev() {
        let da = if i + a.len() >= rank {
            a[i + a.len() - rank]
        } else {
            1
        };
        let db = if i + b.len() >= rank {
            b[i + b.len() - rank]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return runtime(format!(
                "The size of tensor a ({da}) must match the size of tensor b ({db}) at \
                 non-singleton dimension {i}"
            ));
        };
    }
    Ok(out)
}

/// Wrap a possibly negative `dim` into `0..rank` (a 0-d tensor accepts -1 and 0), with torch's
/// IndexError message otherwise.
pub fn wrap_dim(dim: isize, rank: usize) -> Result<usize> {
    let r = rank.max(1) as isize;
    if dim < -r || dim >= r {
        return index_err(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -r,
            r - 1
        ));
    }
    Ok(if dim < 0 {
        (dim + r) as usize
    } else {
        dim as usize
    })
}

/// torch's IndexError for a dim of a 0-d tensor where the op needs a real dim (`size(-1)`).
pub fn no_dims_check(rank: usize, dim: isize) -> Result<()> {
    if rank == 0 {
        return index_err(format!(
            "Dimension specified as {dim} but tensor has no dimensions"
        ));
    }
    Ok(())
}

/// Wrap a list of dims, refusing repeats as torch does.
pub fn wrap_dims(dims: &[isize], rank: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let w = wrap_dim(d, rank)?;
        if out.contains(&w) {
            return runtime(format!(
                "dim {w} appears multiple times in the list of dims"
            ));
        }
        out.push(w);
    }
    Ok(out)
}
