//! `conv1d` and `conv2d` as torch computes them without a vendor library ("slow_conv2d"): the
//! input's windows laid out as columns (`im2col`), then one matmul with the weight per group.
//! Autograd follows from those two ops (the input's gradient is `col2im` of `W^T g`, the
//! weight's `g cols^T`), so convolution has no derivative of its own. A 1-D convolution is a
//! 2-D one over planes of height 1.

use crate::dtype::DType;
use crate::error::{BorchError, Result, runtime};
use crate::layout::fmt_list;
use crate::ops::conv_gemm;
use crate::ops::unfold::{Window2d, in_chunks, rows_per_buffer};
use crate::tensor::Tensor;

/// torch's `padding` argument of a convolution: sizes (one for every spatial dim, or one for
/// all), or the strings `'valid'` (none) and `'same'` (the output as large as the input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Padding {
    /// Zero padding on both sides: one size per spatial dim, or one for all.
    Sizes(Vec<isize>),
    /// `'valid'`: no padding.
    Valid,
    /// `'same'`: padding that keeps the input's spatial size (stride 1).
    Same,
}

impl std::str::FromStr for Padding {
    type Err = BorchError;
    fn from_str(s: &str) -> Result<Padding> {
        match s {
            "valid" => Ok(Padding::Valid),
            "same" => Ok(Padding::Same),
            _ => runtime(format!("Invalid padding string: '{s}'")),
        }
    }
}

impl From<isize> for Padding {
    fn from(p: isize) -> Padding {
        Padding::Sizes(vec![p])
    }
}

/// The hyper-parameters of one convolution call, as torch takes them.
pub(crate) struct Params<'a> {
    pub stride: &'a [isize],
    pub padding: &'a Padding,
    pub dilation: &'a [isize],
    pub groups: isize,
}

/// torch's `conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`:
/// `input` `(N, C_in, H, W)` or unbatched `(C_in, H, W)`, `weight` `(C_out, C_in / groups, kH,
/// kW)`, `bias` `(C_out)`. `stride`, `dilation` (and sizes of `padding`) take one value for
/// both dims or one per dim.
pub fn conv2d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[isize],
    padding: &Padding,
    dilation: &[isize],
    groups: isize,
) -> Result<Tensor> {
    let params = Params {
        stride,
        padding,
        dilation,
        groups,
    };
    convolution(input, weight, bias, &params, 2)
}

/// torch's `conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`:
/// `input` `(N, C_in, L)` or unbatched `(C_in, L)`, `weight` `(C_out, C_in / groups, k)`.
pub fn conv1d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    stride: &[isize],
    padding: &Padding,
    dilation: &[isize],
    groups: isize,
) -> Result<Tensor> {
    let params = Params {
        stride,
        padding,
        dilation,
        groups,
    };
    convolution(input, weight, bias, &params, 1)
}

/// One value per spatial dim, as torch's argument parser expands a single int, then torch's
/// check against the weight's spatial dims.
pub(crate) fn expand(
    values: &[isize],
    name: &str,
    spatial: usize,
    weight_dims: usize,
) -> Result<Vec<isize>> {
    let v = if values.len() == 1 {
        vec![values[0]; spatial]
    } else {
        values.to_vec()
    };
    if v.len() != weight_dims {
        let shown: Vec<String> = v.iter().map(isize::to_string).collect();
        return runtime(format!(
            "expected {name} to be a single integer value or a list of {weight_dims} values to \
             match the convolution dimensions, but got {name}={}",
            format_args!("[{}]", shown.join(", "))
        ));
    }
    Ok(v)
}

pub(crate) fn check_dtypes(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    name: &str,
) -> Result<()> {
    let type_name = |d: DType| format!("torch.{}Tensor", d.scalar_type_name());
    if input.dtype() != weight.dtype() {
        return runtime(format!(
            "Input type ({}) and weight type ({}) should be the same or input should be a MKLDNN \
             tensor and weight is a dense tensor",
            type_name(input.dtype()),
            type_name(weight.dtype())
        ));
    }
    if let Some(b) = bias
        && b.dtype() != input.dtype()
    {
        return runtime(format!(
            "Input type ({}) and bias type ({}) should be the same",
            type_name(input.dtype()),
            type_name(b.dtype())
        ));
    }
    if input.dtype() != DType::Float32 {
        return Err(BorchError::NotImplemented(format!(
            "{name}: borch convolves float32 tensors only, not {}",
            input.dtype().name()
        )));
    }
    Ok(())
}

