//! Max and average pooling of any rank, composed: the windows laid out as columns (`im2col`,
//! padded with -inf for max and 0 for average), then `max` along the taps (whose first index of
//! the maximum is torch's choice, and whose backward sends the gradient there alone) or a sum
//! divided by torch's divisor. This file holds the shared core and the 2-D functions
//! (`pool_nd.rs` has the 1-D and 3-D ones); adaptive average pooling is two matmuls with
//! averaging matrices.

use crate::dtype::DType;
use crate::error::{Result, not_impl, runtime};
use crate::layout::{fmt_list, wrap_dim};
use crate::ops::unfold::{Sliding, Window, in_chunks, rows_per_buffer};
use crate::tensor::Tensor;

/// `[x; N]` from one value or `N`, with torch's message naming the argument.
fn sizes<const N: usize>(v: &[isize], op: &str, what: &str, form: &str) -> Result<[isize; N]> {
    match v {
        [x] => Ok([*x; N]),
        _ if v.len() == N => Ok(std::array::from_fn(|i| v[i])),
        _ => runtime(format!("{op}: {what} must {form}")),
    }
}

/// `two` or `three`, as torch's messages count a pooling's dims.
fn count(n: usize) -> &'static str {
    if n == 2 { "two" } else { "three" }
}

/// A pooling window's kernel size, stride (the kernel size when omitted) and padding, with
/// torch's messages for wrong lengths (`be` is how they start: `either be` or `be`).
pub(crate) fn window_args<const N: usize>(
    op: &str,
    be: &str,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
) -> Result<[[isize; N]; 3]> {
    let single = format!("{be} a single int, or a tuple of {} ints", count(N));
    let kernel = sizes(kernel_size, op, "kernel_size", &single)?;
    let stride = match stride {
        None | Some([]) => kernel,
        Some(s) => sizes(
            s,
            op,
            "stride",
            &format!(
                "{be} omitted, a single int, or a tuple of {} ints",
                count(N)
            ),
        )?,
    };
    Ok([kernel, stride, sizes(padding, op, "padding", &single)?])
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

/// The arguments of an `N`-D pooling, each one per dim.
pub(crate) struct Pool<const N: usize> {
    pub kernel: [isize; N],
    pub stride: [isize; N],
    pub padding: [isize; N],
    pub dilation: [isize; N],
}

/// `{prefix}T: 1 {prefix}H: 2 {prefix}W: 3`, as torch's messages list a value per dim.
fn per_dim<const N: usize>(prefix: &str, v: [isize; N]) -> String {
    let letters = &["T", "H", "W"][3 - N..];
    let named: Vec<String> = (0..N)
        .map(|i| format!("{prefix}{}: {}", letters[i], v[i]))
        .collect();
    named.join(" ")
}

/// torch's output sizes and `pool2d_shape_check` / `pool3d_shape_check` (`avg` at 3-D also
/// checks the input covers the kernel): the window of a pooling over the last `N` dims of an
/// input of `N + 1` or `N + 2` dims.
fn window<const N: usize>(input: &Tensor, p: &Pool<N>, ceil: bool, avg: bool) -> Result<Window<N>> {
    let x = input.shape();
    let r = x.len();
    let size: [isize; N] = std::array::from_fn(|i| x[r - N + i] as isize);
    let mut out = [0isize; N];
    for i in 0..N {
        out[i] = output_size(
            size[i],
            p.kernel[i],
            p.padding[i],
            p.stride[i],
            p.dilation[i],
            ceil,
        )?;
    }
    if p.kernel.iter().any(|&k| k <= 0) {
        return runtime(format!(
            "kernel size should be greater than zero, but got {}",
            per_dim("k", p.kernel)
        ));
    }
    if p.stride.iter().any(|&s| s <= 0) {
        return runtime(format!(
            "stride should be greater than zero, but got {}",
            per_dim("d", p.stride)
        ));
    }
    if p.dilation.iter().any(|&d| d <= 0) {
        return runtime(format!(
            "dilation should be greater than zero, but got {}",
            per_dim("dilation", p.dilation)
        ));
    }
    // Every dim but the batch dim is non-empty.
    if x.iter()
        .enumerate()
        .any(|(i, &d)| d == 0 && !(r == N + 2 && i == 0))
    {
        return runtime(if N == 2 {
            format!(
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, \
                 but got:{}",
                fmt_list(x)
            )
        } else {
            format!(
                "{}_pool3d(): Expected input's non-batch dimensions to have positive length, but \
                 input has a shape of {} and non-batch dimension 0 has length zero!",
                if avg { "avg" } else { "max" },
                fmt_list(x)
            )
        });
    }
    if N == 3 && avg && (0..N).any(|i| size[i] < p.kernel[i]) {
        return runtime(format!(
            "input image ({}) smaller than kernel size ({})",
            per_dim("", size),
            per_dim("k", p.kernel)
        ));
    }
    if (0..N).any(|i| p.kernel[i] / 2 < p.padding[i]) {
        let (k, pad) = (p.kernel, p.padding);
        return runtime(if N == 2 {
            format!(
                "pad should be smaller than or equal to half of kernel size, but got padW = {}, \
                 padH = {}, kW = {}, kH = {}",
                pad[1], pad[0], k[1], k[0]
            )
        } else {
            format!(
                "pad should be smaller than or equal to half of kernel size, but got kT: {} kW: \
                 {} kH: {} padT: {} padW: {} padH: {}",
                k[0], k[2], k[1], pad[0], pad[2], pad[1]
            )
        });
    }
    if out.iter().any(|&o| o < 1) {
        let c = x[r - N - 1];
        let sizes = |v: [isize; N]| v.map(|s| s.to_string()).join("x");
        return runtime(format!(
            "Given input size: ({c}x{}). Calculated output size: ({c}x{}). Output size is too \
             small",
            sizes(size),
            sizes(out)
        ));
    }
    let u = |v: [isize; N]| v.map(|x| x as usize);
    Ok(Window {
        input: u(size),
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

/// `reduce` of the input's planes `(B, H, W)` (volumes `(B, D, H, W)`) as columns
/// `(B, taps, windows)` (padded with `pad_value`), in chunks where all the columns would not fit
/// one buffer.
fn pooled<const N: usize>(
    input: &Tensor,
    w: &Window<N>,
    pad_value: f32,
    reduce: impl Fn(Tensor) -> Result<Vec<Tensor>>,
) -> Result<Vec<Tensor>>
where
    Window<N>: Sliding,
{
    let mut shape = vec![-1];
    shape.extend(w.input.map(|v| v as isize));
    let inputs = input.reshape(&shape)?;
    let rows = rows_per_buffer(
        input.device(),
        crate::size::bytes_of(w.taps()) * w.windows() as u64,
    );
    in_chunks(&inputs, rows, |p| reduce(p.im2col(w, pad_value)?))
}

/// `t` of `(B, windows)` shaped as the input with the pooled sizes last.
fn unpooled<const N: usize>(t: &Tensor, input: &Tensor, w: &Window<N>) -> Result<Tensor> {
    let r = input.dim();
    let mut shape = input.shape()[..r - N].to_vec();
    shape.extend(w.output);
    t.view_as_shape(&shape)
}

/// The arguments of max pooling after torch's checks of their lengths and of the input's rank.
pub(crate) fn max_pool_window<const N: usize>(
    op: &str,
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    dilation: &[isize],
    ceil_mode: bool,
) -> Result<Window<N>> {
    let [kernel, stride, padding] = window_args(op, "either be", kernel_size, stride, padding)?;
    let form = format!("be either a single int, or a tuple of {} ints", count(N));
    let dilation = sizes(dilation, op, "dilation", &form)?;
    if input.dim() != N + 1 && input.dim() != N + 2 {
        return runtime(format!(
            "non-empty {}D or {}D (batch mode) tensor expected for input",
            N + 1,
            N + 2
        ));
    }
    check_float(input, op)?;
    let pool = Pool {
        kernel,
        stride,
        padding,
        dilation,
    };
    window(input, &pool, ceil_mode, false)
}

/// The max pooling of `input` over window `w`.
pub(crate) fn max_pool<const N: usize>(input: &Tensor, w: &Window<N>) -> Result<Tensor>
where
    Window<N>: Sliding,
{
    let values = pooled(input, w, f32::NEG_INFINITY, |cols| {
        Ok(vec![cols.max_dim(1, false)?.0])
    })?;
    unpooled(&values[0], input, w)
}

/// The max pooling of `input` over window `w` and, for each value, the flat index of the
/// maximum within its input plane (volume), int64, as `max_unpool` takes.
pub(crate) fn max_pool_with_indices<const N: usize>(
    input: &Tensor,
    w: &Window<N>,
) -> Result<(Tensor, Tensor)>
where
    Window<N>: Sliding,
{
    let pair = pooled(input, w, f32::NEG_INFINITY, |cols| {
        let (values, taps) = cols.max_dim(1, false)?;
        Ok(vec![values, taps])
    })?;
    let (values, taps) = (&pair[0], &pair[1]);
    // Elements of the input after one step along each dim.
    let step: [i64; N] = std::array::from_fn(|d| w.input[d + 1..].iter().product::<usize>() as i64);
    // Tap k of window l is input element sum_d (o_d*s_d - p_d + k_d*dil_d) * step_d, o and k
    // the window's and the tap's coordinates.
    let mut corner = Vec::with_capacity(w.windows());
    for l in 0..w.windows() {
        let mut rest = l;
        let mut at = 0;
        for d in (0..N).rev() {
            let o = rest % w.output[d];
            rest /= w.output[d];
            at += ((o * w.stride[d]) as i64 - w.padding[d] as i64) * step[d];
        }
        corner.push(at);
    }
    let mut indices: Option<Tensor> = None;
    for (d, &step) in step.iter().enumerate() {
        let inner: i64 = w.kernel[d + 1..].iter().product::<usize>() as i64;
        let mut k = taps.clone();
        if d + 1 < N {
            k = k.floor_divide(inner)?;
        }
        if d > 0 {
            k = k.remainder(w.kernel[d] as i64)?;
        }
        let term = k.mul(w.dilation[d] as i64 * step)?;
        indices = Some(match indices {
            None => term,
            Some(sum) => sum.add(&term)?,
        });
    }
    let corner = Tensor::from_slice(&corner, &[w.windows()])?;
    let indices = indices.expect("a pooling has dims").add(&corner)?;
    Ok((unpooled(values, input, w)?, unpooled(&indices, input, w)?))
}

/// The average pooling of `input` with `[kernel, stride, padding]` (dilation 1), after the
/// rank's own checks.
pub(crate) fn avg_pool<const N: usize>(
    op: &str,
    input: &Tensor,
    [kernel, stride, padding]: [[isize; N]; 3],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: Option<isize>,
) -> Result<Tensor>
where
    Window<N>: Sliding,
{
    check_float(input, op)?;
    let pool = Pool {
        kernel,
        stride,
        padding,
        dilation: [1; N],
    };
    let w = window(input, &pool, ceil_mode, true)?;
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
    unpooled(&averages, input, &w)
}

/// torch's divisor of each window: its size clipped to the padded input, or (without
/// `count_include_pad`) the number of input elements it covers.
fn divisors<const N: usize>(w: &Window<N>, count_include_pad: bool) -> Vec<f32> {
    let extent = |o: usize, i: usize| {
        let start = (o * w.stride[i]) as isize - w.padding[i] as isize;
        let (size, pad) = (w.input[i] as isize, w.padding[i] as isize);
        let end = (start + w.kernel[i] as isize).min(size + pad);
        let padded = end - start;
        let inside = end.min(size) - start.max(0);
        if count_include_pad { padded } else { inside }
    };
    (0..w.windows())
        .map(|l| {
            let mut rest = l;
            let mut extents = [0isize; N];
            for d in (0..N).rev() {
                extents[d] = extent(rest % w.output[d], d);
                rest /= w.output[d];
            }
            extents.iter().product::<isize>() as f32
        })
        .collect()
}

/// torch's `max_pool{N}d` and its `return_indices=True` form at one rank, over the shared core.
macro_rules! max_pool_fns {
    ($values:ident, $with_indices:ident, $n:literal, $doc:literal, $doc_indices:literal) => {
        #[doc = $doc]
        pub fn $values(
            input: &Tensor,
            kernel_size: &[isize],
            stride: Option<&[isize]>,
            padding: &[isize],
            dilation: &[isize],
            ceil_mode: bool,
        ) -> Result<Tensor> {
            let span = $crate::op_trace::Span::begin();
            let w = $crate::ops::pool::max_pool_window::<$n>(
                stringify!($values),
                input,
                kernel_size,
                stride,
                padding,
                dilation,
                ceil_mode,
            )?;
            let out = $crate::ops::pool::max_pool(input, &w);
            let attrs = $crate::ops::pool::window_attrs(&w, ceil_mode);
            span.finish("max_pool", &[Some(input)], attrs, out)
        }

        #[doc = $doc_indices]
        pub fn $with_indices(
            input: &Tensor,
            kernel_size: &[isize],
            stride: Option<&[isize]>,
            padding: &[isize],
            dilation: &[isize],
            ceil_mode: bool,
        ) -> Result<(Tensor, Tensor)> {
            let w = $crate::ops::pool::max_pool_window::<$n>(
                stringify!($values),
                input,
                kernel_size,
                stride,
                padding,
                dilation,
                ceil_mode,
            )?;
            $crate::ops::pool::max_pool_with_indices(input, &w)
        }
    };
}
pub(crate) use max_pool_fns;

max_pool_fns!(
    max_pool2d,
    max_pool2d_with_indices,
    2,
    "torch's `max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, \
     ceil_mode=False)` over the last two dims of a `(N, C, H, W)` or `(C, H, W)` input; `stride` \
     `None` (or empty) is the kernel size; sizes take one value for both dims or one per dim.",
    "torch's `max_pool2d(..., return_indices=True)`: the pooled values and, for each, the flat \
     index `h * W + w` of the maximum within its input plane (int64), as `max_unpool2d` takes."
);

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
    let args = window_args::<2>(op, "either be", kernel_size, stride, padding)?;
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
    let span = crate::op_trace::Span::begin();
    let out = avg_pool(
        op,
        input,
        args,
        ceil_mode,
        count_include_pad,
        divisor_override,
    );
    use crate::op_trace::{Attr, ints};
    let two = |v: &[isize]| {
        if v.len() == 1 {
            vec![v[0]; 2]
        } else {
            v.to_vec()
        }
    };
    let pads: Vec<isize> = two(padding).repeat(2);
    let mut attrs = vec![
        ("kernel_shape", ints(&two(kernel_size))),
        (
            "strides",
            ints(&two(stride
                .filter(|s| !s.is_empty())
                .unwrap_or(kernel_size))),
        ),
        ("pads", ints(&pads)),
        ("ceil_mode", Attr::Bool(ceil_mode)),
        ("count_include_pad", Attr::Bool(count_include_pad)),
    ];
    if let Some(d) = divisor_override {
        attrs.push(("divisor_override", Attr::Int(d as i64)));
    }
    span.finish("avg_pool", &[Some(input)], attrs, out)
}

/// The ONNX-style attributes of a max-pool window (kernel, strides, begin and end pads,
/// dilations) for `op_trace`.
pub(crate) fn window_attrs<const N: usize>(
    w: &Window<N>,
    ceil_mode: bool,
) -> Vec<(&'static str, crate::op_trace::Attr)> {
    use crate::op_trace::{Attr, ints};
    let pads: Vec<usize> = w.padding.iter().chain(&w.padding).copied().collect();
    vec![
        ("kernel_shape", ints(&w.kernel)),
        ("strides", ints(&w.stride)),
        ("pads", ints(&pads)),
        ("dilations", ints(&w.dilation)),
        ("ceil_mode", Attr::Bool(ceil_mode)),
    ]
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
/// of the input, computed as `bins_h @ x @ bins_w^T` (a mean over the plane for a 1 x 1 output).
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
    let span = crate::op_trace::Span::begin();
    // A global pool (one bin per dim, a classifier's head) is one mean over the plane; other
    // sizes are the two averaging products.
    let out = if (oh, ow) == (1, 1) {
        input.mean(Some(&[-2, -1]), true)
    } else {
        (|| bins(h, oh)?.matmul(input)?.matmul(&bins(w, ow)?.t()?))()
    };
    let attrs = vec![("output_size", crate::op_trace::ints(&[oh, ow]))];
    span.finish("adaptive_avg_pool", &[Some(input)], attrs, out)
}
