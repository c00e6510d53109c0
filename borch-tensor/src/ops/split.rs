//! Splitting a tensor into views: `split`, `split_with_sizes`, `chunk`, `unbind`. No data moves;
//! every piece shares the storage, as in torch.

use crate::error::{Result, index_err, runtime};
use crate::layout::{fmt_list, wrap_dim};
use crate::tensor::Tensor;

impl Tensor {
    /// torch's `split(split_size, dim)`: views of `split_size` along `dim`, the last one shorter
    /// when the size does not divide.
    pub fn split(&self, split_size: usize, dim: isize) -> Result<Vec<Tensor>> {
        if self.dim() == 0 {
            return runtime("split expects at least a 1-dimensional tensor");
        }
        let d = wrap_dim(dim, self.dim())?;
        let size = self.shape()[d];
        if split_size == 0 && size != 0 {
            return runtime(format!(
                "split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
            ));
        }
        let pieces = if split_size == 0 {
            1
        } else {
            size.div_ceil(split_size).max(1)
        };
        (0..pieces)
            .map(|i| {
                let start = i * split_size;
                self.narrow(d as isize, start as isize, split_size.min(size - start))
            })
            .collect()
    }

    /// torch's `split(split_sizes, dim)` with a list (`split_with_sizes`): views of the given
    /// sizes, which must add up to the size of `dim`.
    pub fn split_with_sizes(&self, split_sizes: &[usize], dim: isize) -> Result<Vec<Tensor>> {
        if self.dim() == 0 {
            return runtime("split expects at least a 1-dimensional tensor");
        }
        let d = wrap_dim(dim, self.dim())?;
        let size = self.shape()[d];
        if split_sizes.iter().sum::<usize>() != size {
            return runtime(format!(
                "split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's \
                 size at dimension {dim}), but got split_sizes={}",
                fmt_list(split_sizes)
            ));
        }
        let mut start = 0;
        split_sizes
            .iter()
            .map(|&len| {
                let piece = self.narrow(d as isize, start as isize, len);
                start += len;
                piece
            })
            .collect()
    }

    /// torch's `chunk(chunks, dim)`: at most `chunks` views of `ceil(size / chunks)` along `dim`.
    pub fn chunk(&self, chunks: usize, dim: isize) -> Result<Vec<Tensor>> {
        if self.dim() == 0 {
            return runtime("chunk expects at least a 1-dimensional tensor");
        }
        if chunks == 0 {
            return runtime("chunk expects `chunks` to be greater than 0, got: 0");
        }
        let d = wrap_dim(dim, self.dim())?;
        let size = self.shape()[d];
        if size == 0 {
            // `split` would give one piece; torch keeps the number of (empty) chunks.
            return self.split_with_sizes(&vec![0; chunks], dim);
        }
        self.split(size.div_ceil(chunks), dim)
    }

    /// torch's `unbind(dim)`: the views `select(dim, i)` for every `i`.
    pub fn unbind(&self, dim: isize) -> Result<Vec<Tensor>> {
        if self.dim() == 0 {
            let d = wrap_dim(dim, 0)?;
            return index_err(format!(
                "Dimension specified as {d} but tensor has no dimensions"
            ));
        }
        let d = wrap_dim(dim, self.dim())?;
        (0..self.shape()[d])
            .map(|i| self.select(d as isize, i as isize))
            .collect()
    }
}
