//! The catalog entries of convolution and pooling that torch offers in its own namespace
//! (`torch.conv1d/2d/3d`, `torch.conv_transpose1d/2d/3d`, `torch.max_pool1d/2d/3d`,
//! `torch.max_pool1d_with_indices`, `torch.avg_pool1d`, `torch.adaptive_avg_pool1d`,
//! `torch.adaptive_max_pool1d`); `torch.nn.functional`'s others are borch-nn's.

use crate::error::Result;
use crate::ops::{conv, conv_transpose, conv3d, pool, pool_adaptive, pool_nd};

use super::args::Args;
use super::signature::{Call, Entry, Form, Returns, parse_params};
use super::value::Value;

/// torch's parameters of `conv1d` and `conv2d`.
pub const CONV_PARAMS: &str = "input: Tensor, weight: Tensor, bias: Tensor = None, stride: Ints = 1, \
                               padding: Padding = 0, dilation: Ints = 1, groups: Int = 1";

/// torch's parameters of `conv_transpose1d/2d/3d`.
pub const CONV_TRANSPOSE_PARAMS: &str = "input: Tensor, weight: Tensor, bias: Tensor = None, \
                                         stride: Ints = 1, padding: Ints = 0, \
                                         output_padding: Ints = 0, groups: Int = 1, \
                                         dilation: Ints = 1";

/// Run `conv1d`, `conv2d` or `conv3d` on arguments bound to [`CONV_PARAMS`].
pub fn run_conv(a: &Args, spatial: usize) -> Result<Value> {
    let f = match spatial {
        1 => conv::conv1d,
        2 => conv::conv2d,
        _ => conv3d::conv3d,
    };
    let bias = a.opt_tensor(2)?;
    let (stride, dilation) = (a.ints(3)?, a.ints(5)?);
    let out = f(
        &a.tensor(0)?,
        &a.tensor(1)?,
        bias.as_ref(),
        &stride,
        &a.padding(4)?,
        &dilation,
        a.int(6)?,
    )?;
    Ok(Value::Tensor(out))
}

/// Run `conv_transpose{spatial}d` on arguments bound to [`CONV_TRANSPOSE_PARAMS`].
pub fn run_conv_transpose(a: &Args, spatial: usize) -> Result<Value> {
    let f = match spatial {
        1 => conv_transpose::conv_transpose1d,
        2 => conv_transpose::conv_transpose2d,
        _ => conv_transpose::conv_transpose3d,
    };
    let (stride, padding, output_padding, dilation) =
        (a.ints(3)?, a.ints(4)?, a.ints(5)?, a.ints(7)?);
    let args = conv_transpose::TransposeArgs {
        stride: &stride,
        padding: &padding,
        output_padding: &output_padding,
        groups: a.int(6)?,
        dilation: &dilation,
    };
    let bias = a.opt_tensor(2)?;
    Ok(Value::Tensor(f(
        &a.tensor(0)?,
        &a.tensor(1)?,
        bias.as_ref(),
        &args,
    )?))
}

/// torch's parameters of `max_pool1d` / `max_pool3d` (with `return_indices` in
/// `torch.nn.functional`'s).
pub const MAX_POOL_PARAMS: &str = "input: Tensor, kernel_size: Ints, stride: Ints = None, \
                                   padding: Ints = 0, dilation: Ints = 1, ceil_mode: Bool = False";

/// Run `max_pool1d` or `max_pool3d` on arguments bound to [`MAX_POOL_PARAMS`]; with
/// `indices`, the (values, indices) pair.
pub fn run_max_pool(a: &Args, spatial: usize, indices: bool) -> Result<Value> {
    let (x, stride) = (a.tensor(0)?, a.opt_ints(2)?);
    let (k, p, d, ceil) = (a.ints(1)?, a.ints(3)?, a.ints(4)?, a.bool(5)?);
    let s = stride.as_deref();
    if indices {
        let f = if spatial == 1 {
            pool_nd::max_pool1d_with_indices
        } else {
            pool_nd::max_pool3d_with_indices
        };
        let (v, i) = f(&x, &k, s, &p, &d, ceil)?;
        return Ok(Value::List(vec![Value::Tensor(v), Value::Tensor(i)]));
    }
    let f = if spatial == 1 {
        pool_nd::max_pool1d
    } else {
        pool_nd::max_pool3d
    };
    Ok(Value::Tensor(f(&x, &k, s, &p, &d, ceil)?))
}

