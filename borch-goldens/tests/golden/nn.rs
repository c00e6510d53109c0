//! torch.nn.functional through borch-nn's `functional` (ops named `F.<name>`).

use borch_nn::{Reduction, functional as F};
use borch_tensor::{BorchError, Operand, Result, Tensor};

use crate::case::Args;

fn reduction(a: &Args) -> Result<Reduction> {
    a.str("reduction").unwrap_or("mean").parse()
}

pub fn run(op: &str, inputs: &[Operand], a: &Args) -> Option<Result<Vec<Tensor>>> {
    let name = op.strip_prefix("F.")?;
    let tensors: Vec<Tensor> = inputs
        .iter()
        .filter_map(|i| match i {
            Operand::Tensor(t) => Some(t.clone()),
            Operand::Scalar(_) => None,
        })
        .collect();
    if tensors.len() != inputs.len() || tensors.is_empty() {
        return Some(Err(BorchError::Type("F.* cases take tensors".into())));
    }
    let x = &tensors[0];
    // The optional tensors after the required ones, in torch's order, as the args flag them.
    let mut rest = tensors.iter().skip(match name {
        "linear" | "layer_norm" | "rms_norm" => 1,
        "bilinear" => 3,
        _ => 2,
    });
    let mut optional = |flag: &str| if a.bool(flag) { rest.next() } else { None };
    let out = (|| -> Result<Tensor> {
        let y = || {
            tensors
                .get(1)
                .ok_or_else(|| BorchError::Type("missing input".into()))
        };
        Ok(match name {
            "relu" => F::relu(x)?,
            "relu6" => F::relu6(x)?,
            "leaky_relu" => F::leaky_relu(x, a.f64("negative_slope"))?,
            "elu" => F::elu(x, a.f64("alpha"))?,
            "selu" => F::selu(x)?,
            "gelu" => F::gelu(x, a.str("approximate").unwrap_or("none"))?,
            "silu" => F::silu(x)?,
            "mish" => F::mish(x)?,
            "tanh" => F::tanh(x)?,
            "sigmoid" => F::sigmoid(x)?,
            "hardtanh" => F::hardtanh(x, a.f64("min_val"), a.f64("max_val"))?,
            "hardswish" => F::hardswish(x)?,
            "softplus" => F::softplus(x, a.f64("beta"), a.f64("threshold"))?,
            "softmax" => F::softmax(x, a.opt_int("dim"))?,
            "log_softmax" => F::log_softmax(x, a.opt_int("dim"))?,
            "linear" => {
                let w = &tensors[1];
                let b = if a.bool("has_bias") {
                    tensors.get(2)
                } else {
                    None
                };
                F::linear(x, w, b)?
            }
            "bilinear" => {
                let b = optional("has_bias");
                F::bilinear(x, y()?, &tensors[2], b)?
            }
            "embedding" => F::embedding(x, y()?, a.opt_int("padding_idx").map(|p| p as i64))?,
            "layer_norm" => {
                let w = optional("has_weight");
                let b = optional("has_bias");
                let eps = a.opt_f64("eps").unwrap_or(1e-5);
                F::layer_norm(x, &a.shape("normalized_shape"), w, b, eps)?
            }
            "rms_norm" => {
                let w = optional("has_weight");
                F::rms_norm(x, &a.shape("normalized_shape"), w, a.opt_f64("eps"))?
            }
            "dropout" => F::dropout(x, a.f64("p"), a.bool("training"))?,
            "mse_loss" => F::mse_loss(x, y()?, reduction(a)?)?,
            "l1_loss" => F::l1_loss(x, y()?, reduction(a)?)?,
            "smooth_l1_loss" => F::smooth_l1_loss(x, y()?, reduction(a)?, a.f64("beta"))?,
            "huber_loss" => F::huber_loss(x, y()?, reduction(a)?, a.f64("delta"))?,
            "binary_cross_entropy" => {
                let w = optional("has_weight");
                F::binary_cross_entropy(x, y()?, w, reduction(a)?)?
            }
            "binary_cross_entropy_with_logits" => {
                let w = optional("has_weight");
                let pw = optional("has_pos_weight");
                F::binary_cross_entropy_with_logits(x, y()?, w, reduction(a)?, pw)?
            }
            "cross_entropy" => {
                let w = optional("has_weight");
                let ignore = a.opt_int("ignore_index").map_or(-100, |i| i as i64);
                let smoothing = a.opt_f64("label_smoothing").unwrap_or(0.0);
                F::cross_entropy(x, y()?, w, ignore, reduction(a)?, smoothing)?
            }
            "nll_loss" => {
                let w = optional("has_weight");
                let ignore = a.opt_int("ignore_index").map_or(-100, |i| i as i64);
                F::nll_loss(x, y()?, w, ignore, reduction(a)?)?
            }
            "kl_div" => {
                let target = if a.bool("detach_target") {
                    y()?.detach()
                } else {
                    y()?.clone()
                };
                F::kl_div(x, &target, reduction(a)?, a.bool("log_target"))?
            }
            _ => return Err(BorchError::NotImplemented(format!("borch has no F.{name}"))),
        })
    })();
    Some(out.map(|t| vec![t]))
}