/// torch's checks of the weight's dim 0 against `groups` (plain and transposed convolutions).
pub(crate) fn check_weight_groups(w: &[usize], groups: usize) -> Result<()> {
    if w[0] < groups {
        return runtime(format!(
            "Given groups={groups}, expected weight to be at least {groups} at dimension 0, but \
             got weight of size {} instead",
            fmt_list(w)
        ));
    }
    if !w[0].is_multiple_of(groups) {
        return runtime(format!(
            "Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, \
             but got weight of size [{}] instead",
            fmt_list(w)
        ));
    }
    Ok(())
}

/// torch's `check_shape_forward` (messages and order) for a batched input.
fn check_shapes(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    groups: usize,
    padding: &[usize],
    dilation: &[usize],
    extra: &[usize],
) -> Result<()> {
    let (x, w) = (input.shape(), weight.shape());
    if w.len() != x.len() {
        return runtime(format!(
            "Expected {k}-dimensional input for {k}-dimensional weight {}, but got {}-dimensional \
             input of size {} instead",
            fmt_list(w),
            x.len(),
            fmt_list(x),
            k = w.len()
        ));
    }
    check_weight_groups(w, groups)?;
    if x[1] != w[1] * groups {
        return runtime(format!(
            "Given groups={groups}, weight of size {}, expected input{} to have {} channels, but \
             got {} channels instead",
            fmt_list(w),
            fmt_list(x),
            w[1] * groups,
            x[1]
        ));
    }
    if let Some(b) = bias
        && (b.dim() != 1 || b.shape()[0] != w[0])
    {
        return runtime(format!(
            "Given weight of size {}, expected bias to be 1-dimensional with {} elements, but got \
             bias of size {} instead",
            fmt_list(w),
            w[0],
            fmt_list(b.shape())
        ));
    }
    // In 64 bits: sizes and arguments are below 2^31, so these cannot overflow.
    let padded: Vec<u64> = (0..padding.len())
        .map(|i| x[i + 2] as u64 + 2 * padding[i] as u64 + extra[i] as u64)
        .collect();
    let spans: Vec<u64> = (0..padding.len())
        .map(|i| dilation[i] as u64 * (w[i + 2] as u64).saturating_sub(1) + 1)
        .collect();
    if padded.iter().zip(&spans).any(|(p, s)| p < s) {
        let join = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(" x ");
        return runtime(format!(
            "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size \
             can't be greater than actual input size",
            join(&padded),
            join(&spans)
        ));
    }
    Ok(())
}

/// A convolution's arguments after torch's checks: the input batched, and per spatial dim the
/// stride, the padding before, the dilation and the extra padding after ('same' with an even
/// span).
pub(crate) struct Resolved {
    pub x: Tensor,
    pub batched: bool,
    pub stride: Vec<usize>,
    pub padding: Vec<usize>,
    pub dilation: Vec<usize>,
    pub extra: Vec<usize>,
    pub groups: usize,
}

/// torch's first checks of a convolution `name` over `spatial` dims (the input's rank, the
/// dtypes); the weight's spatial dims.
pub(crate) fn check_input(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    name: &str,
    spatial: usize,
) -> Result<usize> {
    if input.dim() != spatial + 1 && input.dim() != spatial + 2 {
        return runtime(format!(
            "Expected {}D (unbatched) or {}D (batched) input to {name}, but got input of size: {}",
            spatial + 1,
            spatial + 2,
            fmt_list(input.shape())
        ));
    }
    check_dtypes(input, weight, bias, name)?;
    Ok(weight.dim().saturating_sub(2))
}

/// torch's checks of a `conv{spatial}d` call, in its order.
pub(crate) fn resolve(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    p: &Params<'_>,
    spatial: usize,
) -> Result<Resolved> {
    let name = format!("conv{spatial}d");
    let weight_dims = check_input(input, weight, bias, &name, spatial)?;
    let stride = expand(p.stride, "stride", spatial, weight_dims)?;
    let dilation = expand(p.dilation, "dilation", spatial, weight_dims)?;
    // Padding before the first row/column, and extra after the last ('same' with an even span).
    let (padding, extra) = match p.padding {
        Padding::Sizes(s) => (
            expand(s, "padding", spatial, weight_dims)?,
            vec![0; spatial],
        ),
        Padding::Valid => (vec![0; spatial], vec![0; spatial]),
        Padding::Same => {
            if stride.iter().any(|&s| s != 1) {
                return runtime("padding='same' is not supported for strided convolutions");
            }
            let totals: Vec<isize> = (0..weight_dims)
                .map(|i| dilation[i] * (weight.shape()[i + 2] as isize - 1))
                .collect();
            let before: Vec<isize> = totals.iter().map(|t| t / 2).collect();
            let extra = totals.iter().map(|t| (t - t / 2 * 2) as usize).collect();
            (before, extra)
        }
    };
    if p.groups <= 0 {
        return runtime("non-positive groups is not supported");
    }
    if padding.iter().any(|&x| x < 0) {
        return runtime("negative padding is not supported");
    }
    if stride.iter().any(|&x| x <= 0) {
        return runtime("non-positive stride is not supported");
    }
    if dilation.iter().any(|&x| x <= 0) {
        return runtime("non-positive dilation is not supported");
    }
    let batched = input.dim() == spatial + 2;
    let x = if batched {
        input.clone()
    } else {
        input.unsqueeze(0)?
    };
    let (stride, padding, dilation) = (unsigned(&stride), unsigned(&padding), unsigned(&dilation));
    let groups = p.groups as usize;
    check_shapes(&x, weight, bias, groups, &padding, &dilation, &extra)?;
    Ok(Resolved {
        x,
        batched,
        stride,
        padding,
        dilation,
        extra,
        groups,
    })
}

