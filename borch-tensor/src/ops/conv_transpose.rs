//! `conv_transpose1d/2d/3d`, the gradient of a convolution with respect to its input run
//! forward: one matmul of the transposed weight with the input per group gives the columns, and
//! `col2im` (`col2im3d`) adds them into the output planes. Autograd follows from those ops.

use crate::error::{Result, runtime};
use crate::layout::fmt_list;
use crate::ops::conv::{check_input, check_weight_groups, expand, unsigned};
use crate::ops::unfold::{Window, in_chunks, rows_per_buffer};
use crate::tensor::Tensor;

/// The hyper-parameters of one transposed convolution, as torch takes them.
pub struct TransposeArgs<'a> {
    /// torch's `stride`: one per spatial dim, or one for all.
    pub stride: &'a [isize],
    /// torch's `padding`: removed from each side of the output.
    pub padding: &'a [isize],
    /// torch's `output_padding`: added to one side of the output.
    pub output_padding: &'a [isize],
    /// torch's `groups`.
    pub groups: isize,
    /// torch's `dilation`.
    pub dilation: &'a [isize],
}

/// torch's `conv_transpose1d(input, weight, bias=None, stride=1, padding=0,
/// output_padding=0, groups=1, dilation=1)`: `input` `(N, C_in, L)` or `(C_in, L)`, `weight`
/// `(C_in, C_out / groups, k)`.
pub fn conv_transpose1d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    args: &TransposeArgs<'_>,
) -> Result<Tensor> {
    transposed(input, weight, bias, args, 1)
}

/// torch's `conv_transpose2d(input, weight, bias=None, stride=1, padding=0,
/// output_padding=0, groups=1, dilation=1)`: `input` `(N, C_in, H, W)` or `(C_in, H, W)`,
/// `weight` `(C_in, C_out / groups, kH, kW)`.
pub fn conv_transpose2d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    args: &TransposeArgs<'_>,
) -> Result<Tensor> {
    transposed(input, weight, bias, args, 2)
}

/// torch's `conv_transpose3d(input, weight, bias=None, stride=1, padding=0,
/// output_padding=0, groups=1, dilation=1)`: `input` `(N, C_in, D, H, W)` or unbatched,
/// `weight` `(C_in, C_out / groups, kD, kH, kW)`.
pub fn conv_transpose3d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    args: &TransposeArgs<'_>,
) -> Result<Tensor> {
    transposed(input, weight, bias, args, 3)
}

/// torch's `check_shape_forward` for a transposed convolution of a batched input.
fn check_shapes(x: &Tensor, weight: &Tensor, bias: Option<&Tensor>, groups: usize) -> Result<()> {
    let (xs, w) = (x.shape(), weight.shape());
    if w.len() != xs.len() {
        return runtime(format!(
            "Expected {k}-dimensional input for {k}-dimensional weight {}, but got {}-dimensional \
             input of size {} instead",
            fmt_list(w),
            xs.len(),
            fmt_list(xs),
            k = w.len()
        ));
    }
    check_weight_groups(w, groups)?;
    if xs[1] != w[0] {
        return runtime(format!(
            "Given transposed=1, weight of size {}, expected input{} to have {} channels, but got \
             {} channels instead",
            fmt_list(w),
            fmt_list(xs),
            w[0],
            xs[1]
        ));
    }
    if let Some(b) = bias
        && (b.dim() != 1 || b.shape()[0] != w[1] * groups)
    {
        return runtime(format!(
            "Given transposed=1, weight of size {}, expected bias to be 1-dimensional with {} \
             elements, but got bias of size {} instead",
            fmt_list(w),
            w[1] * groups,
            fmt_list(b.shape())
        ));
    }
    Ok(())
}

/// The sizes of one spatial dim of a transposed convolution.
#[derive(Clone, Copy)]
struct Dim {
    input: usize,
    kernel: usize,
    stride: usize,
    padding: usize,
    output_padding: usize,
    dilation: usize,
}

