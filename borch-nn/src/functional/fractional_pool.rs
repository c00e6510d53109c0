//! torch's `F.fractional_max_pool2d` / `F.fractional_max_pool3d` (Graham's fractional max
//! pooling) with torch's CPU kernel's intervals. Each plane's window starts come from its random
//! samples as torch's `generate_intervals` computes them in the input's float type:
//! `start_i = (int)((i + u) * alpha) - (int)(u * alpha)` for `i < out - 1`, with
//! `alpha = (float)(in - k) / (float)(out - 1)`, and the last window at `in - k`. The starts are
//! computed on the device from the samples tensor (no readback), the windows gathered and reduced
//! with `max` (its autograd gives torch's backward: each output's gradient added at its index).
//! When no samples are given they are drawn as torch draws them, `torch.rand(N, C, n)` from the
//! default generator. The samples' columns are torch's: (W, H) in 2-D, (T, H, W) in 3-D.
//!
//! In a window holding several NaNs the index is the first NaN's (torch's CPU kernel keeps the
//! last one); the value (NaN) is the same.

use borch_tensor::{BorchError, DType, Result, Tensor, cat, full, rand, wrap_dim};

fn runtime<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Runtime(msg.into()))
}

fn value_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Value(msg.into()))
}

fn fmt_list(dims: &[usize]) -> String {
    let parts: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// Python's `input.size(dim)` with a negative dim (torch's IndexError when out of range).
fn size_at(input: &Tensor, dim: isize) -> Result<usize> {
    let i = wrap_dim(dim, input.dim())?;
    input.shape().get(i).copied().ok_or_else(|| {
        BorchError::Index(format!(
            "Dimension out of range (expected to be in range of [-1, 0], but got {dim})"
        ))
    })
}

/// The output size torch's Python wrapper computes: `output_size`, or `int(size * ratio)` per dim.
fn output_sizes(
    input: &Tensor,
    n: usize,
    output_size: Option<&[usize]>,
    output_ratio: Option<&[f64]>,
) -> Result<Vec<usize>> {
    let op = format!("fractional_max_pool{n}d");
    match (output_size, output_ratio) {
        (Some(s), _) => Ok(s.to_vec()),
        (None, None) => value_err(format!(
            "{op} requires specifying either an output_size or an output_ratio"
        )),
        (None, Some(r)) => {
            if n == 2 && r.len() > 2 {
                return value_err(format!(
                    "{op} requires output_ratio to either be a single Int or tuple of Ints."
                ));
            }
            let ratio: Vec<f64> = if r.len() == 1 {
                vec![r[0]; n]
            } else {
                r.to_vec()
            };
            if ratio.len() < n {
                return Err(BorchError::Index("tuple index out of range".into()));
            }
            (0..n)
                .map(|d| Ok((size_at(input, d as isize - n as isize)? as f64 * ratio[d]) as usize))
                .collect()
        }
    }
}

/// A single int or `n` of them (torch's int-list arguments), else torch's message.
fn expand(v: &[usize], n: usize, what: &str) -> Result<Vec<usize>> {
    match v.len() {
        1 => Ok(vec![v[0]; n]),
        l if l == n => Ok(v.to_vec()),
        _ => {
            let tuple = if n == 3 {
                "tuple of three Ints"
            } else {
                "tuple of Ints"
            };
            runtime(format!(
                "fractional_max_pool{n}d: {what} must either be a single Int or {tuple}"
            ))
        }
    }
}

/// The checks of torch's `fractional_max_pool{2,3}d` kernels, in torch's order.
fn check(input: &Tensor, n: usize, k: &[usize], out: &[usize]) -> Result<()> {
    let op = if n == 3 {
        "fractional_max_pool3d_out()"
    } else {
        "fractional_max_pool2d()"
    };
    if k.contains(&0) {
        let ks: Vec<String> = k.iter().map(usize::to_string).collect();
        return runtime(format!(
            "fractional_max_pool{n}d(): kernel size should be greater than zero, but got {}",
            ks.join("x")
        ));
    }
    let rank = input.dim();
    if rank != n + 1 && rank != n + 2 {
        return runtime(format!(
            "{op}: Expected {}D or {}D tensor, but got: {}",
            n + 1,
            n + 2,
            fmt_list(input.shape())
        ));
    }
    for d in 1..rank {
        if input.shape()[d] == 0 {
            return runtime(format!(
                "{op}: Expected input to have non-zero size for non-batch dimensions, but got{} \
                 with dimension {d} being empty.",
                fmt_list(input.shape())
            ));
        }
    }
    let names: &[&str] = if n == 3 {
        &["time", "height", "width"]
    } else {
        &["height", "width"]
    };
    let spatial = &input.shape()[rank - n..];
    // torch's 2-D kernel allows the last window to end at the input's end; its 3-D kernel
    // checks `out + k - 1 < in`.
    let slack = usize::from(n == 2);
    for d in 0..n {
        if out[d] + k[d] > spatial[d] + slack {
            return runtime(format!(
                "{op}: pool {0} {1} too large relative to input {0} {2}",
                names[d], k[d], spatial[d]
            ));
        }
    }
    Ok(())
}

/// torch's `fractional_max_pool_check_shape`: the samples against the input.
fn check_samples(input: &Tensor, n: usize, samples: &Tensor) -> Result<()> {
    if samples.dtype() != input.dtype() {
        return runtime("Expect _random_samples to have the same dtype as input");
    }
    if samples.dim() != 3 {
        return runtime(format!(
            "Expect _random_samples to have 3 dimensions, got {}",
            samples.dim()
        ));
    }
    let (batch, planes) = match input.dim() == n + 2 {
        true => (input.shape()[0], input.shape()[1]),
        false => (1, input.shape()[0]),
    };
    let s = samples.shape();
    if s[0] < batch {
        return runtime("Expect _random_samples.size(0) no less then input batch size.");
    }
    if s[1] != planes {
        return runtime("Expect _random_samples.size(1) equals to input channel size.");
    }
    if s[2] != n {
        return runtime(format!(
            "Expect _random_samples.size(2) equals to {n}; got {}.",
            s[2]
        ));
    }
    Ok(())
}

/// The window starts of one spatial dim for every plane: `[planes, out]` int64 from the
/// samples' column `u` (`[planes, 1]` float32).
fn starts(u: &Tensor, size: usize, out: usize, k: usize) -> Result<Tensor> {
    let planes = u.shape()[0];
    let last = full(&[planes, 1], (size - k) as i64, Some(DType::Int64))?;
    if out <= 1 {
        return last.narrow(1, 0, out);
    }
    let alpha = (size - k) as f32 / (out - 1) as f32;
    let steps: Vec<f32> = (0..out - 1).map(|i| i as f32).collect();
    let steps = Tensor::from_slice(&steps, &[1, out - 1])?;
    let at = steps
        .add(u)?
        .mul(f64::from(alpha))?
        .to_dtype(DType::Int64)?;
    let origin = u.mul(f64::from(alpha))?.to_dtype(DType::Int64)?;
    cat(&[at.sub(&origin)?, last], 1)
}

/// The pooled values and flat indices (within each plane) of an input with `n` spatial dims.
fn pool(
    input: &Tensor,
    n: usize,
    k: &[usize],
    out: &[usize],
    samples: &Tensor,
) -> Result<(Tensor, Tensor)> {
    let rank = input.dim();
    let lead = &input.shape()[..rank - n];
    let spatial = &input.shape()[rank - n..];
    let batch = if rank == n + 2 { lead[0] } else { 1 };
    let planes: usize = lead.iter().product();
    let windows: usize = out.iter().product();
    let taps: usize = k.iter().product();
    let volume: usize = spatial.iter().product();
    let mut shape = lead.to_vec();
    shape.extend_from_slice(out);
    if planes == 0 || windows == 0 {
        let values = input
            .reshape(&[-1])?
            .narrow(0, 0, 0)?
            .view_as_shape(&shape)?;
        let indices = full(&shape, 0i64, Some(DType::Int64))?;
        return Ok((values, indices));
    }
    let u = samples
        .narrow(0, 0, batch)?
        .reshape(&[planes as isize, n as isize])?;
    // The samples' column of each spatial dim: (W, H) in 2-D, (T, H, W) in 3-D.
    let column = |d: usize| if n == 2 { 1 - d } else { d };
    let mut flat: Option<Tensor> = None;
    let mut stride = volume;
    for d in 0..n {
        stride /= spatial[d];
        let col = u.narrow(1, column(d) as isize, 1)?;
        let s = starts(&col, spatial[d], out[d], k[d])?;
        // Dims [planes, out_0 .. out_{n-1}, k_0 .. k_{n-1}]: this dim's starts at 1 + d, its
        // offsets within the window at 1 + n + d.
        let mut view = vec![1isize; 1 + 2 * n];
        view[0] = planes as isize;
        view[1 + d] = out[d] as isize;
        let s = s.reshape(&view)?;
        let offsets: Vec<i64> = (0..k[d] as i64).collect();
        let mut view = vec![1isize; 1 + 2 * n];
        view[1 + n + d] = k[d] as isize;
        let offsets = Tensor::from_slice(&offsets, &[k[d]])?.reshape(&view)?;
        let term = s.add(&offsets)?.mul(stride as i64)?;
        flat = Some(match flat {
            None => term,
            Some(f) => f.add(&term)?,
        });
    }
    let flat = flat.expect("n >= 2 spatial dims").contiguous()?.reshape(&[
        planes as isize,
        windows as isize,
        taps as isize,
    ])?;
    let picked = input
        .reshape(&[planes as isize, volume as isize])?
        .gather(1, &flat.reshape(&[planes as isize, -1])?)?
        .reshape(&[planes as isize, windows as isize, taps as isize])?;
    let (values, tap) = picked.max_dim(2, false)?;
    let indices = flat.gather(2, &tap.unsqueeze(2)?)?.squeeze_dims(&[2])?;
    Ok((
        values.reshape(&shape.iter().map(|&s| s as isize).collect::<Vec<_>>())?,
        indices.reshape(&shape.iter().map(|&s| s as isize).collect::<Vec<_>>())?,
    ))
}

/// torch's `F.fractional_max_pool{n}d_with_indices(input, kernel_size, output_size, output_ratio,
/// _random_samples)`: the values and their int64 indices within each plane.
fn fractional_max_pool(
    input: &Tensor,
    n: usize,
    kernel_size: &[usize],
    output_size: Option<&[usize]>,
    output_ratio: Option<&[f64]>,
    samples: Option<&Tensor>,
) -> Result<(Tensor, Tensor)> {
    let out = output_sizes(input, n, output_size, output_ratio)?;
    let drawn;
    let samples = match samples {
        Some(s) => s,
        None => {
            let batch = if input.dim() == n + 1 {
                1
            } else {
                size_at(input, 0)?
            };
            let planes = size_at(input, -(n as isize) - 1)?;
            if input.dtype() != DType::Float32 {
                return Err(BorchError::NotImplemented(format!(
                    "\"check_uniform_bounds\" not implemented for '{}'",
                    input.dtype().scalar_type_name()
                )));
            }
            drawn = rand(&[batch, planes, n], None)?;
            &drawn
        }
    };
    let k = expand(kernel_size, n, "kernel_size")?;
    let out = expand(&out, n, "output_size")?;
    check(input, n, &k, &out)?;
    check_samples(input, n, samples)?;
    if input.dtype() != DType::Float32 {
        return Err(BorchError::NotImplemented(format!(
            "fractional_max_pool{n}d(): borch pools float32 inputs (got {})",
            input.dtype().name()
        )));
    }
    pool(input, n, &k, &out, samples)
}

/// torch's `F.fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
/// return_indices=False, _random_samples=None)`: values and indices `h * W + w`.
pub fn fractional_max_pool2d(
    input: &Tensor,
    kernel_size: &[usize],
    output_size: Option<&[usize]>,
    output_ratio: Option<&[f64]>,
    samples: Option<&Tensor>,
) -> Result<(Tensor, Tensor)> {
    fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, samples)
}

/// torch's `F.fractional_max_pool3d(...)`: values and indices `t * H * W + h * W + w`.
pub fn fractional_max_pool3d(
    input: &Tensor,
    kernel_size: &[usize],
    output_size: Option<&[usize]>,
    output_ratio: Option<&[f64]>,
    samples: Option<&Tensor>,
) -> Result<(Tensor, Tensor)> {
    fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, samples)
}
