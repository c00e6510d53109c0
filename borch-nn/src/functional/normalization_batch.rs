//! torch's `F.batch_norm`, `F.instance_norm`, `F.group_norm`, `F.local_response_norm` and
//! `F.normalize`, composed from reductions and elementwise ops (so their gradients come from
//! those ops). Running statistics are updated in place without recording, as torch: the mean,
//! and the unbiased variance, blended with `momentum` (or with `1 / num_batches_tracked`, torch's
//! cumulative average for `momentum=None`, computed on the device). `F.batch_norm` runs
//! borch-tensor's fused kernels (`batch_norm_fused`) wherever they apply; the composed path
//! below stays for the rest.

use borch_autograd::no_grad;
use borch_tensor::{BatchNormMomentum, BorchError, DType, HostData, Result, Tensor};

/// How running statistics are blended with a batch's: torch's `momentum`, or the cumulative
/// average `1 / num_batches_tracked` (`momentum=None` in the modules).
#[derive(Clone, Copy)]
pub enum Momentum<'a> {
    /// torch's `momentum`.
    Value(f64),
    /// `momentum=None`: the cumulative average over `num_batches_tracked`.
    Cumulative(&'a Tensor),
}

fn runtime<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Runtime(msg.into()))
}

fn value_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Value(msg.into()))
}

