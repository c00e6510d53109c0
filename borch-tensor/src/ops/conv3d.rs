//! `conv3d` as `conv2d` computes it over volumes: the input's windows as columns (`im2col3d`),
//! then one matmul with the weight per group; autograd follows from those two ops.

use crate::error::Result;
use crate::ops::conv::{Padding, Params, Resolved, resolve, weigh_columns};
use crate::ops::unfold::Window3d;
use crate::ops::unfold::{in_chunks, rows_per_buffer};
use crate::tensor::Tensor;

/// torch's `conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)`:
/// `input` `(N, C_in, D, H, W)` or unbatched `(C_in, D, H, W)`, `weight`
/// `(C_out, C_in / groups, kD, kH, kW)`, `bias` `(C_out)`.
pub fn conv3d(
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
    let Resolved {
        x,
        batched,
        stride,
        padding,
        dilation,
        extra,
        groups,
    } = resolve(input, weight, bias, &params, 3)?;
    let (ws, xs) = (weight.shape(), x.shape().to_vec());
    let three = |v: &[usize]| [v[0], v[1], v[2]];
    let kernel = three(&ws[2..]);
    // `resolve` proved the padded size covers the kernel's span.
    let output = [0, 1, 2].map(|i| {
        let padded = xs[i + 2] as u64 + 2 * padding[i] as u64 + extra[i] as u64;
        let span = dilation[i] as u64 * (kernel[i] as u64).saturating_sub(1) + 1;
        usize::try_from(padded.saturating_sub(span) / stride[i] as u64 + 1).unwrap_or(usize::MAX)
    });
    let window = Window3d {
        input: three(&xs[2..]),
        output,
        kernel,
        stride: three(&stride),
        padding: three(&padding),
        dilation: three(&dilation),
    };
    let mut shape = vec![xs[0], ws[0]];
    shape.extend(output);
    crate::size::new_numel(&shape)?;
    crate::size::view_numel("convolution", &output)?;
    let bytes = crate::size::bytes_of(xs[1]) * window.taps() as u64 * window.windows() as u64;
    let rows = rows_per_buffer(x.device(), bytes);
    let mut out = in_chunks(&x, rows, |xs| {
        let (n, c) = (xs.shape()[0], xs.shape()[1]);
        let [d, h, w] = window.input.map(|v| v as isize);
        let volumes = xs.reshape(&[(n * c) as isize, d, h, w])?;
        let cols = volumes.im2col(&window, 0.0)?;
        Ok(vec![weigh_columns(&cols, [n, c], weight, bias, groups)?])
    })?;
    let out = out.remove(0).view_as_shape(&shape)?;
    if batched {
        Ok(out)
    } else {
        out.squeeze_dims(&[0])
    }
}
