//! torch's `F.interpolate` (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area)
//! and the channel rearrangements `F.pixel_shuffle`, `F.pixel_unshuffle`, `F.channel_shuffle`.
//!
//! Every interpolation mode is separable, so each spatial dim is resampled on its own: the
//! nearest modes as one gather (`index_select`), the weighted modes as one matmul with a
//! `[out, in]` matrix of torch's taps and weights (source indices computed as torch's CPU
//! kernels compute them, in float32); gradients come from those ops.

use borch_tensor::op_trace::{Attr, Span, ints};
use borch_tensor::{BorchError, Result, Tensor};

use super::normalization_batch::along;
use super::padding::index_tensor;

fn value_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Value(msg.into()))
}

fn runtime<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Runtime(msg.into()))
}

fn not_impl<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::NotImplemented(msg.into()))
}

fn py_list<T: ToString>(v: &[T]) -> String {
    let parts: Vec<String> = v.iter().map(ToString::to_string).collect();
    format!("[{}]", parts.join(", "))
}

fn py_float_list(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|&x| crate::py_float(x)).collect();
    format!("[{}]", parts.join(", "))
}

const MODES: &str = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | \
                     nearest-exact";

/// The input rank each mode takes (the nearest modes and area take 3, 4 or 5).
fn check_mode(mode: &str, dim: usize) -> Result<()> {
    let ok = match mode {
        "nearest" | "nearest-exact" | "area" => (3..=5).contains(&dim),
        "linear" => dim == 3,
        "bilinear" | "bicubic" => dim == 4,
        "trilinear" => dim == 5,
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let needs = match mode {
        "linear" => Some(3),
        "bilinear" => Some(4),
        "trilinear" => Some(5),
        _ => None,
    };
    match needs {
        Some(n) if (3..=5).contains(&dim) && !(mode == "linear" && dim == 3) => not_impl(format!(
            "Got {dim}D input, but {mode} mode needs {n}D input"
        )),
        _ => not_impl(format!(
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got {dim}D) for the modes: \
             {MODES} (got {mode})"
        )),
    }
}

/// torch's `F.interpolate(input, size=None, scale_factor=None, mode='nearest',
/// align_corners=None, recompute_scale_factor=None, antialias=False)`. `size` and
/// `scale_factor` take one value for every spatial dim or one per dim. `antialias=True` is
/// refused.
pub fn interpolate(
    input: &Tensor,
    size: Option<&[usize]>,
    scale_factor: Option<&[f64]>,
    mode: &str,
    align_corners: Option<bool>,
    recompute_scale_factor: Option<bool>,
    antialias: bool,
) -> Result<Tensor> {
    let span = Span::begin();
    let linear_like = matches!(mode, "linear" | "bilinear" | "bicubic" | "trilinear");
    let align = if linear_like {
        align_corners.unwrap_or(false)
    } else {
        if align_corners.is_some() && matches!(mode, "nearest" | "area" | "nearest-exact") {
            return value_err(
                "align_corners option can only be set with the interpolating modes: linear | \
                 bilinear | bicubic | trilinear",
            );
        }
        false
    };
    let shape = input.shape().to_vec();
    let k = shape.len().saturating_sub(2);
    let spatial = &shape[shape.len().min(2)..];
    let (mut out_size, mut scales): (Option<Vec<usize>>, Option<Vec<f64>>) =
        match (size, scale_factor) {
            (Some(_), Some(_)) => {
                return value_err("only one of size or scale_factor should be defined");
            }
            (Some(s), None) => {
                if s.len() != 1 && s.len() != k {
                    return value_err(format!(
                        "Input and output must have the same number of spatial dimensions, but \
                         got input with spatial dimensions of {} and output size of {}. Please \
                         provide input tensor in (N, C, d1, d2, ...,dK) format and output size \
                         in (o1, o2, ...,oK) format.",
                        py_list(spatial),
                        py_list(s)
                    ));
                }
                (
                    Some(if s.len() == k {
                        s.to_vec()
                    } else {
                        vec![s[0]; k]
                    }),
                    None,
                )
            }
            (None, Some(f)) => {
                if f.len() != 1 && f.len() != k {
                    return value_err(format!(
                        "Input and scale_factor must have the same number of spatial \
                         dimensions, but got input with spatial dimensions of {} and \
                         scale_factor of shape {}. Please provide input tensor in (N, C, d1, \
                         d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.",
                        py_list(spatial),
                        py_float_list(f)
                    ));
                }
                (
                    None,
                    Some(if f.len() == k {
                        f.to_vec()
                    } else {
                        vec![f[0]; k]
                    }),
                )
            }
            (None, None) => return value_err("either size or scale_factor should be defined"),
        };
    let mut recompute = recompute_scale_factor.unwrap_or(false);
    if recompute && size.is_some() {
        return value_err("recompute_scale_factor is not meaningful with an explicit size.");
    }
    if mode == "area" && out_size.is_none() {
        recompute = true;
    }
    if let Some(f) = &scales {
        let computed = spatial
            .iter()
            .zip(f)
            .map(|(&n, &s)| (n as f64 * s).floor().max(0.0) as usize);
        out_size = Some(computed.collect());
        if recompute {
            scales = None;
        }
    }
    if antialias && !(matches!(mode, "bilinear" | "bicubic") && shape.len() == 4) {
        return value_err(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires \
             a 4-D tensor as input",
        );
    }
    check_mode(mode, shape.len())?;
    if antialias {
        return not_impl("interpolate(): borch does not implement antialias=True");
    }
    let out_size = out_size.expect("set above");
    if spatial.iter().chain(&out_size).any(|&s| s == 0) {
        let names = ["D", "H", "W"];
        let name = &names[3 - k..];
        let fmt = |v: &[usize]| -> String {
            let p: Vec<String> = name
                .iter()
                .zip(v)
                .map(|(n, x)| format!("{n}: {x}"))
                .collect();
            p.join(", ")
        };
        return runtime(format!(
            "Input and output sizes should be greater than 0, but got input ({}) and output ({})",
            fmt(spatial),
            fmt(&out_size)
        ));
    }
    let mut x = input.clone();
    for i in 0..k {
        let (d, n, o) = (i + 2, spatial[i], out_size[i]);
        let scale = scales.as_ref().map(|s| s[i]);
        x = match mode {
            "nearest" | "nearest-exact" => {
                let idx = nearest_indices(n, o, scale, mode == "nearest-exact");
                x.index_select(d as isize, &index_tensor(&idx)?)?
            }
            "area" => along(&x, d, &area_matrix(n, o), o)?,
            "bicubic" => along(&x, d, &cubic_matrix(n, o, scale, align), o)?,
            _ => along(&x, d, &linear_matrix(n, o, scale, align), o)?,
        };
    }
    // Exporters see one op: the mode, the output's spatial sizes and, where torch computes
    // coordinates from the given scale factors, those.
    let mut attrs = vec![
        ("mode", Attr::Str(mode.to_string())),
        ("align_corners", Attr::Bool(align)),
        ("sizes", ints(&out_size)),
    ];
    if let Some(s) = scales {
        attrs.push(("scales", Attr::Floats(s)));
    }
    span.finish("interpolate", &[Some(input)], attrs, Ok(x))
}

