//! 1-D and 3-D max and average pooling. A 1-D pooling is torch's: the 2-D one over planes of
//! height 1 (after `max_pool1d`'s and `avg_pool1d`'s own checks). A 3-D pooling is composed as
//! the 2-D one is: the windows as columns (`im2col3d`, padded with -inf for max and 0 for
//! average), then `max` along the taps or a sum divided by torch's divisor.

use crate::error::{Result, runtime};
use crate::layout::fmt_list;
use crate::ops::pool::{self, check_float, output_size};
use crate::ops::unfold::{in_chunks, rows_per_buffer};
use crate::ops::window3d::Window3d;
use crate::tensor::Tensor;

/// torch's `checkDimRange(op, self, 2, 4)`.
fn check_rank_1d(input: &Tensor, op: &str) -> Result<()> {
    if input.dim() != 2 && input.dim() != 3 {
        return runtime(format!(
            "Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 'self' \
             (while checking arguments for {op})",
            input.dim()
        ));
    }
    Ok(())
}

/// torch's `check1d`: an argument of one value.
fn one(v: &[isize], op: &str, name: &str) -> Result<isize> {
    match v {
        [x] => Ok(*x),
        _ => runtime(format!(
            "{op}() argument '{name}' should contain one int (got {})",
            v.len()
        )),
    }
}

