//! The pooling functions torch writes in Python over its core ops: `lp_pool1d/2d/3d` (an
//! average pooling of `x^p`) and `max_unpool1d/2d/3d` (the output size from the pooling's
//! arguments, then the core's unpooling).

use borch_tensor::{BorchError, Result, Tensor, avg_pool1d, avg_pool2d, avg_pool3d, max_unpool};

fn value_err<T>(msg: String) -> Result<T> {
    Err(BorchError::Value(msg))
}

/// One value per pooled dim (torch's `_single` / `_pair` / `_triple`).
fn per_dim(v: &[isize], n: usize, name: &str) -> Result<Vec<isize>> {
    match v.len() {
        1 => Ok(vec![v[0]; n]),
        len if len == n => Ok(v.to_vec()),
        len => Err(BorchError::Runtime(format!(
            "{name} must be an int or a tuple of {n} ints, got {len} values"
        ))),
    }
}

/// torch's `(sign(out) * relu(abs(out))).mul(taps).pow(1 / norm_type)` after the average pooling.
fn lp_finish(out: &Tensor, taps: isize, norm_type: f64) -> Result<Tensor> {
    out.sign()?
        .mul(&out.abs()?.relu()?)?
        .mul(taps as i64)?
        .pow(1.0 / norm_type)
}

/// torch's `F.lp_pool{n}d`: the average pooling of `x^p` over `n` dims, times the taps, to the
/// power `1 / p` (lp_pool1d takes its kernel size as given, the others one per dim).
fn lp_pool(
    n: usize,
    input: &Tensor,
    norm_type: f64,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    ceil_mode: bool,
) -> Result<Tensor> {
    let taps: isize = match n {
        1 => kernel_size.iter().product(),
        _ => per_dim(kernel_size, n, "kernel_size")?.iter().product(),
    };
    let x = input.pow(norm_type)?;
    let out = match n {
        1 => avg_pool1d(&x, kernel_size, stride, &[0], ceil_mode, true),
        2 => avg_pool2d(&x, kernel_size, stride, &[0], ceil_mode, true, None),
        _ => avg_pool3d(&x, kernel_size, stride, &[0], ceil_mode, true, None),
    }?;
    lp_finish(&out, taps, norm_type)
}

/// torch's `F.lp_pool{1,2,3}d(input, norm_type, kernel_size, stride=None, ceil_mode=False)`.
macro_rules! lp_pool_fns {
    ($($name:ident = $n:literal),*) => {
        $(
            #[doc = concat!("torch's `F.", stringify!($name), "(input, norm_type, kernel_size, stride=None, ceil_mode=False)`.")]
            pub fn $name(
                input: &Tensor,
                norm_type: f64,
                kernel_size: &[isize],
                stride: Option<&[isize]>,
                ceil_mode: bool,
            ) -> Result<Tensor> {
                lp_pool($n, input, norm_type, kernel_size, stride, ceil_mode)
            }
        )*
    };
}

lp_pool_fns!(lp_pool1d = 1, lp_pool2d = 2, lp_pool3d = 3);

/// torch's `_unpool_output_size`: the pooling's input size recovered from its arguments, or
/// `output_size` (its last `n` sizes) checked to lie within a stride of it.
fn unpool_output_size(
    input: &Tensor,
    kernel: &[isize],
    stride: &[isize],
    padding: &[isize],
    output_size: Option<&[isize]>,
) -> Result<Vec<usize>> {
    let n = kernel.len();
    let r = input.dim();
    if r < n {
        return value_err(format!(
            "max_unpool: expected an input with at least {n} dims, got {r}"
        ));
    }
    let default: Vec<isize> = (0..n)
        .map(|d| (input.shape()[r - n + d] as isize - 1) * stride[d] + kernel[d] - 2 * padding[d])
        .collect();
    let Some(given) = output_size else {
        return Ok(default.iter().map(|&v| v.max(0) as usize).collect());
    };
    let given = if given.len() == n + 2 {
        &given[2..]
    } else {
        given
    };
    if given.len() != n {
        return value_err(format!(
            "output_size should be a sequence containing {n} or {} elements, but it has a \
             length of '{}'",
            n + 2,
            given.len()
        ));
    }
    for d in 0..n {
        let (lo, hi) = (default[d] - stride[d], default[d] + stride[d]);
        if !(lo < given[d] && given[d] < hi) {
            let shown: Vec<String> = given.iter().map(isize::to_string).collect();
            return value_err(format!(
                "invalid output_size \"[{}]\" (dim {d} must be between {lo} and {hi})",
                shown.join(", ")
            ));
        }
    }
    Ok(given.iter().map(|&v| v as usize).collect())
}

/// The output size of an unpooling of `n` dims: its kernel, stride (the kernel when omitted)
/// and padding read, then `unpool_output_size`.
fn unpool_size(
    n: usize,
    input: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    output_size: Option<&[isize]>,
) -> Result<Vec<usize>> {
    let kernel = per_dim(kernel_size, n, "kernel_size")?;
    let stride = match stride {
        None | Some([]) => kernel.clone(),
        Some(s) => per_dim(s, n, "stride")?,
    };
    let padding = per_dim(padding, n, "padding")?;
    unpool_output_size(input, &kernel, &stride, &padding, output_size)
}

/// torch's `F.max_unpool1d(input, indices, kernel_size, stride=None, padding=0,
/// output_size=None)`: the 2-D unpooling over planes of width 1.
pub fn max_unpool1d(
    input: &Tensor,
    indices: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    output_size: Option<&[isize]>,
) -> Result<Tensor> {
    let mut size = unpool_size(1, input, kernel_size, stride, padding, output_size)?;
    size.push(1);
    max_unpool(&input.unsqueeze(-1)?, &indices.unsqueeze(-1)?, &size)?.squeeze_dims(&[-1])
}

/// torch's `F.max_unpool2d(input, indices, kernel_size, stride=None, padding=0,
/// output_size=None)`: each value placed at its index (`h * W + w`) in zeros.
pub fn max_unpool2d(
    input: &Tensor,
    indices: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    output_size: Option<&[isize]>,
) -> Result<Tensor> {
    max_unpool(
        input,
        indices,
        &unpool_size(2, input, kernel_size, stride, padding, output_size)?,
    )
}

/// torch's `F.max_unpool3d(input, indices, kernel_size, stride=None, padding=0,
/// output_size=None)`.
pub fn max_unpool3d(
    input: &Tensor,
    indices: &Tensor,
    kernel_size: &[isize],
    stride: Option<&[isize]>,
    padding: &[isize],
    output_size: Option<&[isize]>,
) -> Result<Tensor> {
    max_unpool(
        input,
        indices,
        &unpool_size(3, input, kernel_size, stride, padding, output_size)?,
    )
}