/// torch's `compute_scales_value<float>`: `1 / scale` when given, else `in / out`.
fn scale_value(scale: Option<f64>, n: usize, o: usize) -> f32 {
    match scale {
        Some(s) if s > 0.0 => (1.0 / s) as f32,
        _ => n as f32 / o as f32,
    }
}

fn nearest_indices(n: usize, o: usize, scale: Option<f64>, exact: bool) -> Vec<i64> {
    let s = scale_value(scale, n, o);
    (0..o)
        .map(|j| {
            if !exact && o == n {
                j as i64
            } else if !exact && o == 2 * n {
                (j >> 1) as i64
            } else {
                let src = if exact {
                    ((j as f64 + 0.5) * f64::from(s)) as f32
                } else {
                    j as f32 * s
                };
                (src.floor() as i64).min(n as i64 - 1)
            }
        })
        .collect()
}

/// torch's `area_pixel_compute_scale<float>`.
fn area_scale(n: usize, o: usize, scale: Option<f64>, align: bool) -> f32 {
    if align {
        if o > 1 {
            (n as f32 - 1.0) / (o as f32 - 1.0)
        } else {
            0.0
        }
    } else {
        scale_value(scale, n, o)
    }
}

/// torch's `area_pixel_compute_source_index` then `guard_index_and_lambda`: the first tap and
/// the distance past it.
fn source(s: f32, j: usize, n: usize, align: bool, cubic: bool) -> (i64, f32) {
    let src = if align {
        s * j as f32
    } else {
        let v = s * (j as f32 + 0.5) - 0.5;
        if !cubic && v < 0.0 { 0.0 } else { v }
    };
    let i = (src.floor() as i64).min(n as i64 - 1);
    (i, (src - i as f32).clamp(0.0, 1.0))
}

fn linear_matrix(n: usize, o: usize, scale: Option<f64>, align: bool) -> Vec<f32> {
    let s = area_scale(n, o, scale, align);
    let mut m = vec![0f32; o * n];
    for j in 0..o {
        let (i0, l1) = source(s, j, n, align, false);
        let i1 = if i0 < n as i64 - 1 { i0 + 1 } else { i0 };
        m[j * n + i0 as usize] += 1.0 - l1;
        m[j * n + i1 as usize] += l1;
    }
    m
}

