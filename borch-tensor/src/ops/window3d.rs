//! Sliding windows over volumes, the primitive under 3-D convolution and pooling: `im2col3d`
//! lays every window of a batch of volumes out as a column, `col2im3d` adds columns back into
//! volumes; each is the other's derivative (as `im2col` and `col2im` over planes).

use crate::autograd::{Op, ShapeOp, record};
use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::unfold3d;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// The geometry of a 3-D sliding window, each `[d, h, w]`: input and output volume sizes, the
/// window's size, step, zero padding before the first slice/row/column and tap spacing.
/// Positions outside the input read the pad value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window3d {
    pub input: [usize; 3],
    pub output: [usize; 3],
    pub kernel: [usize; 3],
    pub stride: [usize; 3],
    pub padding: [usize; 3],
    pub dilation: [usize; 3],
}

impl Window3d {
    /// Taps per window (`kd * kh * kw`).
    pub fn taps(&self) -> usize {
        self.kernel.iter().product()
    }

    /// Windows per volume (`OD * OH * OW`).
    pub fn windows(&self) -> usize {
        self.output.iter().product()
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
    /// Every window of the volumes `(B, D, H, W)` as the columns of
    /// `(B, kd * kh * kw, OD * OH * OW)`; positions outside the input read `pad_value`.
    pub fn im2col3d(&self, window: &Window3d, pad_value: f32) -> Result<Tensor> {
        check_float(self, "im2col3d")?;
        if self.dim() != 4 || self.shape()[1..] != window.input {
            return runtime(format!(
                "im2col3d: expected volumes of size {:?}, got {:?}",
                window.input,
                self.shape()
            ));
        }
        let out = unfold3d::im2col3d(&self.detach().contiguous()?, window, pad_value)?;
        let op = Op::Shape(ShapeOp::Im2col3d { window: *window });
        Ok(record(op, &[Operand::Tensor(self.clone())], out))
    }

    /// The columns `(B, kd * kh * kw, OD * OH * OW)` summed back into volumes `(B, D, H, W)`
    /// where their windows lie (taps outside the input are dropped).
    pub fn col2im3d(&self, window: &Window3d) -> Result<Tensor> {
        check_float(self, "col2im3d")?;
        let want = [
            self.shape().first().copied().unwrap_or(0),
            window.taps(),
            window.windows(),
        ];
        if self.shape() != want {
            return runtime(format!(
                "col2im3d: expected columns of size {want:?}, got {:?}",
                self.shape()
            ));
        }
        let out = unfold3d::col2im3d(&self.detach().contiguous()?, window)?;
        let op = Op::Shape(ShapeOp::Col2im3d { window: *window });
        Ok(record(op, &[Operand::Tensor(self.clone())], out))
    }
}