fn convolution(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    p: &Params<'_>,
    spatial: usize,
) -> Result<Tensor> {
    convolution_fused(input, weight, bias, None, false, p, spatial)
}

/// A convolution, then `+ residual` (broadcast as `add` does) when given, then ReLU when
/// `relu`: one implicit-GEMM dispatch with its epilogue where the residual has the output's
/// shape, else im2col + matmul and the epilogue composed.
pub(crate) fn convolution_fused(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    residual: Option<&Tensor>,
    relu: bool,
    p: &Params<'_>,
    spatial: usize,
) -> Result<Tensor> {
    let span = crate::op_trace::Span::begin();
    let out = convolution_fused_inner(input, weight, bias, residual, relu, p, spatial);
    if !span.is_open() || out.is_err() {
        return out;
    }
    use crate::op_trace::{Attr, ints};
    let r = resolve(input, weight, bias, p, spatial)?;
    let mut pads: Vec<usize> = r.padding.clone();
    pads.extend(r.padding.iter().zip(&r.extra).map(|(a, b)| a + b));
    let attrs = vec![
        ("strides", ints(&r.stride)),
        ("pads", ints(&pads)),
        ("dilations", ints(&r.dilation)),
        ("group", Attr::Int(r.groups as i64)),
        ("relu", Attr::Bool(relu)),
        ("batched", Attr::Bool(r.batched)),
    ];
    let inputs = [Some(input), Some(weight), bias, residual];
    span.finish("convolution", &inputs, attrs, out)
}

#[allow(clippy::too_many_arguments)]
fn convolution_fused_inner(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    residual: Option<&Tensor>,
    relu: bool,
    p: &Params<'_>,
    spatial: usize,
) -> Result<Tensor> {
    let Resolved {
        x,
        batched,
        stride,
        padding,
        dilation,
        extra,
        groups,
    } = resolve(input, weight, bias, p, spatial)?;
    // Lift 1-D to 2-D: planes of height 1, a kernel of height 1.
    let lift = |v: &[usize], one: usize| -> [usize; 2] {
        if spatial == 1 {
            [one, v[0]]
        } else {
            [v[0], v[1]]
        }
    };
    let ws = weight.shape();
    let kernel = if spatial == 1 {
        [1, ws[2]]
    } else {
        [ws[2], ws[3]]
    };
    let size = lift(&x.shape()[2..], 1);
    let (stride, padding, dilation, extra) = (
        lift(&stride, 1),
        lift(&padding, 0),
        lift(&dilation, 1),
        lift(&extra, 0),
    );
    // `check_shapes` proved the padded size covers the kernel's span.
    let output = [0, 1].map(|i| {
        let padded = size[i] as u64 + 2 * padding[i] as u64 + extra[i] as u64;
        let span = dilation[i] as u64 * (kernel[i] as u64).saturating_sub(1) + 1;
        usize::try_from(padded.saturating_sub(span) / stride[i] as u64 + 1).unwrap_or(usize::MAX)
    });
    let window = Window2d {
        input: size,
        output,
        kernel,
        stride,
        padding,
        dilation,
    };
    let mut shape = vec![x.shape()[0], ws[0]];
    shape.extend(if spatial == 1 {
        vec![output[1]]
    } else {
        output.to_vec()
    });
    crate::size::new_numel(&shape)?;
    crate::size::view_numel("convolution", &output)?;
    let final_shape = if batched { &shape[..] } else { &shape[1..] };
    let fusable = residual.is_none_or(|r| r.shape() == final_shape && r.dtype() == DType::Float32);
    let implicit = conv_gemm::implicit(&x, ws[0], &window, groups);
    let out = if implicit {
        let lift4 = |t: &Tensor| {
            if spatial == 1 {
                t.unsqueeze(2)
            } else {
                Ok(t.clone())
            }
        };
        let r4 = match residual.filter(|_| fusable) {
            Some(r) if batched => Some(lift4(r)?),
            Some(r) => Some(lift4(&r.unsqueeze(0)?)?),
            None => None,
        };
        let fused = conv_gemm::Fused {
            bias,
            residual: r4.as_ref(),
            relu: relu && fusable,
        };
        conv_gemm::convolve(&lift4(&x)?, &lift4(weight)?, &fused, &window, groups)?
    } else {
        let bytes =
            crate::size::bytes_of(x.shape()[1]) * window.taps() as u64 * window.windows() as u64;
        let rows = rows_per_buffer(x.device(), bytes);
        convolve_in_chunks(&x, weight, bias, &window, groups, rows)?
    };
    let out = if out.shape() == shape {
        out
    } else {
        out.view_as_shape(&shape)?
    };
    let mut out = if batched {
        out
    } else {
        out.squeeze_dims(&[0])?
    };
    if !(implicit && fusable) {
        if let Some(r) = residual {
            out = out.add(r)?;
        }
        if relu {
            out = out.relu()?;
        }
    }
    Ok(out)
}