fn cubic_matrix(n: usize, o: usize, scale: Option<f64>, align: bool) -> Vec<f32> {
    const A: f32 = -0.75;
    let c1 = |x: f32| ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0;
    let c2 = |x: f32| ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A;
    let s = area_scale(n, o, scale, align);
    let mut m = vec![0f32; o * n];
    for j in 0..o {
        let (i, t) = source(s, j, n, align, true);
        let w = [c2(t + 1.0), c1(t), c1(1.0 - t), c2(2.0 - t)];
        for (tap, wt) in w.iter().enumerate() {
            let src = (i - 1 + tap as i64).clamp(0, n as i64 - 1) as usize;
            m[j * n + src] += wt;
        }
    }
    m
}

/// Adaptive average pooling's windows: `[floor(j n / o), ceil((j + 1) n / o))`.
fn area_matrix(n: usize, o: usize) -> Vec<f32> {
    let mut m = vec![0f32; o * n];
    for j in 0..o {
        let (start, end) = (j * n / o, ((j + 1) * n).div_ceil(o));
        for i in start..end {
            m[j * n + i] = 1.0 / (end - start) as f32;
        }
    }
    m
}

fn ishape(s: &[usize]) -> Vec<isize> {
    s.iter().map(|&x| x as isize).collect()
}

/// torch's `F.pixel_shuffle(input, upscale_factor)`: `(*, C r², H, W)` → `(*, C, H r, W r)`.
pub fn pixel_shuffle(input: &Tensor, upscale_factor: usize) -> Result<Tensor> {
    let s = input.shape().to_vec();
    if s.len() < 3 {
        return runtime(format!(
            "pixel_shuffle expects input to have at least 3 dimensions, but got input with {} \
             dimension(s)",
            s.len()
        ));
    }
    let r = upscale_factor;
    let n = s.len();
    let (c, h, w) = (s[n - 3], s[n - 2], s[n - 1]);
    if r == 0 || !c.is_multiple_of(r * r) {
        return runtime(format!(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square \
             of upscale_factor, but input.size(-3)={c} is not divisible by {}",
            r * r
        ));
    }
    let batch = &s[..n - 3];
    let mut split = ishape(batch);
    split.extend([
        (c / (r * r)) as isize,
        r as isize,
        r as isize,
        h as isize,
        w as isize,
    ]);
    let b = batch.len() as isize;
    let mut perm: Vec<isize> = (0..b).collect();
    perm.extend([b, b + 3, b + 1, b + 4, b + 2]);
    let mut out = ishape(batch);
    out.extend([(c / (r * r)) as isize, (h * r) as isize, (w * r) as isize]);
    input.reshape(&split)?.permute(&perm)?.reshape(&out)
}

/// torch's `F.pixel_unshuffle(input, downscale_factor)`: `(*, C, H r, W r)` → `(*, C r², H, W)`.
pub fn pixel_unshuffle(input: &Tensor, downscale_factor: usize) -> Result<Tensor> {
    let s = input.shape().to_vec();
    if s.len() < 3 {
        return runtime(format!(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input with {} \
             dimension(s)",
            s.len()
        ));
    }
    let r = downscale_factor;
    let n = s.len();
    let (c, h, w) = (s[n - 3], s[n - 2], s[n - 1]);
    for (what, i, v) in [("height", -2, h), ("width", -1, w)] {
        if r == 0 || !v.is_multiple_of(r) {
            return runtime(format!(
                "pixel_unshuffle expects {what} to be divisible by downscale_factor, but \
                 input.size({i})={v} is not divisible by {r}"
            ));
        }
    }
    let batch = &s[..n - 3];
    let mut split = ishape(batch);
    split.extend([
        c as isize,
        (h / r) as isize,
        r as isize,
        (w / r) as isize,
        r as isize,
    ]);
    let b = batch.len() as isize;
    let mut perm: Vec<isize> = (0..b).collect();
    perm.extend([b, b + 2, b + 4, b + 1, b + 3]);
    let mut out = ishape(batch);
    out.extend([(c * r * r) as isize, (h / r) as isize, (w / r) as isize]);
    input.reshape(&split)?.permute(&perm)?.reshape(&out)
}

/// torch's `F.channel_shuffle(input, groups)`: `(N, g·k, *)` → the channels of each group
/// interleaved.
pub fn channel_shuffle(input: &Tensor, groups: usize) -> Result<Tensor> {
    let s = input.shape().to_vec();
    if s.len() <= 2 {
        return runtime(format!(
            "channel_shuffle expects input with > 2 dims, but got input with sizes {}",
            py_list(&s)
        ));
    }
    if groups == 0 {
        return runtime(format!(
            "Number of groups to divide channels in must be positive. Value of groups:{groups}"
        ));
    }
    let c = s[1];
    if !c.is_multiple_of(groups) {
        return runtime(format!(
            "Number of channels must be divisible by groups. Got {c} channels and {groups} \
             groups."
        ));
    }
    let mut split = vec![s[0] as isize, groups as isize, (c / groups) as isize];
    split.extend(ishape(&s[2..]));
    input.reshape(&split)?.transpose(1, 2)?.reshape(&ishape(&s))
}