impl Dim {
    /// `(in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1`.
    fn output(&self) -> i64 {
        (self.input as i64 - 1) * self.stride as i64 - 2 * self.padding as i64
            + self.dilation as i64 * (self.kernel as i64 - 1)
            + self.output_padding as i64
            + 1
    }
}

/// torch's `slow_conv_transpose{2,3}d_shape_check` of the output padding and the output size
/// (a 1-D convolution runs as a 2-D one of height 1, so its messages name a height).
fn check_output(dims: &[Dim]) -> Result<()> {
    let names: &[&str] = if dims.len() == 3 {
        &["depth", "height", "width"]
    } else {
        &["height", "width"]
    };
    if dims
        .iter()
        .any(|d| d.output_padding >= d.stride && d.output_padding >= d.dilation)
    {
        let part = |what: &str, f: fn(&Dim) -> usize| {
            names
                .iter()
                .zip(dims)
                .map(|(n, d)| format!("{what}_{n}: {}", f(d)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        return runtime(format!(
            "output padding must be smaller than either stride or dilation, but got {} {} {}",
            part("output_padding", |d| d.output_padding),
            part("stride", |d| d.stride),
            part("dilation", |d| d.dilation)
        ));
    }
    if dims.iter().any(|d| d.output() < 1) {
        let join = |v: Vec<String>| v.join(" x ");
        return runtime(format!(
            "Given input size per channel: ({}). Calculated output size per channel: ({}). \
             Output size is too small",
            join(dims.iter().map(|d| d.input.to_string()).collect()),
            join(dims.iter().map(|d| d.output().to_string()).collect())
        ));
    }
    Ok(())
}

fn transposed(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    a: &TransposeArgs<'_>,
    spatial: usize,
) -> Result<Tensor> {
    let span = crate::op_trace::Span::begin();
    let out = transposed_inner(input, weight, bias, a, spatial);
    if !span.is_open() || out.is_err() {
        return out;
    }
    use crate::op_trace::{Attr, ints};
    let n = weight.dim().saturating_sub(2);
    let each = |v: &[isize]| -> Vec<isize> {
        if v.len() == 1 {
            vec![v[0]; n]
        } else {
            v.to_vec()
        }
    };
    let padding = each(a.padding);
    let pads: Vec<isize> = padding.iter().chain(&padding).copied().collect();
    let attrs = vec![
        ("strides", ints(&each(a.stride))),
        ("pads", ints(&pads)),
        ("output_padding", ints(&each(a.output_padding))),
        ("dilations", ints(&each(a.dilation))),
        ("group", Attr::Int(a.groups as i64)),
        ("batched", Attr::Bool(input.dim() == weight.dim())),
    ];
    span.finish(
        "conv_transpose",
        &[Some(input), Some(weight), bias],
        attrs,
        out,
    )
}

fn transposed_inner(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    a: &TransposeArgs<'_>,
    spatial: usize,
) -> Result<Tensor> {
    let name = format!("conv_transpose{spatial}d");
    let weight_dims = check_input(input, weight, bias, &name, spatial)?;
    let stride = expand(a.stride, "stride", spatial, weight_dims)?;
    let padding = expand(a.padding, "padding", spatial, weight_dims)?;
    let dilation = expand(a.dilation, "dilation", spatial, weight_dims)?;
    let output_padding = expand(a.output_padding, "output_padding", spatial, weight_dims)?;
    if a.groups <= 0 {
        return runtime("non-positive groups is not supported");
    }
    if padding.iter().any(|&x| x < 0) {
        return runtime("negative padding is not supported");
    }
    if output_padding.iter().any(|&x| x < 0) {
        return runtime("negative output_padding is not supported");
    }
    if stride.iter().any(|&x| x <= 0) {
        return runtime("non-positive stride is not supported");
    }
    if dilation.iter().any(|&x| x <= 0) {
        return runtime("dilation should be greater than zero");
    }
    let batched = input.dim() == spatial + 2;
    let x = if batched {
        input.clone()
    } else {
        input.unsqueeze(0)?
    };
    let groups = a.groups as usize;
    check_shapes(&x, weight, bias, groups)?;
    let (stride, padding) = (unsigned(&stride), unsigned(&padding));
    let (dilation, output_padding) = (unsigned(&dilation), unsigned(&output_padding));
    let mut dims: Vec<Dim> = (0..spatial)
        .map(|i| Dim {
            input: x.shape()[i + 2],
            kernel: weight.shape()[i + 2],
            stride: stride[i],
            padding: padding[i],
            output_padding: output_padding[i],
            dilation: dilation[i],
        })
        .collect();
    if spatial == 1 {
        let flat = Dim {
            input: 1,
            kernel: 1,
            stride: 1,
            padding: 0,
            output_padding: 0,
            dilation: 1,
        };
        dims.insert(0, flat);
    }
    check_output(&dims)?;
    let out_sizes: Vec<usize> = dims.iter().map(|d| d.output() as usize).collect();
    let (n, c_out) = (x.shape()[0], weight.shape()[1] * groups);
    let mut shape = vec![n, c_out];
    shape.extend(&out_sizes[dims.len() - spatial..]);
    crate::size::new_numel(&shape)?;
    let taps: usize = dims.iter().map(|d| d.kernel).product();
    let windows: usize = dims.iter().map(|d| d.input).product();
    let bytes = crate::size::bytes_of(c_out) * taps as u64 * windows as u64;
    let rows = rows_per_buffer(x.device(), bytes);
    let mut out = in_chunks(&x, rows, |xs| {
        let cols = columns(xs, weight, groups, taps, windows)?;
        let planes = scatter_back(&cols, &dims)?;
        Ok(vec![planes])
    })?;
    let out = out.remove(0).view_as_shape(&shape)?;
    let out = match bias {
        Some(b) => {
            let mut bias_shape = vec![c_out as isize];
            bias_shape.extend(std::iter::repeat_n(1, spatial));
            out.add(&b.reshape(&bias_shape)?)?
        }
        None => out,
    };
    if batched {
        Ok(out)
    } else {
        out.squeeze_dims(&[0])
    }
}

/// The columns `(N * C_out, taps, L)`: per group, the weight `(C_in / G, C_out / G * taps)`
/// transposed times the input `(C_in / G, L)`.
fn columns(
    x: &Tensor,
    weight: &Tensor,
    groups: usize,
    taps: usize,
    windows: usize,
) -> Result<Tensor> {
    let (n, c_in) = (x.shape()[0] as isize, x.shape()[1] as isize);
    let per_group = (weight.shape()[1] * taps) as isize;
    let (g, l) = (groups as isize, windows as isize);
    let cols = if groups == 1 {
        let w = weight.reshape(&[c_in, per_group])?.t()?;
        w.matmul(&x.reshape(&[n, c_in, l])?)?
    } else {
        let w = weight.reshape(&[g, c_in / g, per_group])?.transpose(1, 2)?;
        w.matmul(&x.reshape(&[n, g, c_in / g, l])?)?
    };
    cols.reshape(&[-1, taps as isize, l])
}

/// The columns added back into output planes (volumes) where their windows lie.
fn scatter_back(cols: &Tensor, dims: &[Dim]) -> Result<Tensor> {
    /// The window of the convolution this transposes: its output is our input.
    fn window<const N: usize>(dims: &[Dim]) -> Window<N> {
        let get = |f: &dyn Fn(&Dim) -> usize| std::array::from_fn(|i| f(&dims[i]));
        Window {
            input: get(&|d| d.output() as usize),
            output: get(&|d| d.input),
            kernel: get(&|d| d.kernel),
            stride: get(&|d| d.stride),
            padding: get(&|d| d.padding),
            dilation: get(&|d| d.dilation),
        }
    }
    if dims.len() == 2 {
        cols.col2im(&window::<2>(dims))
    } else {
        cols.col2im(&window::<3>(dims))
    }
}
