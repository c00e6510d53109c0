//! The catalog entries of convolution and pooling that torch offers in its own namespace
//! (`torch.conv1d`, `torch.conv2d`, `torch.max_pool2d`); `torch.nn.functional`'s, with
//! `avg_pool2d` and `adaptive_avg_pool2d`, are borch-nn's.

use crate::error::Result;
use crate::ops::{conv, pool};

use super::args::Args;
use super::signature::{Call, Entry, Form, Returns, parse_params};
use super::value::Value;

/// torch's parameters of `conv1d` and `conv2d`.
pub const CONV_PARAMS: &str = "input: Tensor, weight: Tensor, bias: Tensor = None, stride: Ints = 1, \
                               padding: Padding = 0, dilation: Ints = 1, groups: Int = 1";

/// Run `conv1d` or `conv2d` on arguments bound to [`CONV_PARAMS`].
pub fn run_conv(a: &Args, spatial: usize) -> Result<Value> {
    let f = if spatial == 1 {
        conv::conv1d
    } else {
        conv::conv2d
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
    ]
}
