//! The conv family: F.conv1d, F.conv2d, F.max_pool2d, F.avg_pool2d, F.adaptive_avg_pool2d.

use borch_nn::functional as F;
use borch_tensor::{BorchError, Operand, Padding, Result, Tensor};
use serde_json::Value;

use crate::case::Args;

fn tensor(inputs: &[Operand], i: usize) -> Result<Tensor> {
    match inputs.get(i) {
        Some(Operand::Tensor(t)) => Ok(t.clone()),
        _ => Err(BorchError::Type(format!("input {i} must be a tensor"))),
    }
}

/// An int or a list of ints, or `default` when absent.
fn ints(a: &Args, k: &str, default: isize) -> Vec<isize> {
    match a.get(k) {
        Value::Null => vec![default],
        Value::Array(_) => a.dims(k),
        _ => vec![a.int(k)],
    }
}

fn padding(a: &Args) -> Result<Padding> {
    match a.get("padding") {
        Value::String(s) => s.parse(),
        _ => Ok(Padding::Sizes(ints(a, "padding", 0))),
    }
}

pub fn run(op: &str, inputs: &[Operand], a: &Args) -> Option<Result<Vec<Tensor>>> {
    let x = || tensor(inputs, 0);
    let bias = || -> Result<Option<Tensor>> {
        if a.bool("has_bias") {
            tensor(inputs, 2).map(Some)
        } else {
            Ok(None)
        }
    };
    let kernel = || ints(a, "kernel_size", 0);
    let stride = a.has("stride").then(|| ints(a, "stride", 1));
    let out = match op {
        "F.conv2d" | "F.conv1d" => (|| {
            let conv = if op == "F.conv2d" {
                F::conv2d
            } else {
                F::conv1d
            };
            let (stride, dilation) = (ints(a, "stride", 1), ints(a, "dilation", 1));
            let groups = a.opt_int("groups").unwrap_or(1);
            let b = bias()?;
            conv(
                &x()?,
                &tensor(inputs, 1)?,
                b.as_ref(),
                &stride,
                &padding(a)?,
                &dilation,
                groups,
            )
            .map(|t| vec![t])
        })(),
        "F.max_pool2d" => (|| {
            let args = (kernel(), ints(a, "padding", 0), ints(a, "dilation", 1));
            let ceil = a.bool("ceil_mode");
            if a.bool("return_indices") {
                let (v, i) = F::max_pool2d_with_indices(
                    &x()?,
                    &args.0,
                    stride.as_deref(),
                    &args.1,
                    &args.2,
                    ceil,
                )?;
                Ok(vec![v, i])
            } else {
                F::max_pool2d(&x()?, &args.0, stride.as_deref(), &args.1, &args.2, ceil)
                    .map(|t| vec![t])
            }
        })(),
        "F.avg_pool2d" => (|| {
            let include = !a.has("count_include_pad") || a.bool("count_include_pad");
            F::avg_pool2d(
                &x()?,
                &kernel(),
                stride.as_deref(),
                &ints(a, "padding", 0),
                a.bool("ceil_mode"),
                include,
                a.opt_int("divisor_override"),
            )
            .map(|t| vec![t])
        })(),
        "F.adaptive_avg_pool2d" => (|| {
            let size: Vec<Option<usize>> = match a.get("output_size") {
                Value::Array(items) => items
                    .iter()
                    .map(|v| v.as_u64().map(|s| s as usize))
                    .collect(),
                v => vec![v.as_u64().map(|s| s as usize)],
            };
            F::adaptive_avg_pool2d(&x()?, &size).map(|t| vec![t])
        })(),
        _ => return None,
    };
    Some(out)
}
