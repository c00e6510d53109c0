//! Adaptive pooling beyond 2-D average, and max unpooling. Adaptive average pooling is a matmul
//! with torch's averaging bins along each pooled dim; adaptive max pooling gathers every bin's
//! elements (a bin shorter than the longest repeats its first element at the end, which changes
//! neither the maximum nor which element is its first) and takes `max` along them, so the
//! gradient goes to torch's element. Max unpooling scatters the values to their indices.

use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::layout::fmt_list;
use crate::ops::creation::zeros;
use crate::ops::pool::{adaptive_avg_pool2d, check_float};
use crate::tensor::Tensor;

/// torch's `checkDimRange(op, self, 2, 4)` and `check1d(op, "output_size", …)`.
fn check_1d(input: &Tensor, output_size: &[Option<usize>], op: &str) -> Result<Option<usize>> {
    if input.dim() != 2 && input.dim() != 3 {
        return runtime(format!(
            "Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 'self' \
             (while checking arguments for {op})",
            input.dim()
        ));
    }
    match output_size {
        [o] => Ok(*o),
        _ => runtime(format!(
            "{op}() argument 'output_size' should contain one int (got {})",
            output_size.len()
        )),
    }
}

/// torch's `adaptive_avg_pool1d(input, output_size)` over the last dim of a 2-D or 3-D input.
pub fn adaptive_avg_pool1d(input: &Tensor, output_size: &[Option<usize>]) -> Result<Tensor> {
    let o = check_1d(input, output_size, "adaptive_avg_pool1d")?;
    adaptive_avg_pool2d(&input.unsqueeze(-2)?, &[Some(1), o])?.squeeze_dims(&[-2])
}

/// `n` sizes from one or `n` (`None` keeps that input size), or torch's message.
fn sizes(input: &Tensor, output_size: &[Option<usize>], n: usize, op: &str) -> Result<Vec<usize>> {
    let given = match output_size.len() {
        1 => vec![output_size[0]; n],
        len if len == n => output_size.to_vec(),
        len => {
            return runtime(format!(
                "{op}: internal error: output_size.size() must be {n}, got {len}"
            ));
        }
    };
    let r = input.dim();
    Ok((0..n)
        .map(|i| given[i].unwrap_or(input.shape()[r - n + i]))
        .collect())
}

/// The averaging matrix `(out, size)` of adaptive pooling along one dim (torch's bins).
fn bins(size: usize, out: usize) -> Result<Tensor> {
    let mut m = vec![0f32; out * size];
    for (i, (start, end)) in bin_ranges(size, out).into_iter().enumerate() {
        for j in start..end {
            m[i * size + j] = 1.0 / (end - start) as f32;
        }
    }
    Tensor::from_slice(&m, &[out, size])
}

/// torch's bins along one dim: output `i` covers `[floor(i * size / out), ceil((i + 1) * size
/// / out))`.
fn bin_ranges(size: usize, out: usize) -> Vec<(usize, usize)> {
    (0..out)
        .map(|i| (i * size / out, ((i + 1) * size).div_ceil(out)))
        .collect()
}

fn check_non_empty(input: &Tensor, spatial: usize, op: &str) -> Result<()> {
    let r = input.dim();
    for i in r - spatial..r {
        if input.shape()[i] == 0 {
            return runtime(format!(
                "{op}(): Expected input to have non-zero size for non-batch dimensions, but \
                 input has sizes {} with dimension {i} being empty",
                fmt_list(input.shape())
            ));
        }
    }
    Ok(())
}

/// torch's `adaptive_avg_pool3d(input, output_size)` over the last three dims of a 4-D or 5-D
/// input: the bins applied along W, H, then D as matmuls.
pub fn adaptive_avg_pool3d(input: &Tensor, output_size: &[Option<usize>]) -> Result<Tensor> {
    let op = "adaptive_avg_pool3d";
    let r = input.dim();
    if r != 4 && r != 5 {
        return runtime(format!(
            "{op}(): Expected 4D or 5D tensor, but got {}",
            fmt_list(input.shape())
        ));
    }
    let out = sizes(input, output_size, 3, op)?;
    check_float(input, op)?;
    check_non_empty(input, 3, op)?;
    let s = input.shape();
    let (d, h, w) = (s[r - 3], s[r - 2], s[r - 1]);
    let x = bins(h, out[1])?.matmul(&input.matmul(&bins(w, out[2])?.t()?)?)?;
    // (…, D, OH, OW) → (…, D, OH * OW), the depth bins from the left, then back.
    let mut flat: Vec<isize> = s[..r - 3].iter().map(|&v| v as isize).collect();
    flat.extend([d as isize, (out[1] * out[2]) as isize]);
    let x = bins(d, out[0])?.matmul(&x.reshape(&flat)?)?;
    let mut shape = s[..r - 3].to_vec();
    shape.extend(&out);
    x.view_as_shape(&shape)
}