/// `max_pool1d`'s argument checks (torch's `check_max_pool1d`); the stride (the kernel size
/// when omitted).
fn check_max_pool1d(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<isize> {
    let op = "max_pool1d()";
    if input.dim() != 2 && input.dim() != 3 {
        return runtime(format!(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for \
             input, but got:{}",
            fmt_list(input.shape())
        ));
    }
    let size1 = |v: &[isize], what: &str| -> Result<isize> {
        match v {
            [x] => Ok(*x),
            _ => runtime(format!("{op} {what} but got size {}", v.len())),
        }
    };
    let k = size1(
        kernel_size,
        "kernel_size must be an int, list of ints or tuple of ints of size 1",
    )?;
    let s = match stride {
        None | Some([]) => k,
        Some(s) => size1(
            s,
            "stride must be None, an int, list of ints, or tuple of ints of size 1",
        )?,
    };
    let p = size1(
        padding,
        "padding must be an int, list of ints, or tuple of ints of size 1",
    )?;
    let d = size1(
        dilation,
        "dilation must be an int, list of ints or tuple of ints of size 1",
    )?;
    if k <= 0 {
        return runtime(format!(
            "{op} kernel_size must be greater than zero, but got {k}"
        ));
    }
    if s <= 0 {
        return runtime(format!(
            "{op} stride must be greater than zero, but got {s}"
        ));
    }
    if p < 0 {
        return runtime(format!("{op} padding must be non-negative, but got {p}"));
    }
    if p > k / 2 {
        return runtime(format!(
            "{op} padding should be at most half of kernel size, but got padding={p} and \
             kernel_size={k}"
        ));
    }
    if d <= 0 {
        return runtime(format!(
            "{op} dilation must be greater than zero, but got {d}"
        ));
    }
    let length = input.shape()[input.dim() - 1] as isize;
    let out = output_size(length, k, p, s, d, ceil_mode)?;
    if out <= 0 {
        return runtime(format!("{op} Invalid computed output size: {out}"));
    }
    Ok(s)
}

/// torch's `max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1,
/// ceil_mode=False)` over the last dim of a `(N, C, L)` or `(C, L)` input.
pub fn max_pool1d(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<Tensor> {
    let s = check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)?;
    let v = pool::max_pool2d(
        &input.unsqueeze(-2)?,
        &[1, kernel_size[0]],
        Some(&[1, s]),
        &[0, padding[0]],
        &[1, dilation[0]],
        ceil_mode,
    )?;
    v.squeeze_dims(&[-2])
}

/// `max_pool1d(..., return_indices=True)`: the values and the index of each maximum along `L`
/// (torch's `max_pool1d_with_indices`: its own argument checks, then `max_pool2d`'s).
pub fn max_pool1d_with_indices(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<(Tensor, Tensor)> {
    let op = "max_pool1d";
    check_rank_1d(input, op)?;
    let stride = match stride {
        None | Some([]) => kernel_size,
        Some(s) => s,
    };
    let k = one(kernel_size, op, "kernel_size")?;
    let s = one(stride, op, "stride")?;
    let p = one(padding, op, "padding")?;
    let d = one(dilation, op, "dilation")?;
    let (v, i) = pool::max_pool2d_with_indices(
        &input.unsqueeze(-2)?,
        &[1, k],
        Some(&[1, s]),
        &[0, p],
        &[1, d],
        ceil_mode,
    )?;
    Ok((v.squeeze_dims(&[-2])?, i.squeeze_dims(&[-2])?))
}

/// torch's `avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True)`: `avg_pool2d` over planes of height 1.
pub fn avg_pool1d(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    ceil_mode: bool,
    count_include_pad: bool,
) -> Result<Tensor> {
    let op = "avg_pool1d";
    let stride = match stride {
        None | Some([]) => kernel_size,
        Some(s) => s,
    };
    check_rank_1d(input, op)?;
    let k = one(kernel_size, op, "kernel_size")?;
    let s = one(stride, op, "stride")?;
    let p = one(padding, op, "padding")?;
    let out = pool::avg_pool2d(
        &input.unsqueeze(-2)?,
        &[1, k],
        Some(&[1, s]),
        &[0, p],
        ceil_mode,
        count_include_pad,
        None,
    )?;
    out.squeeze_dims(&[-2])
}

/// `[d, h, w]` from one value or three, with torch's message naming the argument.
fn triple(v: &[isize], op: &str, what: &str, form: &str) -> Result<[isize; 3]> {
    match v {
        [x] => Ok([*x; 3]),
        [d, h, w] => Ok([*d, *h, *w]),
        _ => runtime(format!("{op}: {what} must {form}")),
    }
}

/// The arguments of a 3-D pooling, each `[d, h, w]`.
struct Pool3 {
    kernel: [isize; 3],
    stride: [isize; 3],
    padding: [isize; 3],
    dilation: [isize; 3],
}

/// torch's output sizes and `pool3d_shape_check` (`avg` also checks the input covers the
/// kernel): the window of a pooling over the last three dims of a 4-D or 5-D input.
fn window3d(input: &Tensor, p: &Pool3, ceil: bool, avg: bool) -> Result<Window3d> {
    let x = input.shape();
    let r = x.len();
    let size = [x[r - 3], x[r - 2], x[r - 1]].map(|v| v as isize);
    let mut out = [0isize; 3];
    for i in 0..3 {
        out[i] = output_size(
            size[i],
            p.kernel[i],
            p.padding[i],
            p.stride[i],
            p.dilation[i],
            ceil,
        )?;
    }
    let [kt, kh, kw] = p.kernel;
    if kt <= 0 || kh <= 0 || kw <= 0 {
        return runtime(format!(
            "kernel size should be greater than zero, but got kT: {kt} kH: {kh} kW: {kw}"
        ));
    }
    let [st, sh, sw] = p.stride;
    if st <= 0 || sh <= 0 || sw <= 0 {
        return runtime(format!(
            "stride should be greater than zero, but got dT: {st} dH: {sh} dW: {sw}"
        ));
    }
    let [dt, dh, dw] = p.dilation;
    if dt <= 0 || dh <= 0 || dw <= 0 {
        return runtime(format!(
            "dilation should be greater than zero, but got dilationT: {dt} dilationH: {dh} \
             dilationW: {dw}"
        ));
    }
    let fn_name = if avg { "avg_pool3d()" } else { "max_pool3d()" };
    for (i, &d) in x.iter().enumerate() {
        if d == 0 && !(r == 5 && i == 0) {
            return runtime(format!(
                "{fn_name}: Expected input's non-batch dimensions to have positive length, but \
                 input has a shape of {} and non-batch dimension 0 has length zero!",
                fmt_list(x)
            ));
        }
    }
    let [it, ih, iw] = size;
    if avg && (it < kt || ih < kh || iw < kw) {
        return runtime(format!(
            "input image (T: {it} H: {ih} W: {iw}) smaller than kernel size (kT: {kt} kH: {kh} \
             kW: {kw})"
        ));
    }
    let [pt, ph, pw] = p.padding;
    if kt / 2 < pt || kw / 2 < pw || kh / 2 < ph {
        return runtime(format!(
            "pad should be smaller than or equal to half of kernel size, but got kT: {kt} kW: \
             {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}"
        ));
    }
    if out.iter().any(|&o| o < 1) {
        let c = x[r - 4];
        return runtime(format!(
            "Given input size: ({c}x{it}x{ih}x{iw}). Calculated output size: \
             ({c}x{}x{}x{}). Output size is too small",
            out[0], out[1], out[2]
        ));
    }
    let u = |v: [isize; 3]| v.map(|x| x as usize);
    Ok(Window3d {
        input: u(size),
        output: u(out),
        kernel: u(p.kernel),
        stride: u(p.stride),
        padding: u(p.padding),
        dilation: u(p.dilation),
    })
}

/// `reduce` of the input's volumes `(B, D, H, W)` as columns `(B, taps, windows)`, in chunks
/// where all the columns would not fit one buffer.
fn pooled3d(
    input: &Tensor,
    w: &Window3d,
    pad_value: f32,
    reduce: impl Fn(Tensor) -> Result<Vec<Tensor>>,
) -> Result<Vec<Tensor>> {
    let [d, h, wd] = w.input.map(|v| v as isize);
    let volumes = input.reshape(&[-1, d, h, wd])?;
    let rows = rows_per_buffer(
        input.device(),
        crate::size::bytes_of(w.taps()) * w.windows() as u64,
    );
    in_chunks(&volumes, rows, |v| reduce(v.im2col3d(w, pad_value)?))
}

/// `t` of `(B, windows)` shaped as the input with the pooled sizes last.
fn unvolumes(t: &Tensor, input: &Tensor, w: &Window3d) -> Result<Tensor> {
    let r = input.dim();
    let mut shape = input.shape()[..r - 3].to_vec();
    shape.extend(w.output);
    t.view_as_shape(&shape)
}

fn max_pool3d_window(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<Window3d> {
    let op = "max_pool3d";
    let kernel = triple(
        kernel_size,
        op,
        "kernel_size",
        "either be a single int, or a tuple of three ints",
    )?;
    let stride = match stride {
        None | Some([]) => kernel,
        Some(s) => triple(
            s,
            op,
            "stride",
            "either be omitted, a single int, or a tuple of three ints",
        )?,
    };
    let padding = triple(
        padding,
        op,
        "padding",
        "either be a single int, or a tuple of three ints",
    )?;
    let dilation = triple(
        dilation,
        op,
        "dilation",
        "be either a single int, or a tuple of three ints",
    )?;
    if input.dim() != 4 && input.dim() != 5 {
        return runtime("non-empty 4D or 5D (batch mode) tensor expected for input");
    }
    check_float(input, op)?;
    let pool = Pool3 {
        kernel,
        stride,
        padding,
        dilation,
    };
    window3d(input, &pool, ceil_mode, false)
}

/// torch's `max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1,
/// ceil_mode=False)` over the last three dims of a `(N, C, D, H, W)` or `(C, D, H, W)` input.
pub fn max_pool3d(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<Tensor> {
    let w = max_pool3d_window(input, kernel_size, stride, padding, dilation, ceil_mode)?;
    let values = pooled3d(input, &w, f32::NEG_INFINITY, |cols| {
        Ok(vec![cols.max_dim(1, false)?.0])
    })?;
    unvolumes(&values[0], input, &w)
}

/// `max_pool3d(..., return_indices=True)`: the values and, for each, the flat index
/// `d * H * W + h * W + w` of the maximum within its input volume (int64).
pub fn max_pool3d_with_indices(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<(Tensor, Tensor)> {
    let w = max_pool3d_window(input, kernel_size, stride, padding, dilation, ceil_mode)?;
    let pair = pooled3d(input, &w, f32::NEG_INFINITY, |cols| {
        let (values, taps) = cols.max_dim(1, false)?;
        Ok(vec![values, taps])
    })?;
    let (values, taps) = (&pair[0], &pair[1]);
    let [_, h, wd] = w.input.map(|v| v as i64);
    let mut corner = Vec::with_capacity(w.windows());
    for od in 0..w.output[0] {
        for oh in 0..w.output[1] {
            for ow in 0..w.output[2] {
                let front = (od * w.stride[0]) as i64 - w.padding[0] as i64;
                let top = (oh * w.stride[1]) as i64 - w.padding[1] as i64;
                let left = (ow * w.stride[2]) as i64 - w.padding[2] as i64;
                corner.push((front * h + top) * wd + left);
            }
        }
    }
    let corner = Tensor::from_slice(&corner, &[w.windows()])?;
    let [_, kh, kw] = w.kernel.map(|v| v as i64);
    let [dd, dh, dw] = w.dilation.map(|v| v as i64);
    let slices = taps.floor_divide(kh * kw)?.mul(dd * h * wd)?;
    let rows = taps.floor_divide(kw)?.remainder(kh)?.mul(dh * wd)?;
    let cols = taps.remainder(kw)?.mul(dw)?;
    let indices = slices.add(&rows)?.add(&cols)?.add(&corner)?;
    Ok((
        unvolumes(values, input, &w)?,
        unvolumes(&indices, input, &w)?,
    ))
}

/// torch's `avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None)` over the last three dims of a 4-D or 5-D
/// input.
pub fn avg_pool3d(
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<isize>,
) -> Result<Tensor> {
    let op = "avg_pool3d";
    let kernel = triple(
        kernel_size,
        op,
        "kernel_size",
        "be a single int, or a tuple of three ints",
    )?;
    let stride = match stride {
        None | Some([]) => kernel,
        Some(s) => triple(
            s,
            op,
            "stride",
            "be omitted, a single int, or a tuple of three ints",
        )?,
    };
    let padding = triple(
        padding,
        op,
        "padding",
        "be a single int, or a tuple of three ints",
    )?;
    if input.dim() != 4 && input.dim() != 5 {
        return runtime("non-empty 4D or 5D (batch mode) tensor expected for input");
    }
    if divisor_override == Some(0) {
        return runtime("divisor must be not zero");
    }
    check_float(input, op)?;
    let pool = Pool3 {
        kernel,
        stride,
        padding,
        dilation: [1; 3],
    };
    let w = window3d(input, &pool, ceil_mode, true)?;
    let divisors = divisors(&w, count_include_pad);
    let mean = divisor_override.is_none() && divisors.iter().all(|&d| d as usize == w.taps());
    let reduced = pooled3d(input, &w, 0.0, |cols| {
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
    unvolumes(&averages, input, &w)
}

/// torch's divisor of each 3-D window: its size clipped to the padded input, or (without
/// `count_include_pad`) the number of input voxels it covers.
fn divisors(w: &Window3d, count_include_pad: bool) -> Vec<f32> {
    let extent = |o: usize, i: usize| {
        let start = (o * w.stride[i]) as isize - w.padding[i] as isize;
        let (size, pad) = (w.input[i] as isize, w.padding[i] as isize);
        let end = (start + w.kernel[i] as isize).min(size + pad);
        let inside = end.min(size) - start.max(0);
        if count_include_pad {
            end - start
        } else {
            inside
        }
    };
    let mut out = Vec::with_capacity(w.windows());
    for od in 0..w.output[0] {
        for oh in 0..w.output[1] {
            for ow in 0..w.output[2] {
                out.push((extent(od, 0) * extent(oh, 1) * extent(ow, 2)) as f32);
            }
        }
    }
    out
}