pub(crate) fn unsigned(v: &[isize]) -> Vec<usize> {
    v.iter().map(|&x| x as usize).collect()
}

/// `convolve` over chunks of at most `rows` samples (where the columns of the whole batch
/// would not fit one buffer).
fn convolve_in_chunks(
    x: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    window: &Window2d,
    groups: usize,
    rows: usize,
) -> Result<Tensor> {
    let mut out = in_chunks(x, rows, |xs| {
        Ok(vec![convolve(xs, weight, bias, window, groups)?])
    })?;
    Ok(out.remove(0))
}

/// The convolution proper: `(N, C, H, W)` (any height for a lifted 1-D input) to
/// `(N, C_out, OH * OW)`, one matmul of the weight `(G, C_out / G, C_in / G * kh * kw)` with the
/// columns `(N, G, C_in / G * kh * kw, OH * OW)`.
fn convolve(
    x: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    window: &Window2d,
    groups: usize,
) -> Result<Tensor> {
    let (n, c) = (x.shape()[0], x.shape()[1]);
    let planes = x.reshape(&[
        (n * c) as isize,
        window.input[0] as isize,
        window.input[1] as isize,
    ])?;
    let cols = planes.im2col(window, 0.0)?;
    weigh_columns(&cols, [n, c], weight, bias, groups)
}

/// The columns `(N * C, taps, L)` of a convolution of `[N, C]` samples and channels times the
/// weight `(C_out, C / G, …)`, per group, plus the bias: `(N, C_out, L)`.
pub(crate) fn weigh_columns(
    cols: &Tensor,
    [n, c]: [usize; 2],
    weight: &Tensor,
    bias: Option<&Tensor>,
    groups: usize,
) -> Result<Tensor> {
    let (taps, windows) = (cols.shape()[1], cols.shape()[2]);
    let oc = weight.shape()[0];
    let per_group = (c / groups * taps) as isize;
    let l = windows as isize;
    let (g, n, oc) = (groups as isize, n as isize, oc as isize);
    let out = if groups == 1 {
        let w = weight.reshape(&[oc, per_group])?;
        w.matmul(&cols.reshape(&[n, per_group, l])?)?
    } else {
        let w = weight.reshape(&[g, oc / g, per_group])?;
        w.matmul(&cols.reshape(&[n, g, per_group, l])?)?
            .reshape(&[n, oc, l])?
    };
    match bias {
        Some(b) => out.add(&b.reshape(&[oc, 1])?),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch too large for one buffer runs in chunks: the same values and gradients.
    #[test]
    fn chunked_batches_match_one_pass() {
        let x = crate::ops::random::randn(&[5, 2, 4, 4], None).unwrap();
        let w = crate::ops::random::randn(&[3, 2, 3, 3], None).unwrap();
        w.set_requires_grad(true).unwrap();
        let window = Window2d {
            input: [4, 4],
            output: [2, 2],
            kernel: [3, 3],
            stride: [1, 1],
            padding: [0, 0],
            dilation: [1, 1],
        };
        let whole = convolve_in_chunks(&x, &w, None, &window, 1, 5).unwrap();
        let parts = convolve_in_chunks(&x, &w, None, &window, 1, 2).unwrap();
        let (a, b) = (
            whole.to_vec_blocking::<f32>().unwrap(),
            parts.to_vec_blocking::<f32>().unwrap(),
        );
        assert_eq!(whole.shape(), parts.shape());
        assert!(a.iter().zip(&b).all(|(p, q)| (p - q).abs() < 1e-5));
    }
}
