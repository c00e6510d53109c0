//! `torch.nn.functional` as a catalog that bindings forward to: each function of
//! [`functional`](crate::functional) by torch's name, with torch's parameters, order and
//! defaults, built from the core's [`Entry`]s and bound by the core's binder
//! (`borch_tensor::api::call_in`), so a binding keeps no second list and computes nothing itself.

use std::sync::OnceLock;

use borch_tensor::api::{self, Args, Call, Entry, Form, Returns, Value, parse_params};
use borch_tensor::{BorchError, Result, Tensor};

use crate::functional as F;
use crate::reduction::Reduction;

mod attention;
pub(crate) mod fractional;
mod more;
mod norm_functions;

/// The module name in errors (`module 'torch.nn.functional' has no attribute 'x'`).
pub const MODULE: &str = "torch.nn.functional";

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

fn reduction(a: &Args, i: usize) -> Result<Reduction> {
    a.str(i)?.parse()
}

/// torch's deprecated `size_average` and `reduce`, which borch does not take.
fn legacy(a: &Args, name: &str, size_average: usize, reduce: usize) -> Result<()> {
    if a.get(size_average).is_none() && a.get(reduce).is_none() {
        return Ok(());
    }
    Err(BorchError::NotImplemented(format!(
        "{name}(): borch does not take the deprecated size_average and reduce: pass reduction"
    )))
}

/// `inplace=True`, which borch's functional ops do not offer.
fn not_in_place(a: &Args, name: &str, i: usize) -> Result<()> {
    if a.bool(i)? {
        return Err(BorchError::NotImplemented(format!(
            "{name}(): borch has no in-place form (inplace=True)"
        )));
    }
    Ok(())
}

/// softmax's `dtype=`: the input cast before the op, as torch.
fn cast(a: &Args, i: usize) -> Result<Tensor> {
    let x = a.tensor(0)?;
    match a.dtype(i)? {
        Some(d) => x.to_dtype(d),
        None => Ok(x),
    }
}

