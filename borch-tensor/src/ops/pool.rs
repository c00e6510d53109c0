//! 2-D pooling, composed: the windows laid out as columns (`im2col`, padded with -inf for max
//! and 0 for average), then `max` along the taps (whose first index of the maximum is torch's
//! choice, and whose backward sends the gradient there alone) or a sum divided by torch's
//! divisor. Adaptive average pooling is two matmuls with averaging matrices.

use crate::dtype::DType;
use crate::error::{Result, not_impl, runtime};
use crate::layout::{fmt_list, wrap_dim};
use crate::ops::unfold::{Window2d, in_chunks, rows_per_buffer};
use crate::tensor::Tensor;

/// `[h, w]` from one value or two, with torch's message naming the argument.
fn pair(v: &[isize], op: &str, what: &str, form: &str) -> Result<[isize; 2]> {
    match v {
        [x] => Ok([*x, *x]),
        [h, w] => Ok([*h, *w]),
        _ => runtime(format!("{op}: {what} must {form}")),
    }
}

/// A pooling window's kernel size, stride (the kernel size when omitted) and padding, each as
/// (height, width), with torch's messages for wrong lengths.
fn window_pairs(
    op: &str,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
) -> Result<[[isize; 2]; 3]> {
    let single_or_two = "either be a single int, or a tuple of two ints";
    let kernel = pair(kernel_size, op, "kernel_size", single_or_two)?;
    let stride = match stride {
        None | Some([]) => kernel,
        Some(s) => pair(
            s,
            op,
            "stride",
            "either be omitted, a single int, or a tuple of two ints",
        )?,
    };
    Ok([kernel, stride, pair(padding, op, "padding", single_or_two)?])
}

/// torch's `div_rtn`: division rounding toward negative infinity.
fn div_rtn(a: i64, b: i64) -> i64 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// torch's `pooling_output_shape` (with its checks of stride and padding).
pub(crate) fn output_size(
    size: isize,
    kernel: isize,
    pad: isize,
    stride: isize,
    dilation: isize,
    ceil: bool,
) -> Result<isize> {
    if stride == 0 {
        return runtime("stride should not be zero");
    }
    if pad < 0 {
        return runtime(format!("pad must be non-negative, but got pad: {pad}"));
    }
    // In 64 bits: every argument is below 2^31 (the binder's bound), so nothing here overflows.
    let (size, kernel, pad, stride, dilation) = (
        size as i64,
        kernel as i64,
        pad as i64,
        stride as i64,
        dilation as i64,
    );
    if pad > ((kernel - 1) * dilation + 1) / 2 {
        return runtime(format!(
            "pad should be at most half of effective kernel size, but got pad={pad}, \
             kernel_size={kernel} and dilation={dilation}"
        ));
    }
    let extra = if ceil { stride - 1 } else { 0 };
    let mut out = div_rtn(size + 2 * pad - dilation * (kernel - 1) - 1 + extra, stride) + 1;
    if ceil && (out - 1) * stride >= size + pad {
        out -= 1;
    }
    isize::try_from(out).map_err(|_| {
        crate::error::BorchError::Runtime(format!("pooling output size {out} is too large"))
    })
}

/// The arguments of a 2-D pooling, each `[h, w]`.
struct Pool {
    kernel: [isize; 2],
    stride: [isize; 2],
    padding: [isize; 2],
    dilation: [isize; 2],
}

/// torch's `pool2d_shape_check` and output sizes: the window of a pooling over the last two
/// dims of a 3-D or 4-D input.
fn window(input: &Tensor, p: &Pool, ceil: bool) -> Result<Window2d> {
    let x = input.shape();
    let r = x.len();
    let (h, w) = (x[r - 2] as isize, x[r - 1] as isize);
    let mut out = [0isize; 2];
    for (i, size) in [h, w].into_iter().enumerate() {
        out[i] = output_size(
            size,
            p.kernel[i],
            p.padding[i],
            p.stride[i],
            p.dilation[i],
            ceil,
        )?;
    }
    let [kh, kw] = p.kernel;
    if kh <= 0 || kw <= 0 {
        return runtime(format!(
            "kernel size should be greater than zero, but got kH: {kh} kW: {kw}"
        ));
    }
    let [sh, sw] = p.stride;
    if sh <= 0 || sw <= 0 {
        return runtime(format!(
            "stride should be greater than zero, but got dH: {sh} dW: {sw}"
        ));
    }
    let [dh, dw] = p.dilation;
    if dh <= 0 || dw <= 0 {
        return runtime(format!(
            "dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}"
        ));
    }
    let valid = x[r - 3] != 0 && x[r - 2] != 0 && x[r - 1] != 0 && (r == 3 || x[1] != 0);
    if !valid {
        return runtime(format!(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but \
             got:{}",
            fmt_list(x)
        ));
    }
    let [ph, pw] = p.padding;
    if kw / 2 < pw || kh / 2 < ph {
        return runtime(format!(
            "pad should be smaller than or equal to half of kernel size, but got padW = {pw}, \
             padH = {ph}, kW = {kw}, kH = {kh}"
        ));
    }
    if out[0] < 1 || out[1] < 1 {
        return runtime(format!(
            "Given input size: ({}x{h}x{w}). Calculated output size: ({}x{}x{}). Output size is \
             too small",
            x[r - 3],
            x[r - 3],
            out[0],
            out[1]
        ));
    }
    let u = |v: [isize; 2]| v.map(|x| x as usize);
    Ok(Window2d {
        input: [h as usize, w as usize],
        output: u(out),
        kernel: u(p.kernel),
        stride: u(p.stride),
        padding: u(p.padding),
        dilation: u(p.dilation),
    })
}

