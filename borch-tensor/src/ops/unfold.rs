//! Sliding windows over planes, the primitive under convolution and pooling: `im2col` lays
//! every window of a batch of planes out as a column, `col2im` adds columns back into planes.
//! Each is the other's derivative, so convolution (`im2col` then a matmul) and pooling
//! (`im2col` then a reduction) need no derivatives of their own.

use crate::autograd::{Op, ShapeOp, record};
use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::unfold;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// The geometry of a 2-D sliding window: input and output plane sizes, and the window's size,
/// step, zero padding before the first row and column, and spacing of its taps (all `[h, w]`).
/// Windows may reach past the padded input (pooling's `ceil_mode`, `padding='same'`): positions
/// outside the input read the pad value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window2d {
    pub input: [usize; 2],
    pub output: [usize; 2],
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
}

impl Window2d {
    /// Taps per window (`kh * kw`).
    pub fn taps(&self) -> usize {
        self.kernel[0] * self.kernel[1]
    }

    /// Windows per plane (`OH * OW`).
    pub fn windows(&self) -> usize {
        self.output[0] * self.output[1]
    }

    /// The extent of one window with its dilation, per dim: `d * (k - 1) + 1`.
    pub fn span(&self, i: usize) -> usize {
        self.dilation[i] * (self.kernel[i] - 1) + 1
    }
}

fn check_float(t: &Tensor, name: &str) -> Result<()> {
    if t.dtype() != DType::Float32 {
        return runtime(format!(
            "{name}: borch computes windows of float32 tensors only, not {}",
            t.dtype().name()
        ));
    }
    Ok(())
}

impl Tensor {
    /// Every window of the planes `(B, H, W)` as the columns of `(B, kh * kw, OH * OW)`
    /// (torch's `unfold` with the channels in `B`); positions outside the input read
    /// `pad_value` (0 for convolution, -inf for max pooling). Float32 only.
    pub fn im2col(&self, window: &Window2d, pad_value: f32) -> Result<Tensor> {
        check_float(self, "im2col")?;
        if self.dim() != 3 || self.shape()[1..] != window.input {
            return runtime(format!(
                "im2col: expected planes of size {:?}, got {:?}",
                window.input,
                self.shape()
            ));
        }
        let out = unfold::im2col(&self.detach().contiguous()?, window, pad_value)?;
        let op = Op::Shape(ShapeOp::Im2col { window: *window });
        Ok(record(op, &[Operand::Tensor(self.clone())], out))
    }

    /// The columns `(B, kh * kw, OH * OW)` summed back into planes `(B, H, W)` where their
    /// windows lie (torch's `fold`; taps outside the input are dropped). Float32 only.
    pub fn col2im(&self, window: &Window2d) -> Result<Tensor> {
        check_float(self, "col2im")?;
        let want = [
            self.shape().first().copied().unwrap_or(0),
            window.taps(),
            window.windows(),
        ];
        if self.shape() != want {
            return runtime(format!(
                "col2im: expected columns of size {want:?}, got {:?}",
                self.shape()
            ));
        }
        let out = unfold::col2im(&self.detach().contiguous()?, window)?;
        let op = Op::Shape(ShapeOp::Col2im { window: *window });
        Ok(record(op, &[Operand::Tensor(self.clone())], out))
    }
}

/// The most rows of `bytes_per_row` bytes that one buffer of `device` may hold (at least 1):
/// `im2col`'s columns are `kh * kw` times the input, so convolution and pooling run a large
/// batch in chunks that fit.
pub(crate) fn rows_per_buffer(device: &borch_device::Device, bytes_per_row: u64) -> usize {
    (device.max_buffer_bytes() / bytes_per_row.max(1)).max(1) as usize
}

/// `f` on `x` when it has at most `rows` rows (dim 0), else on chunks of `rows` rows, each of
/// `f`'s outputs concatenated along dim 0 (differentiably).
pub(crate) fn in_chunks(
    x: &Tensor,
    rows: usize,
    f: impl Fn(&Tensor) -> Result<Vec<Tensor>>,
) -> Result<Vec<Tensor>> {
    let n = x.shape()[0];
    if n <= rows {
        return f(x);
    }
    let mut parts: Vec<Vec<Tensor>> = Vec::new();
    for start in (0..n).step_by(rows) {
        let outputs = f(&x.narrow(0, start as isize, rows.min(n - start))?)?;
        parts.resize(outputs.len(), Vec::new());
        for (p, o) in parts.iter_mut().zip(outputs) {
            p.push(o);
        }
    }
    parts
        .into_iter()
        .map(|p| crate::ops::join::cat(&p, 0))
        .collect()
}