/// The catalog, built once.
#[rustfmt::skip]
pub fn entries() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| vec![
        entry("relu", "input: Tensor, inplace: Bool = False",
            |a| { not_in_place(a, "relu", 1)?; ok(F::relu(&a.tensor(0)?)) }),
        entry("relu6", "input: Tensor, inplace: Bool = False",
            |a| { not_in_place(a, "relu6", 1)?; ok(F::relu6(&a.tensor(0)?)) }),
        entry("leaky_relu", "input: Tensor, negative_slope: Float = 0.01, inplace: Bool = False",
            |a| { not_in_place(a, "leaky_relu", 2)?; ok(F::leaky_relu(&a.tensor(0)?, a.f64(1)?)) }),
        entry("elu", "input: Tensor, alpha: Float = 1.0, inplace: Bool = False",
            |a| { not_in_place(a, "elu", 2)?; ok(F::elu(&a.tensor(0)?, a.f64(1)?)) }),
        entry("selu", "input: Tensor, inplace: Bool = False",
            |a| { not_in_place(a, "selu", 1)?; ok(F::selu(&a.tensor(0)?)) }),
        entry("gelu", "input: Tensor, approximate: Str = 'none'",
            |a| ok(F::gelu(&a.tensor(0)?, a.str(1)?))),
        entry("silu", "input: Tensor, inplace: Bool = False",
            |a| { not_in_place(a, "silu", 1)?; ok(F::silu(&a.tensor(0)?)) }),
        entry("mish", "input: Tensor, inplace: Bool = False",
            |a| { not_in_place(a, "mish", 1)?; ok(F::mish(&a.tensor(0)?)) }),
        entry("sigmoid", "input: Tensor", |a| ok(F::sigmoid(&a.tensor(0)?))),
        entry("tanh", "input: Tensor", |a| ok(F::tanh(&a.tensor(0)?))),
        entry("hardtanh", "input: Tensor, min_val: Float = -1.0, max_val: Float = 1.0, inplace: Bool = False",
            |a| { not_in_place(a, "hardtanh", 3)?; ok(F::hardtanh(&a.tensor(0)?, a.f64(1)?, a.f64(2)?)) }),
        entry("hardswish", "input: Tensor, inplace: Bool = False",
            |a| { not_in_place(a, "hardswish", 1)?; ok(F::hardswish(&a.tensor(0)?)) }),
        entry("softplus", "input: Tensor, beta: Float = 1.0, threshold: Float = 20.0",
            |a| ok(F::softplus(&a.tensor(0)?, a.f64(1)?, a.f64(2)?))),
        entry("softmax", "input: Tensor, dim: Int = None, _stacklevel: Int = 3, dtype: DType = None",
            |a| ok(F::softmax(&cast(a, 3)?, a.opt_int(1)?))),
        entry("log_softmax", "input: Tensor, dim: Int = None, _stacklevel: Int = 3, dtype: DType = None",
            |a| ok(F::log_softmax(&cast(a, 3)?, a.opt_int(1)?))),
        entry("dropout", "input: Tensor, p: Float = 0.5, training: Bool = True, inplace: Bool = False",
            |a| { not_in_place(a, "dropout", 3)?; ok(F::dropout(&a.tensor(0)?, a.f64(1)?, a.bool(2)?)) }),
        entry("linear", "input: Tensor, weight: Tensor, bias: Tensor = None",
            |a| ok(F::linear(&a.tensor(0)?, &a.tensor(1)?, a.opt_tensor(2)?.as_ref()))),
        entry("bilinear", "input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor = None",
            |a| ok(F::bilinear(&a.tensor(0)?, &a.tensor(1)?, &a.tensor(2)?, a.opt_tensor(3)?.as_ref()))),
        entry("embedding", "input: Tensor, weight: Tensor, padding_idx: Int = None, max_norm: Float = None, \
                            norm_type: Float = 2.0, scale_grad_by_freq: Bool = False, sparse: Bool = False",
            |a| {
                if !a.get(3).is_none() || a.bool(5)? || a.bool(6)? {
                    return Err(BorchError::NotImplemented(
                        "embedding(): borch has no max_norm, scale_grad_by_freq or sparse".into()));
                }
                ok(F::embedding(&a.tensor(0)?, &a.tensor(1)?, a.opt_int(2)?.map(|p| p as i64)))
            }),
        entry("layer_norm", "input: Tensor, normalized_shape: Ints, weight: Tensor = None, bias: Tensor = None, eps: Float = 1e-05",
            |a| ok(F::layer_norm(&a.tensor(0)?, &a.sizes(1)?, a.opt_tensor(2)?.as_ref(), a.opt_tensor(3)?.as_ref(), a.f64(4)?))),
        entry("rms_norm", "input: Tensor, normalized_shape: Ints, weight: Tensor = None, eps: Float = None",
            |a| ok(F::rms_norm(&a.tensor(0)?, &a.sizes(1)?, a.opt_tensor(2)?.as_ref(), a.opt_f64(3)?))),
        entry("mse_loss", "input: Tensor, target: Tensor, size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| { legacy(a, "mse_loss", 2, 3)?; ok(F::mse_loss(&a.tensor(0)?, &a.tensor(1)?, reduction(a, 4)?)) }),
        entry("l1_loss", "input: Tensor, target: Tensor, size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean'",
            |a| { legacy(a, "l1_loss", 2, 3)?; ok(F::l1_loss(&a.tensor(0)?, &a.tensor(1)?, reduction(a, 4)?)) }),
        entry("smooth_l1_loss", "input: Tensor, target: Tensor, size_average: Bool = None, reduce: Bool = None, \
                                 reduction: Str = 'mean', beta: Float = 1.0",
            |a| {
                legacy(a, "smooth_l1_loss", 2, 3)?;
                ok(F::smooth_l1_loss(&a.tensor(0)?, &a.tensor(1)?, reduction(a, 4)?, a.f64(5)?))
            }),
        entry("huber_loss", "input: Tensor, target: Tensor, reduction: Str = 'mean', delta: Float = 1.0",
            |a| ok(F::huber_loss(&a.tensor(0)?, &a.tensor(1)?, reduction(a, 2)?, a.f64(3)?))),
        entry("binary_cross_entropy", "input: Tensor, target: Tensor, weight: Tensor = None, size_average: Bool = None, \
                                       reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "binary_cross_entropy", 3, 4)?;
                ok(F::binary_cross_entropy(&a.tensor(0)?, &a.tensor(1)?, a.opt_tensor(2)?.as_ref(), reduction(a, 5)?))
            }),
        entry("binary_cross_entropy_with_logits", "input: Tensor, target: Tensor, weight: Tensor = None, \
               size_average: Bool = None, reduce: Bool = None, reduction: Str = 'mean', pos_weight: Tensor = None",
            |a| {
                legacy(a, "binary_cross_entropy_with_logits", 3, 4)?;
                ok(F::binary_cross_entropy_with_logits(&a.tensor(0)?, &a.tensor(1)?, a.opt_tensor(2)?.as_ref(),
                    reduction(a, 5)?, a.opt_tensor(6)?.as_ref()))
            }),
        entry("cross_entropy", "input: Tensor, target: Tensor, weight: Tensor = None, size_average: Bool = None, \
               ignore_index: Int = -100, reduce: Bool = None, reduction: Str = 'mean', label_smoothing: Float = 0.0",
            |a| {
                legacy(a, "cross_entropy", 3, 5)?;
                ok(F::cross_entropy(&a.tensor(0)?, &a.tensor(1)?, a.opt_tensor(2)?.as_ref(), a.i64(4)?,
                    reduction(a, 6)?, a.f64(7)?))
            }),
        entry("nll_loss", "input: Tensor, target: Tensor, weight: Tensor = None, size_average: Bool = None, \
               ignore_index: Int = -100, reduce: Bool = None, reduction: Str = 'mean'",
            |a| {
                legacy(a, "nll_loss", 3, 5)?;
                ok(F::nll_loss(&a.tensor(0)?, &a.tensor(1)?, a.opt_tensor(2)?.as_ref(), a.i64(4)?, reduction(a, 6)?))
            }),
        entry("kl_div", "input: Tensor, target: Tensor, size_average: Bool = None, reduce: Bool = None, \
               reduction: Str = 'mean', log_target: Bool = False",
            |a| {
                legacy(a, "kl_div", 2, 3)?;
                ok(F::kl_div(&a.tensor(0)?, &a.tensor(1)?, reduction(a, 4)?, a.bool(5)?))
            }),
        entry("conv1d", api::CONV_PARAMS, |a| api::run_conv(a, 1)),
        entry("conv2d", api::CONV_PARAMS, |a| api::run_conv(a, 2)),
        entry("max_pool2d", "input: Tensor, kernel_size: Ints, stride: Ints = None, padding: Ints = 0, \
                             dilation: Ints = 1, ceil_mode: Bool = False, return_indices: Bool = False",
            |a| {
                let (x, stride) = (a.tensor(0)?, a.opt_ints(2)?);
                let (k, p, d) = (a.ints(1)?, a.ints(3)?, a.ints(4)?);
                if a.bool(6)? {
                    let (v, i) = F::max_pool2d_with_indices(&x, &k, stride.as_deref(), &p, &d, a.bool(5)?)?;
                    return Ok(Value::List(vec![Value::Tensor(v), Value::Tensor(i)]));
                }
                ok(F::max_pool2d(&x, &k, stride.as_deref(), &p, &d, a.bool(5)?))
            }),
        entry("avg_pool2d", "input: Tensor, kernel_size: Ints, stride: Ints = None, padding: Ints = 0, \
                             ceil_mode: Bool = False, count_include_pad: Bool = True, divisor_override: Int = None",
            |a| {
                let stride = a.opt_ints(2)?;
                ok(F::avg_pool2d(&a.tensor(0)?, &a.ints(1)?, stride.as_deref(), &a.ints(3)?, a.bool(4)?,
                    a.bool(5)?, a.opt_int(6)?))
            }),
        entry("adaptive_avg_pool2d", "input: Tensor, output_size: Ints",
            |a| ok(F::adaptive_avg_pool2d(&a.tensor(0)?, &a.sizes_or_none(1)?))),
        // torch's num_classes=-1 reads the classes back: the core's one_hot does that where it can.
        entry("one_hot", "tensor: Tensor, num_classes: Int = -1",
            |a| api::call("one_hot", false, a.values().to_vec(), Vec::new())),
    ].into_iter().chain(norm_functions::entries()).chain(more::entries()).chain(F::pooling_catalog::entries()).chain(fractional::entries()).chain(attention::entries()).collect())
}

/// Call `torch.nn.functional.name(...)` with dynamically typed arguments.
pub fn call(name: &str, positional: Vec<Value>, keywords: Vec<(String, Value)>) -> Result<Value> {
    api::call_in(entries(), MODULE, name, false, positional, keywords)
}