fn fmt_shape(s: &[usize]) -> String {
    let parts: Vec<String> = s.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// Python's `torch.Size([2, 3])`.
fn torch_size(s: &[usize]) -> String {
    format!("torch.Size({})", fmt_shape(s))
}

/// `[1, C, 1, …]` for a per-channel vector against an input of `dim` dims.
fn channel_view(v: &Tensor, dim: usize) -> Result<Tensor> {
    let mut shape = vec![1isize; dim.max(2)];
    shape[1] = -1;
    v.reshape(&shape)
}

fn affine(x: Tensor, weight: Option<&Tensor>, bias: Option<&Tensor>, dim: usize) -> Result<Tensor> {
    let x = match weight {
        Some(w) => x.mul(&channel_view(w, dim)?)?,
        None => x,
    };
    match bias {
        Some(b) => x.add(&channel_view(b, dim)?),
        None => Ok(x),
    }
}

fn check_numel(t: Option<&Tensor>, name: &str, c: usize) -> Result<()> {
    match t {
        Some(t) if t.numel() != c => runtime(format!(
            "{name} should contain {c} elements not {}",
            t.numel()
        )),
        _ => Ok(()),
    }
}

/// Blend `stat` (shape `[C]`, the batch's) into `running` in place, without recording.
fn blend(running: &Tensor, stat: &Tensor, momentum: Momentum) -> Result<()> {
    no_grad(|| {
        let stat = stat.detach();
        let new = match momentum {
            Momentum::Value(m) => running.mul(1.0 - m)?.add(&stat.mul(m)?)?,
            Momentum::Cumulative(n) => {
                let factor = n.to_dtype(DType::Float32)?.reciprocal()?;
                running.add(&stat.sub(running)?.mul(&factor)?)?
            }
        };
        running.copy_(&new)
    })
}

/// torch's `F.batch_norm(input, running_mean, running_var, weight=None, bias=None,
/// training=False, momentum=0.1, eps=1e-5)`.
#[allow(clippy::too_many_arguments)]
pub fn batch_norm(
    input: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    momentum: Momentum,
    eps: f64,
) -> Result<Tensor> {
    batch_norm_counting(
        input,
        running_mean,
        running_var,
        weight,
        bias,
        training,
        momentum,
        eps,
        None,
    )
}

/// `batch_norm` that first adds 1 to `count` (the modules' `num_batches_tracked`, which
/// `Momentum::Cumulative` then reads): inside the fused kernels where they run, so a module's
/// training forward stays two dispatches.
#[allow(clippy::too_many_arguments)]
pub(crate) fn batch_norm_counting(
    input: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    momentum: Momentum,
    eps: f64,
    count: Option<&Tensor>,
) -> Result<Tensor> {
    use borch_tensor::op_trace::{Attr, Span};
    let span = Span::begin();
    let out = batch_norm_counting_inner(
        input,
        running_mean,
        running_var,
        weight,
        bias,
        training,
        momentum,
        eps,
        count,
    );
    let attrs = vec![
        ("epsilon", Attr::Float(eps)),
        ("training", Attr::Bool(training)),
    ];
    let inputs = [Some(input), weight, bias, running_mean, running_var];
    span.finish("batch_norm", &inputs, attrs, out)
}

#[allow(clippy::too_many_arguments)]
fn batch_norm_counting_inner(
    input: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    momentum: Momentum,
    eps: f64,
    count: Option<&Tensor>,
) -> Result<Tensor> {
    let shape = input.shape().to_vec();
    let c = if shape.len() >= 2 { shape[1] } else { 0 };
    let checked = (|| {
        if training {
            let prod: usize =
                shape.first().copied().unwrap_or(1) * shape.iter().skip(2).product::<usize>();
            if prod == 1 {
                return value_err(format!(
                    "Expected more than 1 value per channel when training, got input size {}",
                    torch_size(&shape)
                ));
            }
        }
        check_numel(running_mean, "running_mean", c)?;
        check_numel(running_var, "running_var", c)?;
        check_numel(weight, "weight", c)?;
        check_numel(bias, "bias", c)
    })();
    if let Err(e) = checked {
        if let Some(n) = count {
            // torch's module counts the batch before F.batch_norm refuses it.
            no_grad(|| n.add_(1, 1.0))?;
        }
        return Err(e);
    }
    let dim = shape.len();
    let stats = [running_mean, running_var];
    let eval_ready = training || (running_mean.is_some() && running_var.is_some());
    if eval_ready && borch_tensor::batch_norm_fusable(input, &stats) {
        let momentum = match momentum {
            Momentum::Value(m) => BatchNormMomentum::Value(m),
            Momentum::Cumulative(n) => BatchNormMomentum::Cumulative(n),
        };
        let (rm, rv) = match (running_mean, running_var) {
            (Some(m), Some(v)) => (Some(m), Some(v)),
            _ => (None, None),
        };
        return borch_tensor::batch_norm_fused(
            input, rm, rv, weight, bias, training, momentum, eps, count,
        );
    }
    if let Some(n) = count {
        no_grad(|| n.add_(1, 1.0))?;
    }
    let normed = if training {
        let dims: Vec<isize> = (0..dim as isize).filter(|&d| d != 1).collect();
        let mean = input.mean(Some(&dims), true)?;
        let var = input.var(Some(&dims), 0.0, true)?;
        if let (Some(rm), Some(rv)) = (running_mean, running_var) {
            let n = (input.numel() / c.max(1)) as f64;
            blend(rm, &mean.reshape(&[-1])?, momentum)?;
            let unbiased = var.reshape(&[-1])?.mul(n / (n - 1.0).max(1.0))?;
            blend(rv, &unbiased, momentum)?;
        }
        input.sub(&mean)?.mul(&var.add(eps)?.rsqrt()?)?
    } else {
        let Some(rm) = running_mean else {
            return runtime("running_mean must be defined in evaluation mode");
        };
        let Some(rv) = running_var else {
            return runtime("running_var must be defined in evaluation mode");
        };
        let (rm, rv) = (
            channel_view(&rm.detach(), dim)?,
            channel_view(&rv.detach(), dim)?,
        );
        input.sub(&rm)?.mul(&rv.add(eps)?.rsqrt()?)?
    };
    affine(normed, weight, bias, dim)
}

/// torch's `F.instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
/// use_input_stats=True, momentum=0.1, eps=1e-5)`: each sample's channels normalized over
/// their spatial dims; running statistics (when given) blend the batch-averaged instance
/// statistics.
#[allow(clippy::too_many_arguments)]
pub fn instance_norm(
    input: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    use_input_stats: bool,
    momentum: f64,
    eps: f64,
) -> Result<Tensor> {
    let shape = input.shape().to_vec();
    if use_input_stats && shape.iter().skip(2).product::<usize>() == 1 {
        return value_err(format!(
            "Expected more than 1 spatial element when training, got input size {}",
            torch_size(&shape)
        ));
    }
    if !use_input_stats && (running_mean.is_none() || running_var.is_none()) {
        return runtime(
            "Expected running_mean and running_var to be defined when use_input_stats is false",
        );
    }
    let c = if shape.len() >= 2 { shape[1] } else { 0 };
    check_numel(running_mean, "running_mean", c)?;
    check_numel(running_var, "running_var", c)?;
    check_numel(weight, "weight", c)?;
    check_numel(bias, "bias", c)?;
    let dim = shape.len();
    let normed = if use_input_stats {
        let dims: Vec<isize> = (2..dim as isize).collect();
        let mean = input.mean(Some(&dims), true)?;
        let var = input.var(Some(&dims), 0.0, true)?;
        if let (Some(rm), Some(rv)) = (running_mean, running_var) {
            let n = shape.iter().skip(2).product::<usize>() as f64;
            let per = |t: &Tensor| {
                t.reshape(&[shape[0] as isize, c as isize])?
                    .mean(Some(&[0]), false)
            };
            blend(rm, &per(&mean)?, Momentum::Value(momentum))?;
            let unbiased = var.mul(n / (n - 1.0).max(1.0))?;
            blend(rv, &per(&unbiased)?, Momentum::Value(momentum))?;
        }
        input.sub(&mean)?.mul(&var.add(eps)?.rsqrt()?)?
    } else {
        let rm = channel_view(&running_mean.expect("checked").detach(), dim)?;
        let rv = channel_view(&running_var.expect("checked").detach(), dim)?;
        input.sub(&rm)?.mul(&rv.add(eps)?.rsqrt()?)?
    };
    affine(normed, weight, bias, dim)
}

/// torch's `F.group_norm(input, num_groups, weight=None, bias=None, eps=1e-5)`.
pub fn group_norm(
    input: &Tensor,
    num_groups: usize,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let shape = input.shape().to_vec();
    if shape.len() < 2 {
        return runtime(format!(
            "Expected at least 2 dimensions for input tensor but received {}",
            shape.len()
        ));
    }
    let c = shape[1];
    if num_groups == 0 || !c.is_multiple_of(num_groups) {
        return runtime(format!(
            "Expected number of channels in input to be divisible by num_groups, but got input \
             of shape {} and num_groups={num_groups}",
            fmt_shape(&shape)
        ));
    }
    for (t, name) in [(weight, "weight"), (bias, "bias")] {
        if let Some(t) = t
            && (t.dim() != 1 || t.numel() != c)
        {
            return runtime(format!(
                "Expected {name} to be a vector of size equal to the number of channels in \
                 input, but got {name} of shape {} and input of shape {}",
                fmt_shape(t.shape()),
                fmt_shape(&shape)
            ));
        }
    }
    let grouped = input.reshape(&[shape[0] as isize, num_groups as isize, -1])?;
    let mean = grouped.mean(Some(&[2]), true)?;
    let var = grouped.var(Some(&[2]), 0.0, true)?;
    let normed = grouped.sub(&mean)?.mul(&var.add(eps)?.rsqrt()?)?;
    let dims: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
    affine(normed.reshape(&dims)?, weight, bias, shape.len())
}

/// `x` with the matrix `m` (`[out, in]`, row-major) applied along `dim`: `y[.., o, ..] =
/// Σ_i m[o][i] x[.., i, ..]`, as one matmul.
pub(crate) fn along(x: &Tensor, dim: usize, m: &[f32], out: usize) -> Result<Tensor> {
    let n = x.shape()[dim];
    // The matmul's right operand is `[in, out]`: m transposed.
    let mut mt = vec![0f32; n * out];
    for o in 0..out {
        for i in 0..n {
            mt[i * out + o] = m[o * n + i];
        }
    }
    let mt = Tensor::from_host(&HostData::F32(mt), &[n, out])?;
    let last = x.dim() as isize - 1;
    let d = dim as isize;
    x.transpose(d, last)?.matmul(&mt)?.transpose(d, last)
}

/// torch's `F.local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0)`: `x / (k + alpha
/// * mean of x² over a window of `size` channels)^beta`, the window zero-padded by `size // 2`
/// before and `(size - 1) // 2` after.
pub fn local_response_norm(
    input: &Tensor,
    size: usize,
    alpha: f64,
    beta: f64,
    k: f64,
) -> Result<Tensor> {
    if input.dim() < 3 {
        return value_err(format!(
            "Expected 3D or higher dimensionality                          input (got {} \
             dimensions)",
            input.dim()
        ));
    }
    if input.numel() == 0 {
        return Ok(input.clone());
    }
    let c = input.shape()[1];
    let (before, after) = ((size / 2) as isize, ((size.max(1) - 1) / 2) as isize);
    let mut band = vec![0f32; c * c];
    for o in 0..c as isize {
        for i in (o - before).max(0)..=(o + after).min(c as isize - 1) {
            band[o as usize * c + i as usize] = 1.0 / size as f32;
        }
    }
    let div = along(&input.mul(input)?, 1, &band, c)?;
    let div = div.mul(alpha)?.add(k)?.pow(beta)?;
    input.div(&div)
}

/// torch's `F.normalize(input, p=2.0, dim=1, eps=1e-12)`: `input / max(‖input‖_p, eps)` along
/// `dim`.
pub fn normalize(input: &Tensor, p: f64, dim: isize, eps: f64) -> Result<Tensor> {
    let denom = input.norm(p, Some(&[dim]), true)?.clamp_min(eps)?;
    input.div(&denom.expand_as(input)?)
}