/// Adaptive max pooling over the last `out.len()` dims: the values and the flat index of each
/// maximum within its input plane (volume).
fn adaptive_max(input: &Tensor, out: &[usize]) -> Result<(Tensor, Tensor)> {
    let n = out.len();
    let r = input.dim();
    let spatial = &input.shape()[r - n..];
    let ranges: Vec<Vec<(usize, usize)>> = (0..n).map(|i| bin_ranges(spatial[i], out[i])).collect();
    let longest: Vec<usize> = ranges
        .iter()
        .map(|r| r.iter().map(|(s, e)| e - s).max().unwrap_or(1).max(1))
        .collect();
    let taps: usize = longest.iter().product();
    let windows: usize = out.iter().product();
    // For every window and tap, the flat input position it reads.
    let mut table = Vec::with_capacity(windows * taps);
    let mut o = vec![0usize; n];
    for _ in 0..windows {
        let mut t = vec![0usize; n];
        for _ in 0..taps {
            let mut flat = 0i64;
            let mut inside = true;
            for i in 0..n {
                let (start, end) = ranges[i][o[i]];
                inside &= start + t[i] < end;
                flat = flat * spatial[i] as i64 + (start + t[i]).min(end - 1) as i64;
            }
            table.push(if inside {
                flat
            } else {
                *table.last().unwrap_or(&0)
            });
            step(&mut t, &longest);
        }
        step(&mut o, out);
    }
    // A repeat is the window's previous tap, itself in the window: the first one stays first.
    let lead: Vec<usize> = input.shape()[..r - n].to_vec();
    let volume: usize = spatial.iter().product();
    let planes = input.reshape(&[-1, volume as isize])?;
    let table_t = Tensor::from_slice(&table, &[windows * taps])?;
    let picked =
        planes
            .index_select(1, &table_t)?
            .reshape(&[-1, windows as isize, taps as isize])?;
    let (values, tap) = picked.max_dim(2, false)?;
    let offsets: Vec<i64> = (0..windows).map(|w| (w * taps) as i64).collect();
    let at = tap.add(&Tensor::from_slice(&offsets, &[windows])?)?;
    let indices = table_t.take(&at)?;
    let mut shape = lead;
    shape.extend(out);
    Ok((
        values.view_as_shape(&shape)?,
        indices.view_as_shape(&shape)?,
    ))
}

/// Advance a multi-index `i` (last dim fastest) within `sizes`.
fn step(i: &mut [usize], sizes: &[usize]) {
    for d in (0..i.len()).rev() {
        i[d] += 1;
        if i[d] < sizes[d] {
            return;
        }
        i[d] = 0;
    }
}

/// torch's `adaptive_max_pool1d(input, output_size)`: values and indices along `L`.
pub fn adaptive_max_pool1d(
    input: &Tensor,
    output_size: &[Option<usize>],
) -> Result<(Tensor, Tensor)> {
    let op = "adaptive_max_pool1d";
    let o = check_1d(input, output_size, op)?;
    check_float(input, op)?;
    check_non_empty(input, 1, op)?;
    let o = o.unwrap_or(input.shape()[input.dim() - 1]);
    adaptive_max(input, &[o])
}

/// torch's `adaptive_max_pool2d(input, output_size)` over the last two dims of a 3-D or 4-D
/// input (`None` keeps that size): values and flat indices `h * W + w`.
pub fn adaptive_max_pool2d(
    input: &Tensor,
    output_size: &[Option<usize>],
) -> Result<(Tensor, Tensor)> {
    let op = "adaptive_max_pool2d";
    if input.dim() != 3 && input.dim() != 4 {
        return runtime(format!(
            "{op}(): Expected 3D or 4D tensor, but got: {}",
            fmt_list(input.shape())
        ));
    }
    let out = sizes(input, output_size, 2, op)?;
    check_float(input, op)?;
    check_non_empty(input, 2, op)?;
    adaptive_max(input, &out)
}

/// torch's `adaptive_max_pool3d(input, output_size)` over the last three dims of a 4-D or 5-D
/// input: values and flat indices `d * H * W + h * W + w`.
pub fn adaptive_max_pool3d(
    input: &Tensor,
    output_size: &[Option<usize>],
) -> Result<(Tensor, Tensor)> {
    let op = "adaptive_max_pool3d";
    if input.dim() != 4 && input.dim() != 5 {
        return runtime(format!(
            "{op}(): Expected 4D or 5D tensor, but got: {}",
            fmt_list(input.shape())
        ));
    }
    let out = sizes(input, output_size, 3, op)?;
    check_float(input, op)?;
    check_non_empty(input, 3, op)?;
    adaptive_max(input, &out)
}

/// torch's `max_unpool2d(input, indices, output_size)` and `max_unpool3d` core: zeros of the
/// input's leading dims and `output_size`, with each value placed at its flat index within its
/// plane (volume). Indices outside the output are not checked (that needs a readback).
pub fn max_unpool(input: &Tensor, indices: &Tensor, output_size: &[usize]) -> Result<Tensor> {
    let n = output_size.len();
    let name = if n == 3 {
        "max_unpooling3d"
    } else {
        "max_unpooling2d"
    };
    if indices.dtype() != DType::Int64 {
        return runtime(format!(
            "elements in indices should be type int64 but got: {}",
            indices.dtype().scalar_type_name()
        ));
    }
    if input.dim() != n + 1 && input.dim() != n + 2 {
        return runtime(format!(
            "Input to {name} should be a {}d or {}d Tensor, but got a tensor with {} dimensions.",
            n + 1,
            n + 2,
            input.dim()
        ));
    }
    if input.shape() != indices.shape() {
        return runtime(format!(
            "Expected shape of indices to be same as that of the input tensor ({}) but got \
             indices tensor with shape: {}",
            fmt_list(input.shape()),
            fmt_list(indices.shape())
        ));
    }
    check_float(input, name)?;
    let r = input.dim();
    let lead = &input.shape()[..r - n];
    let planes: usize = lead.iter().product();
    let volume: usize = output_size.iter().product();
    let out = zeros(&[planes, volume], input.dtype())?;
    let src = input.reshape(&[planes as isize, -1])?;
    let idx = indices.reshape(&[planes as isize, -1])?;
    let mut shape = lead.to_vec();
    shape.extend(output_size);
    out.scatter(1, &idx, &src)?.view_as_shape(&shape)
}