pub(crate) fn check_float(input: &Tensor, op: &str) -> Result<()> {
    if input.dtype() != DType::Float32 {
        return not_impl(format!(
            "{op}: borch pools float32 tensors only, not {}",
            input.dtype().name()
        ));
    }
    Ok(())
}

/// `reduce` of the input's planes `(B, H, W)` as columns `(B, kh * kw, OH * OW)` (padded with
/// `pad_value`), in chunks of planes where all the columns would not fit one buffer.
fn pooled(
    input: &Tensor,
    w: &Window2d,
    pad_value: f32,
    reduce: impl Fn(Tensor) -> Result<Vec<Tensor>>,
) -> Result<Vec<Tensor>> {
    let planes = input.reshape(&[-1, w.input[0] as isize, w.input[1] as isize])?;
    let rows = rows_per_buffer(
        input.device(),
        crate::size::bytes_of(w.taps()) * w.windows() as u64,
    );
    in_chunks(&planes, rows, |p| reduce(p.im2col(w, pad_value)?))
}

/// `t` of `(B, OH * OW)` shaped as the input with the pooled sizes last.
fn unplanes(t: &Tensor, input: &Tensor, w: &Window2d) -> Result<Tensor> {
    let r = input.dim();
    let mut shape = input.shape()[..r - 2].to_vec();
    shape.extend(w.output);
    t.view_as_shape(&shape)
}

