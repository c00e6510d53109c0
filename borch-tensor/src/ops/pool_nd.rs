//! 1-D and 3-D max and average pooling. A 1-D pooling is torch's: the 2-D one over planes of
//! height 1 (after `max_pool1d`'s and `avg_pool1d`'s own checks). A 3-D pooling is the shared
//! core of `pool.rs` at rank 3, after `max_pool3d`'s and `avg_pool3d`'s own checks.

use crate::error::{Result, runtime};
use crate::layout::fmt_list;
use crate::ops::pool::{self, output_size, window_args};
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

pool::max_pool_fns!(
    max_pool3d,
    max_pool3d_with_indices,
    3,
    "torch's `max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, \
     ceil_mode=False)` over the last three dims of a `(N, C, D, H, W)` or `(C, D, H, W)` input.",
    "`max_pool3d(..., return_indices=True)`: the values and, for each, the flat index \
     `d * H * W + h * W + w` of the maximum within its input volume (int64)."
);

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
    let args = window_args::<3>(op, "be", kernel_size, stride, padding)?;
    if input.dim() != 4 && input.dim() != 5 {
        return runtime("non-empty 4D or 5D (batch mode) tensor expected for input");
    }
    if divisor_override == Some(0) {
        return runtime("divisor must be not zero");
    }
    pool::avg_pool(
        op,
        input,
        args,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )
}