/// torch's `(values, indices)` as a catalog value.
pub fn pair((v, i): (crate::tensor::Tensor, crate::tensor::Tensor)) -> Value {
    Value::List(vec![Value::Tensor(v), Value::Tensor(i)])
}

fn pair_function(name: &'static str, params: &str, body: fn(&Args) -> Result<Value>) -> Entry {
    Entry {
        returns: Returns::Pair,
        ..function(name, params, body)
    }
}

fn function(name: &'static str, params: &str, body: fn(&Args) -> Result<Value>) -> Entry {
    Entry {
        name,
        form: Form::Function,
        params: parse_params(params),
        returns: Returns::Tensor,
        call: Call::Fn(body),
    }
}

pub(super) fn listed() -> Vec<Entry> {
    vec![
        function("conv1d", CONV_PARAMS, |a| run_conv(a, 1)),
        function("conv2d", CONV_PARAMS, |a| run_conv(a, 2)),
        function(
            "max_pool2d",
            "input: Tensor, kernel_size: Ints, stride: Ints = None, padding: Ints = 0, \
             dilation: Ints = 1, ceil_mode: Bool = False",
            |a| {
                let stride = a.opt_ints(2)?;
                let out = pool::max_pool2d(
                    &a.tensor(0)?,
                    &a.ints(1)?,
                    stride.as_deref(),
                    &a.ints(3)?,
                    &a.ints(4)?,
                    a.bool(5)?,
                )?;
                Ok(Value::Tensor(out))
            },
        ),
        function("conv3d", CONV_PARAMS, |a| run_conv(a, 3)),
        function("conv_transpose1d", CONV_TRANSPOSE_PARAMS, |a| {
            run_conv_transpose(a, 1)
        }),
        function("conv_transpose2d", CONV_TRANSPOSE_PARAMS, |a| {
            run_conv_transpose(a, 2)
        }),
        function("conv_transpose3d", CONV_TRANSPOSE_PARAMS, |a| {
            run_conv_transpose(a, 3)
        }),
        function("max_pool1d", MAX_POOL_PARAMS, |a| run_max_pool(a, 1, false)),
        function("max_pool3d", MAX_POOL_PARAMS, |a| run_max_pool(a, 3, false)),
        pair_function("max_pool1d_with_indices", MAX_POOL_PARAMS, |a| {
            run_max_pool(a, 1, true)
        }),
        function(
            "avg_pool1d",
            "input: Tensor, kernel_size: Ints, stride: Ints = None, padding: Ints = 0, \
             ceil_mode: Bool = False, count_include_pad: Bool = True",
            |a| {
                let stride = a.opt_ints(2)?;
                let out = pool_nd::avg_pool1d(
                    &a.tensor(0)?,
                    &a.ints(1)?,
                    stride.as_deref(),
                    &a.ints(3)?,
                    a.bool(4)?,
                    a.bool(5)?,
                )?;
                Ok(Value::Tensor(out))
            },
        ),
        function(
            "adaptive_avg_pool1d",
            "input: Tensor, output_size: Ints",
            |a| {
                let out = pool_adaptive::adaptive_avg_pool1d(&a.tensor(0)?, &a.sizes_or_none(1)?)?;
                Ok(Value::Tensor(out))
            },
        ),
        pair_function(
            "adaptive_max_pool1d",
            "input: Tensor, output_size: Ints",
            |a| {
                let out = pool_adaptive::adaptive_max_pool1d(&a.tensor(0)?, &a.sizes_or_none(1)?)?;
                Ok(pair(out))
            },
        ),
    ]
}
