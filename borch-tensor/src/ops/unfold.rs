//! Sliding windows over planes and volumes, the primitive under convolution and pooling:
//! `im2col` lays every window of a batch of inputs out as a column, `col2im` adds columns back
//! into the inputs. Each is the other's derivative, so convolution (`im2col` then a matmul) and
//! pooling (`im2col` then a reduction) need no derivatives of their own. One definition serves
//! every rank: `Window2d` (planes) and `Window3d` (volumes) are `Window<2>` and `Window<3>`.

use crate::autograd::{Op, ShapeOp, record};
use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::unfold;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// The geometry of an `N`-D sliding window: input and output sizes, and the window's size,
/// step, zero padding before the first element and spacing of its taps (each one per dim).
/// Windows may reach past the padded input (pooling's `ceil_mode`, `padding='same'`): positions
/// outside the input read the pad value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window<const N: usize> {
    /// The input's spatial size.
    pub input: [usize; N],
    /// The output's spatial size (window positions).
    pub output: [usize; N],
    /// The window's size.
    pub kernel: [usize; N],
    /// The step between window positions.
    pub stride: [usize; N],
    /// Padding before the first element.
    pub padding: [usize; N],
    /// The spacing of the window's taps.
    pub dilation: [usize; N],
}

/// A window over planes, each field `[h, w]`.
pub type Window2d = Window<2>;
/// A window over volumes, each field `[d, h, w]`.
pub type Window3d = Window<3>;

impl<const N: usize> Window<N> {
    /// Taps per window (`kh * kw`, `kd * kh * kw`).
    pub fn taps(&self) -> usize {
        self.kernel.iter().product()
    }

    /// Windows per input (`OH * OW`, `OD * OH * OW`).
    pub fn windows(&self) -> usize {
        self.output.iter().product()
    }

    /// The extent of one window with its dilation, per dim: `d * (k - 1) + 1`.
    pub fn span(&self, i: usize) -> usize {
        self.dilation[i] * (self.kernel[i] - 1) + 1
    }
}

/// The ranks windows come in, with the names of their kernels and the ops autograd records.
pub trait Sliding: Copy {
    /// `im2col`'s name at this rank (`im2col`, `im2col3d`), its kernel's key.
    const UNFOLD: &'static str;
    /// `col2im`'s name at this rank.
    const FOLD: &'static str;
    /// The op autograd records for `im2col` at this rank.
    fn unfold_op(self) -> ShapeOp;
    /// The op autograd records for `col2im` at this rank.
    fn fold_op(self) -> ShapeOp;
}

impl Sliding for Window2d {
    const UNFOLD: &'static str = "im2col";
    const FOLD: &'static str = "col2im";
    fn unfold_op(self) -> ShapeOp {
        ShapeOp::Im2col { window: self }
    }
    fn fold_op(self) -> ShapeOp {
        ShapeOp::Col2im { window: self }
    }
}

impl Sliding for Window3d {
    const UNFOLD: &'static str = "im2col3d";
    const FOLD: &'static str = "col2im3d";
    fn unfold_op(self) -> ShapeOp {
        ShapeOp::Im2col3d { window: self }
    }
    fn fold_op(self) -> ShapeOp {
        ShapeOp::Col2im3d { window: self }
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
    /// Every window of the inputs `(B, *window.input)` (planes `(B, H, W)`, volumes
    /// `(B, D, H, W)`) as the columns of `(B, taps, windows)` (torch's `unfold` with the channels
    /// in `B`); positions outside the input read `pad_value` (0 for convolution, -inf for max
    /// pooling). Float32 only.
    pub fn im2col<const N: usize>(&self, window: &Window<N>, pad_value: f32) -> Result<Tensor>
    where
        Window<N>: Sliding,
    {
        let name = <Window<N> as Sliding>::UNFOLD;
        check_float(self, name)?;
        if self.dim() != N + 1 || self.shape()[1..] != window.input {
            return runtime(format!(
                "{name}: expected inputs of size {:?}, got {:?}",
                window.input,
                self.shape()
            ));
        }
        let out = unfold::im2col(&self.detach().contiguous()?, window, pad_value)?;
        let op = Op::Shape(window.unfold_op());
        Ok(record(op, &[Operand::Tensor(self.clone())], out))
    }

    /// The columns `(B, taps, windows)` summed back into inputs `(B, *window.input)` where their
    /// windows lie (torch's `fold`; taps outside the input are dropped). Float32 only.
    pub fn col2im<const N: usize>(&self, window: &Window<N>) -> Result<Tensor>
    where
        Window<N>: Sliding,
    {
        let name = <Window<N> as Sliding>::FOLD;
        check_float(self, name)?;
        let want = [
            self.shape().first().copied().unwrap_or(0),
            window.taps(),
            window.windows(),
        ];
        if self.shape() != want {
            return runtime(format!(
                "{name}: expected columns of size {want:?}, got {:?}",
                self.shape()
            ));
        }
        let out = unfold::col2im(&self.detach().contiguous()?, window)?;
        let op = Op::Shape(window.fold_op());
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
