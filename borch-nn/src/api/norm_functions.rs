//! The `torch.nn.functional` catalog entries of normalization, padding and resampling
//! (`F.batch_norm`, `F.pad`, `F.interpolate`, `F.fold`, …), appended to [`super::entries`].

use borch_tensor::api::{Args, Call, Entry, Form, Returns, Value, parse_params};
use borch_tensor::{BorchError, Result, Tensor};

use crate::functional as F;

type Body = fn(&Args) -> Result<Value>;

fn entry(name: &'static str, params: &str, body: Body) -> Entry {
    Entry {
        name,
        form: Form::Function,
        params: parse_params(params),
        returns: Returns::Tensor,
        call: Call::Fn(body),
    }
}

fn ok(r: Result<Tensor>) -> Result<Value> {
    r.map(Value::Tensor)
}

/// `scale_factor`: `None`, a number, or a list of numbers.
fn scale_factor(a: &Args, i: usize) -> Result<Option<Vec<f64>>> {
    let num = |v: &Value| match v {
        Value::Int(x) => Ok(*x as f64),
        Value::Float(x) => Ok(*x),
        other => Err(BorchError::Type(format!(
            "interpolate(): argument 'scale_factor' must be float or tuple of floats, not {}",
            other.type_name()
        ))),
    };
    match a.get(i) {
        Value::None => Ok(None),
        Value::List(items) => items.iter().map(num).collect::<Result<Vec<_>>>().map(Some),
        v => num(v).map(|x| Some(vec![x])),
    }
}

fn opt_bool(a: &Args, i: usize) -> Result<Option<bool>> {
    match a.get(i) {
        Value::None => Ok(None),
        _ => a.bool(i).map(Some),
    }
}

fn interpolate(a: &Args, mode: &str, align: Option<bool>) -> Result<Value> {
    let size = a.opt_sizes(1)?;
    ok(F::interpolate(
        &a.tensor(0)?,
        size.as_deref(),
        scale_factor(a, 2)?.as_deref(),
        mode,
        align,
        None,
        false,
    ))
}

fn blocks(a: &Args, kernel: usize) -> Result<F::Blocks> {
    F::Blocks::new(
        &a.sizes(kernel)?,
        &a.sizes(kernel + 1)?,
        &a.sizes(kernel + 2)?,
        &a.sizes(kernel + 3)?,
    )
}

/// The entries.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<Entry> {
    vec![
        entry("batch_norm", "input: Tensor, running_mean: Tensor = None, running_var: Tensor = None, \
               weight: Tensor = None, bias: Tensor = None, training: Bool = False, momentum: Float = 0.1, \
               eps: Float = 1e-05",
            |a| {
                let (rm, rv, w, b) = (a.opt_tensor(1)?, a.opt_tensor(2)?, a.opt_tensor(3)?, a.opt_tensor(4)?);
                ok(F::batch_norm(&a.tensor(0)?, rm.as_ref(), rv.as_ref(), w.as_ref(), b.as_ref(),
                    a.bool(5)?, F::Momentum::Value(a.f64(6)?), a.f64(7)?))
            }),
        entry("instance_norm", "input: Tensor, running_mean: Tensor = None, running_var: Tensor = None, \
               weight: Tensor = None, bias: Tensor = None, use_input_stats: Bool = True, \
               momentum: Float = 0.1, eps: Float = 1e-05",
            |a| {
                let (rm, rv, w, b) = (a.opt_tensor(1)?, a.opt_tensor(2)?, a.opt_tensor(3)?, a.opt_tensor(4)?);
                ok(F::instance_norm(&a.tensor(0)?, rm.as_ref(), rv.as_ref(), w.as_ref(), b.as_ref(),
                    a.bool(5)?, a.f64(6)?, a.f64(7)?))
            }),
        entry("group_norm", "input: Tensor, num_groups: Int, weight: Tensor = None, bias: Tensor = None, \
               eps: Float = 1e-05",
            |a| ok(F::group_norm(&a.tensor(0)?, a.usize(1)?, a.opt_tensor(2)?.as_ref(),
                a.opt_tensor(3)?.as_ref(), a.f64(4)?))),
        entry("local_response_norm", "input: Tensor, size: Int, alpha: Float = 0.0001, beta: Float = 0.75, \
               k: Float = 1.0",
            |a| ok(F::local_response_norm(&a.tensor(0)?, a.usize(1)?, a.f64(2)?, a.f64(3)?, a.f64(4)?))),
        entry("normalize", "input: Tensor, p: Float = 2.0, dim: Int = 1, eps: Float = 1e-12, out: Tensor = None",
            |a| {
                if !a.get(4).is_none() {
                    return Err(BorchError::NotImplemented("normalize(): borch has no out= tensors".into()));
                }
                ok(F::normalize(&a.tensor(0)?, a.f64(1)?, a.int(2)?, a.f64(3)?))
            }),
        entry("pad", "input: Tensor, pad: Ints, mode: Str = 'constant', value: Float = None",
            |a| ok(F::pad(&a.tensor(0)?, &a.ints(1)?, a.str(2)?, a.opt_f64(3)?))),
        entry("interpolate", "input: Tensor, size: Ints = None, scale_factor: Float = None, \
               mode: Str = 'nearest', align_corners: Bool = None, recompute_scale_factor: Bool = None, \
               antialias: Bool = False",
            |a| {
                let size = a.opt_sizes(1)?;
                ok(F::interpolate(&a.tensor(0)?, size.as_deref(), scale_factor(a, 2)?.as_deref(),
                    a.str(3)?, opt_bool(a, 4)?, opt_bool(a, 5)?, a.bool(6)?))
            }),
        entry("upsample", "input: Tensor, size: Ints = None, scale_factor: Float = None, \
               mode: Str = 'nearest', align_corners: Bool = None",
            |a| {
                let mode = a.str(3)?.to_string();
                interpolate(a, &mode, opt_bool(a, 4)?)
            }),
        entry("upsample_nearest", "input: Tensor, size: Ints = None, scale_factor: Float = None",
            |a| interpolate(a, "nearest", None)),
        entry("upsample_bilinear", "input: Tensor, size: Ints = None, scale_factor: Float = None",
            |a| interpolate(a, "bilinear", Some(true))),
        entry("pixel_shuffle", "input: Tensor, upscale_factor: Int",
            |a| ok(F::pixel_shuffle(&a.tensor(0)?, a.usize(1)?))),
        entry("pixel_unshuffle", "input: Tensor, downscale_factor: Int",
            |a| ok(F::pixel_unshuffle(&a.tensor(0)?, a.usize(1)?))),
        entry("channel_shuffle", "input: Tensor, groups: Int",
            |a| ok(F::channel_shuffle(&a.tensor(0)?, a.usize(1)?))),
        entry("native_channel_shuffle", "input: Tensor, groups: Int",
            |a| ok(F::channel_shuffle(&a.tensor(0)?, a.usize(1)?))),
        entry("unfold", "input: Tensor, kernel_size: Ints, dilation: Ints = 1, padding: Ints = 0, \
               stride: Ints = 1",
            |a| ok(F::unfold(&a.tensor(0)?, &blocks(a, 1)?))),
        entry("fold", "input: Tensor, output_size: Ints, kernel_size: Ints, dilation: Ints = 1, \
               padding: Ints = 0, stride: Ints = 1",
            |a| ok(F::fold(&a.tensor(0)?, &a.sizes(1)?, &blocks(a, 2)?))),
    ]
}