/// The arguments of max pooling after torch's checks of their lengths and of the input's rank.
fn max_pool_window(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<Window2d> {
    let op = "max_pool2d";
    let [kernel, stride, padding] = window_pairs(op, kernel_size, stride, padding)?;
    let dilation = pair(
        dilation,
        op,
        "dilation",
        "be either a single int, or a tuple of two ints",
    )?;
    if input.dim() != 3 && input.dim() != 4 {
        return runtime("non-empty 3D or 4D (batch mode) tensor expected for input");
    }
    check_float(input, op)?;
    let pool = Pool {
        kernel,
        stride,
        padding,
        dilation,
    };
    window(input, &pool, ceil_mode)
}

/// torch's `max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
/// ceil_mode=False)` over the last two dims of a `(N, C, H, W)` or `(C, H, W)` input; `stride`
/// `None` (or empty) is the kernel size; sizes take one value for both dims or one per dim.
pub fn max_pool2d(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<Tensor> {
    let w = max_pool_window(input, kernel_size, stride, padding, dilation, ceil_mode)?;
    let values = pooled(input, &w, f32::NEG_INFINITY, |cols| {
        Ok(vec![cols.max_dim(1, false)?.0])
    })?;
    unplanes(&values[0], input, &w)
}

/// torch's `max_pool2d(..., return_indices=True)`: the pooled values and, for each, the flat
/// index `h * W + w` of the maximum within its input plane (int64), as `max_unpool2d` takes.
pub fn max_pool2d_with_indices(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<(Tensor, Tensor)> {
    let w = max_pool_window(input, kernel_size, stride, padding, dilation, ceil_mode)?;
    let pair = pooled(input, &w, f32::NEG_INFINITY, |cols| {
        let (values, taps) = cols.max_dim(1, false)?;
        Ok(vec![values, taps])
    })?;
    let (values, taps) = (&pair[0], &pair[1]);
    // The tap (ki, kj) of window (oh, ow) is input pixel (oh*sh - ph + ki*dh, ow*sw - pw + kj*dw).
    let width = w.input[1] as i64;
    let mut corner = Vec::with_capacity(w.windows());
    for oh in 0..w.output[0] {
        for ow in 0..w.output[1] {
            let top = (oh * w.stride[0]) as i64 - w.padding[0] as i64;
            let left = (ow * w.stride[1]) as i64 - w.padding[1] as i64;
            corner.push(top * width + left);
        }
    }
    let corner = Tensor::from_slice(&corner, &[w.windows()])?;
    let kw = w.kernel[1] as i64;
    let rows = taps.floor_divide(kw)?.mul(w.dilation[0] as i64 * width)?;
    let cols = taps.remainder(kw)?.mul(w.dilation[1] as i64)?;
    let indices = rows.add(&cols)?.add(&corner)?;
    Ok((unplanes(values, input, &w)?, unplanes(&indices, input, &w)?))
}

/// torch's `avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None)` over the last two dims of a 3-D or 4-D input.
pub fn avg_pool2d(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<isize>,
) -> Result<Tensor> {
    let op = "avg_pool2d";
    let [kernel, stride, padding] = window_pairs(op, kernel_size, stride, padding)?;
    if divisor_override == Some(0) {
        return runtime("divisor must be not zero");
    }
    wrap_dim(-3, input.dim())?;
    if input.dim() > 4 {
        return runtime(format!(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but \
             got:{}",
            fmt_list(input.shape())
        ));
    }
    check_float(input, op)?;
    let pool = Pool {
        kernel,
        stride,
        padding,
        dilation: [1, 1],
    };
    let w = window(input, &pool, ceil_mode)?;
    let divisors = divisors(&w, count_include_pad);
    // Every window divided by its number of taps: one reduction.
    let mean = divisor_override.is_none() && divisors.iter().all(|&d| d as usize == w.taps());
    let reduced = pooled(input, &w, 0.0, |cols| {
        Ok(vec![if mean {
            cols.mean(Some(&[1]), false)?
        } else {
            cols.sum(Some(&[1]), false)?
        }])
    })?;
    let averages = match divisor_override {
        _ if mean => reduced[0].clone(),
        Some(d) => reduced[0].div(d as f64)?,
        None => reduced[0].div(&Tensor::from_slice(&divisors, &[w.windows()])?)?,
    };
    unplanes(&averages, input, &w)
}

/// torch's divisor of each window: its size clipped to the padded input, or (without
/// `count_include_pad`) the number of input pixels it covers.
fn divisors(w: &Window2d, count_include_pad: bool) -> Vec<f32> {
    let extent = |o: usize, i: usize| {
        let start = (o * w.stride[i]) as isize - w.padding[i] as isize;
        let (size, pad) = (w.input[i] as isize, w.padding[i] as isize);
        let end = (start + w.kernel[i] as isize).min(size + pad);
        let padded = end - start;
        let inside = end.min(size) - start.max(0);
        if count_include_pad { padded } else { inside }
    };
    let mut out = Vec::with_capacity(w.windows());
    for oh in 0..w.output[0] {
        for ow in 0..w.output[1] {
            out.push((extent(oh, 0) * extent(ow, 1)) as f32);
        }
    }
    out
}

/// The averaging matrix `(out, size)` of adaptive pooling along one dim: row `i` averages
/// `[floor(i * size / out), ceil((i + 1) * size / out))`, torch's bins.
fn bins(size: usize, out: usize) -> Result<Tensor> {
    let mut m = vec![0f32; out * size];
    for i in 0..out {
        let start = i * size / out;
        let end = ((i + 1) * size).div_ceil(out);
        for j in start..end {
            m[i * size + j] = 1.0 / (end - start) as f32;
        }
    }
    Tensor::from_slice(&m, &[out, size])
}

/// torch's `adaptive_avg_pool2d(input, output_size)`: `output_size` `[h, w]` (`None` keeps that
/// input size), over the last two dims of a 3-D or 4-D input; each output averages torch's bin
/// of the input, computed as `bins_h @ x @ bins_w^T`.
pub fn adaptive_avg_pool2d(input: &Tensor, output_size: &[Option<usize>]) -> Result<Tensor> {
    let r = input.dim();
    if r != 3 && r != 4 {
        return runtime(format!(
            "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {}",
            fmt_list(input.shape())
        ));
    }
    let sizes: [Option<usize>; 2] = match output_size {
        [s] => [*s, *s],
        [h, w] => [*h, *w],
        _ => return runtime("adaptive_avg_pool2d: output_size must be 2"),
    };
    check_float(input, "adaptive_avg_pool2d")?;
    let (h, w) = (input.shape()[r - 2], input.shape()[r - 1]);
    let (oh, ow) = (sizes[0].unwrap_or(h), sizes[1].unwrap_or(w));
    if (h == 0 && oh > 0) || (w == 0 && ow > 0) {
        return runtime(format!(
            "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch \
             dimensions, but input has sizes {} with dimension {} being empty",
            fmt_list(input.shape()),
            if h == 0 { r - 2 } else { r - 1 }
        ));
    }
    bins(h, oh)?.matmul(input)?.matmul(&bins(w, ow)?.t()?)
}
