//! torch's `nn.init`: fills drawn from borch's torch-exact generator in torch's order, with
//! torch's fans and gains, all without recording for autograd.

use borch_autograd::no_grad;
use borch_tensor::{BorchError, Result, Tensor};

fn value_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Value(msg.into()))
}

/// torch's `calculate_gain(nonlinearity, param)`: the recommended gain of an activation.
pub fn calculate_gain(nonlinearity: &str, param: Option<f64>) -> Result<f64> {
    match nonlinearity {
        "linear" | "conv1d" | "conv2d" | "conv3d" | "conv_transpose1d" | "conv_transpose2d"
        | "conv_transpose3d" | "sigmoid" => Ok(1.0),
        "tanh" => Ok(5.0 / 3.0),
        "relu" => Ok(2.0f64.sqrt()),
        "leaky_relu" => {
            let slope = param.unwrap_or(0.01);
            Ok((2.0 / (1.0 + slope * slope)).sqrt())
        }
        "selu" => Ok(3.0 / 4.0),
        other => value_err(format!("Unsupported nonlinearity {other}")),
    }
}

/// torch's `_calculate_fan_in_and_fan_out`: `(size(1) * receptive, size(0) * receptive)`.
pub fn calculate_fan_in_and_fan_out(tensor: &Tensor) -> Result<(usize, usize)> {
    let shape = tensor.shape();
    if shape.len() < 2 {
        return value_err(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
        );
    }
    let receptive: usize = shape[2..].iter().product();
    Ok((shape[1] * receptive, shape[0] * receptive))
}

/// torch's `_calculate_correct_fan`: the mode is checked before the tensor's rank.
fn fan(tensor: &Tensor, mode: &str) -> Result<usize> {
    let mode = mode.to_lowercase();
    if mode != "fan_in" && mode != "fan_out" {
        return value_err(format!(
            "Mode {mode} not supported, please use one of ['fan_in', 'fan_out']"
        ));
    }
    let (fan_in, fan_out) = calculate_fan_in_and_fan_out(tensor)?;
    Ok(if mode == "fan_in" { fan_in } else { fan_out })
}

/// torch's `init.uniform_(tensor, a, b)`: values from U(a, b).
pub fn uniform_(tensor: &Tensor, a: f64, b: f64) -> Result<Tensor> {
    no_grad(|| tensor.uniform_(a, b, None))?;
    Ok(tensor.clone())
}

/// torch's `init.normal_(tensor, mean, std)`.
pub fn normal_(tensor: &Tensor, mean: f64, std: f64) -> Result<Tensor> {
    no_grad(|| tensor.normal_(mean, std, None))?;
    Ok(tensor.clone())
}

/// torch's `init.trunc_normal_(tensor, mean, std, a, b)`: torch's inverse-CDF method (a uniform
/// draw through `erfinv`), values in `[a, b]` (absolute bounds, not in units of `std`).
pub fn trunc_normal_(tensor: &Tensor, mean: f64, std: f64, a: f64, b: f64) -> Result<Tensor> {
    no_grad(|| tensor.trunc_normal_(mean, std, a, b, None))?;
    Ok(tensor.clone())
}

/// torch's `init.constant_(tensor, val)`.
pub fn constant_(tensor: &Tensor, val: f64) -> Result<Tensor> {
    no_grad(|| tensor.fill_(val))?;
    Ok(tensor.clone())
}

/// torch's `init.zeros_(tensor)`.
pub fn zeros_(tensor: &Tensor) -> Result<Tensor> {
    constant_(tensor, 0.0)
}

/// torch's `init.ones_(tensor)`.
pub fn ones_(tensor: &Tensor) -> Result<Tensor> {
    constant_(tensor, 1.0)
}

/// torch's `init.xavier_uniform_(tensor, gain)`: U(-a, a) with
/// `a = gain * sqrt(6 / (fan_in + fan_out))`.
pub fn xavier_uniform_(tensor: &Tensor, gain: f64) -> Result<Tensor> {
    let (fan_in, fan_out) = calculate_fan_in_and_fan_out(tensor)?;
    let std = gain * (2.0 / (fan_in + fan_out) as f64).sqrt();
    let a = 3.0f64.sqrt() * std;
    uniform_(tensor, -a, a)
}

/// torch's `init.xavier_normal_(tensor, gain)`: N(0, std²) with
/// `std = gain * sqrt(2 / (fan_in + fan_out))`.
pub fn xavier_normal_(tensor: &Tensor, gain: f64) -> Result<Tensor> {
    let (fan_in, fan_out) = calculate_fan_in_and_fan_out(tensor)?;
    let std = gain * (2.0 / (fan_in + fan_out) as f64).sqrt();
    normal_(tensor, 0.0, std)
}

/// torch's `init.kaiming_uniform_(tensor, a, mode, nonlinearity)`: U(-b, b) with
/// `b = gain * sqrt(3 / fan)`; `mode` is `"fan_in"` or `"fan_out"`, `a` the negative slope of
/// `leaky_relu`. An empty tensor is left as it is (torch warns).
pub fn kaiming_uniform_(tensor: &Tensor, a: f64, mode: &str, nonlinearity: &str) -> Result<Tensor> {
    if tensor.numel() == 0 {
        return Ok(tensor.clone());
    }
    let fan = fan(tensor, mode)?;
    let gain = calculate_gain(nonlinearity, Some(a))?;
    let std = gain / (fan as f64).sqrt();
    let bound = 3.0f64.sqrt() * std;
    uniform_(tensor, -bound, bound)
}

/// torch's `init.kaiming_normal_(tensor, a, mode, nonlinearity)`: N(0, std²) with
/// `std = gain / sqrt(fan)`.
pub fn kaiming_normal_(tensor: &Tensor, a: f64, mode: &str, nonlinearity: &str) -> Result<Tensor> {
    if tensor.numel() == 0 {
        return Ok(tensor.clone());
    }
    let fan = fan(tensor, mode)?;
    let gain = calculate_gain(nonlinearity, Some(a))?;
    let std = gain / (fan as f64).sqrt();
    normal_(tensor, 0.0, std)
}
