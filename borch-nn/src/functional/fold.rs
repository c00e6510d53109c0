//! torch's `F.unfold` (im2col) and `F.fold` (col2im) over 4-D (or unbatched 3-D) inputs, on
//! the core's sliding-window primitive (each is the other's derivative).

use borch_tensor::{BorchError, Result, Tensor, Window2d};

fn runtime<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Runtime(msg.into()))
}

fn pair(v: &[usize], name: &str) -> Result<[usize; 2]> {
    match v {
        [a] => Ok([*a, *a]),
        [a, b] => Ok([*a, *b]),
        _ => runtime(format!("{name} must be an int or a tuple of 2 ints")),
    }
}

fn tup(v: [usize; 2]) -> String {
    format!("({}, {})", v[0], v[1])
}

/// The window geometry of `F.unfold` / `F.fold`: kernel, dilation, padding, stride.
pub struct Blocks {
    kernel: [usize; 2],
    dilation: [usize; 2],
    padding: [usize; 2],
    stride: [usize; 2],
}

impl Blocks {
    /// The block geometry, with torch's checks (two values each).
    pub fn new(
        kernel_size: &[usize],
        dilation: &[usize],
        padding: &[usize],
        stride: &[usize],
    ) -> Result<Blocks> {
        let b = Blocks {
            kernel: pair(kernel_size, "kernel_size")?,
            dilation: pair(dilation, "dilation")?,
            padding: pair(padding, "padding")?,
            stride: pair(stride, "stride")?,
        };
        for (what, name, v) in [
            ("kernel size", "kernel", b.kernel),
            ("dilation", "dilation", b.dilation),
            ("stride", "stride", b.stride),
        ] {
            if v.contains(&0) {
                return runtime(format!(
                    "{what} should be greater than zero, but got {name}_height: {} {name}_width: \
                     {}",
                    v[0], v[1]
                ));
            }
        }
        Ok(b)
    }

    /// Blocks along each dim of a plane of `size` (C++'s truncating division, as torch).
    fn count(&self, size: [usize; 2]) -> [isize; 2] {
        let one = |i: usize| {
            let span = (self.dilation[i] * (self.kernel[i] - 1) + 1) as isize;
            (size[i] as isize + 2 * self.padding[i] as isize - span) / self.stride[i] as isize + 1
        };
        [one(0), one(1)]
    }

    fn window(&self, input: [usize; 2], output: [usize; 2]) -> Window2d {
        Window2d {
            input,
            output,
            kernel: self.kernel,
            stride: self.stride,
            padding: self.padding,
            dilation: self.dilation,
        }
    }

    fn describe(&self) -> String {
        format!(
            "kernel_size={}, dilation={}, padding={}",
            tup(self.kernel),
            tup(self.dilation),
            tup(self.padding)
        )
    }
}

/// torch's `F.unfold(input, kernel_size, dilation=1, padding=0, stride=1)`: `(N, C, H, W)` →
/// `(N, C kh kw, L)` (or unbatched `(C, H, W)` → `(C kh kw, L)`).
pub fn unfold(input: &Tensor, blocks: &Blocks) -> Result<Tensor> {
    let s = input.shape().to_vec();
    if s.len() != 3 && s.len() != 4 {
        return runtime(format!(
            "Input Error: Only 3D or 4D input Tensors are supported (got {}D)",
            s.len()
        ));
    }
    let batched = s.len() == 4;
    let (n, c, h, w) = if batched {
        (s[0], s[1], s[2], s[3])
    } else {
        (1, s[0], s[1], s[2])
    };
    let [oh, ow] = blocks.count([h, w]);
    if oh < 1 || ow < 1 {
        return runtime(format!(
            "Given input with spatial size ({h}, {w}), {}, calculated shape of the array of \
             sliding blocks as ({oh}, {ow}), but its components must be at least one.",
            blocks.describe()
        ));
    }
    let window = blocks.window([h, w], [oh as usize, ow as usize]);
    let planes = input.reshape(&[(n * c) as isize, h as isize, w as isize])?;
    let cols = planes.im2col(&window, 0.0)?;
    let rows = (c * window.taps()) as isize;
    let l = window.windows() as isize;
    if batched {
        cols.reshape(&[n as isize, rows, l])
    } else {
        cols.reshape(&[rows, l])
    }
}

/// torch's `F.fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)`:
/// `(N, C kh kw, L)` → `(N, C, H, W)` (or unbatched `(C kh kw, L)` → `(C, H, W)`), overlapping
/// values summed.
pub fn fold(input: &Tensor, output_size: &[usize], blocks: &Blocks) -> Result<Tensor> {
    let out = pair(output_size, "output_size")?;
    let s = input.shape().to_vec();
    if s.len() != 2 && s.len() != 3 {
        return runtime(format!(
            "Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got \
             {}D)",
            s.len()
        ));
    }
    let batched = s.len() == 3;
    let (n, rows, l) = if batched {
        (s[0], s[1], s[2])
    } else {
        (1, s[0], s[1])
    };
    let taps = blocks.kernel[0] * blocks.kernel[1];
    // torch checks the unbatched input after adding the batch dim.
    let d = 1;
    if !rows.is_multiple_of(taps) {
        return runtime(format!(
            "Expected size of input's dimension {d} to be divisible by the product of \
             kernel_size, but got input.size({d})={rows} and kernel_size={}.",
            tup(blocks.kernel)
        ));
    }
    let [oh, ow] = blocks.count(out);
    if oh < 1 || ow < 1 || (oh * ow) as usize != l {
        return runtime(format!(
            "Given output_size={}, {}, stride={}, expected size of input's dimension {} to match \
             the calculated number of sliding blocks {oh} * {ow} = {}, but got input.size({})={l}.",
            tup(out),
            blocks.describe(),
            tup(blocks.stride),
            d + 1,
            oh * ow,
            d + 1
        ));
    }
    let c = rows / taps;
    let window = blocks.window(out, [oh as usize, ow as usize]);
    let cols = input.reshape(&[(n * c) as isize, taps as isize, l as isize])?;
    let planes = cols.col2im(&window)?;
    let (h, w) = (out[0] as isize, out[1] as isize);
    if batched {
        planes.reshape(&[n as isize, c as isize, h, w])
    } else {
        planes.reshape(&[c as isize, h, w])
    }
}
