#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod adadelta;
mod adafactor;
mod adagrad;
mod adam;
mod adamax;
mod adamw;
mod asgd;
pub mod catalog;
mod export;
mod fused;
mod group;
mod lbfgs;
pub mod lr_scheduler;
mod nadam;
mod optimizer;
mod options;
mod radam;
mod rmsprop;
mod rprop;
mod sgd;
mod state;
mod value;

pub use adadelta::{Adadelta, AdadeltaOptions};
pub use adafactor::{Adafactor, AdafactorOptions};
pub use adagrad::{Adagrad, AdagradOptions};
pub use adam::{Adam, AdamOptions};
pub use adamax::{Adamax, AdamaxOptions};
pub use adamw::{AdamW, AdamWOptions};
pub use asgd::{ASGD, ASGDOptions};
pub use catalog::{Options, Params};
pub use export::{SCALAR_STATE_KEYS, dict_from_json, dict_to_json};
pub use group::{Declared, Hyper, MomentumKind, ParamGroup};
pub use lbfgs::{Closure, LBFGS, LBFGSOptions};
pub use nadam::{NAdam, NAdamOptions};
pub use optimizer::{Optim, Optimizer};
pub use options::OptionSpec;
pub use radam::{RAdam, RAdamOptions};
pub use rmsprop::{RMSprop, RMSpropOptions};
pub use rprop::{Rprop, RpropOptions};
pub use sgd::{SGD, SgdOptions};
pub use state::{GroupState, ParamState, StateDict, StateValue};
pub use value::Value;

use borch_tensor::{BorchError, Result};

/// Every specialisation of every optimizer kernel, named, for validation by naga without a GPU.
pub fn kernel_sources() -> Vec<(String, String)> {
    [
        &sgd::KERNEL,
        &adam::KERNEL,
        &rmsprop::KERNEL,
        &adagrad::KERNEL,
        &adamax::KERNEL,
        &nadam::KERNEL,
        &radam::KERNEL,
        &adadelta::KERNEL,
        &asgd::KERNEL,
        &rprop::KERNEL,
    ]
    .iter()
    .flat_map(|k| k.sources())
    .collect()
}

/// The WGSL of `template` for every combination of `flags`.
pub(crate) fn kernel_variants(
    name: &'static str,
    source: &'static str,
    flags: &[&'static str],
) -> Vec<(String, String)> {
    (0..1u32 << flags.len())
        .map(|bits| {
            let set: Vec<(&'static str, bool)> = flags
                .iter()
                .enumerate()
                .map(|(i, f)| (*f, bits & (1 << i) != 0))
                .collect();
            let t = fused::Template {
                name,
                source,
                flags: &set,
            };
            (t.key(), t.render())
        })
        .collect()
}

/// The keyword-only flags of most of torch's optimizers.
pub(crate) const FOREACH_DIFF_CAPTURABLE: &[(&str, &str)] = &[
    ("foreach", "None"),
    ("capturable", "False"),
    ("differentiable", "False"),
];

/// torch's `Invalid beta parameter at index i` check.
pub(crate) fn check_betas((beta1, beta2): (f64, f64)) -> Result<()> {
    for (i, beta) in [beta1, beta2].into_iter().enumerate() {
        if !(0.0..1.0).contains(&beta) {
            return Err(BorchError::Value(format!(
                "Invalid beta parameter at index {i}: {}",
                py_float(beta)
            )));
        }
    }
    Ok(())
}

/// The checks of Adam and its kin (Adamax, NAdam, RAdam), in torch's order: learning rate,
/// epsilon, betas, weight decay.
pub(crate) fn check_adam(lr: f64, eps: f64, betas: (f64, f64), weight_decay: f64) -> Result<()> {
    check_lr(lr)?;
    check_nonneg_as("epsilon value", eps)?;
    check_betas(betas)?;
    check_nonneg("weight_decay", weight_decay)
}

/// torch's `Invalid learning rate` check.
pub(crate) fn check_lr(lr: f64) -> Result<()> {
    check_nonneg_as("learning rate", lr)
}

/// torch's `Invalid {name} value` check.
pub(crate) fn check_nonneg(name: &str, x: f64) -> Result<()> {
    check_nonneg_as(&format!("{name} value"), x)
}

pub(crate) fn check_nonneg_as(what: &str, x: f64) -> Result<()> {
    // torch's `not 0.0 <= x` also refuses NaN.
    if x.is_nan() || x < 0.0 {
        return Err(BorchError::Value(format!(
            "Invalid {what}: {}",
            py_float(x)
        )));
    }
    Ok(())
}

/// A float as Python's `repr` prints it (`0.001`, `1e-05`, `-1.0`, `inf`), for torch's messages.
pub fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..16).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    let plain = format!("{x}");
    if plain.contains('.') {
        plain
    } else {
        format!("{plain}.0")
    }
}
