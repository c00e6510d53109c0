//! The optimizer catalog: every optimizer of `torch.optim` by its torch name, with its options
//! (kind and default, from `declare_options!`), its Python-style signature and one builder.
//! Bindings (borch-js, borch-py through borch-ts) and the native test runners build optimizers
//! here by name; a new optimizer is one entry.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result, Tensor};

use crate::group::{Hyper, ParamGroup};
use crate::lbfgs::{LBFGS, LBFGSOptions};
use crate::optimizer::{Optim, Optimizer};
use crate::options::{OptionSpec, signature};
use crate::value::Value;
use crate::{
    ASGDOptions, AdadeltaOptions, AdafactorOptions, AdagradOptions, AdamOptions, AdamWOptions,
    AdamaxOptions, Declared, NAdamOptions, RAdamOptions, RMSpropOptions, RpropOptions, SgdOptions,
};

/// Keyword arguments (or one param group's entries) by torch's names.
pub type Options = BTreeMap<String, Value>;

/// torch's `params`: a list of tensors, or of param groups (each its tensors and its entries).
#[derive(Clone)]
pub enum Params {
    /// A list of tensors: one param group with the constructor's options.
    Tensors(Vec<Tensor>),
    /// Param groups: each group's tensors and its own entries (torch's `[{"params": ..., "lr": ...}]`).
    Groups(Vec<(Vec<Tensor>, Options)>),
}

/// One optimizer of the catalog.
pub struct OptimizerEntry {
    /// torch's class name.
    pub name: &'static str,
    specs: fn() -> Vec<OptionSpec>,
    /// The keyword-only flags torch also takes, with their defaults.
    pub flags: &'static [(&'static str, &'static str)],
    build: fn(Params, &Options) -> Result<Box<dyn Optimizer>>,
}

impl OptimizerEntry {
    /// The options by torch's names, in torch's order, with kinds and defaults.
    pub fn option_specs(&self) -> Vec<OptionSpec> {
        (self.specs)()
    }

    /// torch's constructor signature in the op catalog's syntax:
    /// `"params: Params, lr: Float = 0.001, betas: Floats = (0.9, 0.999), …"`.
    pub fn signature(&self) -> String {
        signature(&self.option_specs(), self.flags)
    }

    /// The optimizer over `params` with `options`.
    pub fn build(&self, params: Params, options: &Options) -> Result<Box<dyn Optimizer>> {
        (self.build)(params, options)
    }
}

fn entry<H: Hyper + Default>() -> OptimizerEntry {
    OptimizerEntry {
        name: H::NAME,
        specs: H::specs,
        flags: H::FLAGS,
        build: build_optim::<H>,
    }
}

/// Every optimizer of `torch.optim`, in torch's `__all__` order; SparseAdam's builder refuses.
pub fn optimizers() -> &'static [OptimizerEntry] {
    static ALL: std::sync::OnceLock<Vec<OptimizerEntry>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        vec![
            entry::<AdadeltaOptions>(),
            entry::<AdafactorOptions>(),
            entry::<AdagradOptions>(),
            entry::<AdamOptions>(),
            entry::<AdamWOptions>(),
            entry::<AdamaxOptions>(),
            entry::<ASGDOptions>(),
            OptimizerEntry {
                name: "LBFGS",
                specs: LBFGSOptions::option_specs,
                flags: &[],
                build: build_lbfgs,
            },
            entry::<NAdamOptions>(),
            entry::<RAdamOptions>(),
            entry::<RMSpropOptions>(),
            entry::<RpropOptions>(),
            entry::<SgdOptions>(),
            OptimizerEntry {
                name: "SparseAdam",
                specs: sparse_adam_specs,
                flags: &[],
                build: refuse_sparse_adam,
            },
        ]
    })
}

/// The optimizers' torch names, in the catalog's order.
pub fn names() -> Vec<&'static str> {
    optimizers().iter().map(|e| e.name).collect()
}

/// The entry of optimizer `name`, or torch's `AttributeError` wording.
pub fn find(name: &str) -> Result<&'static OptimizerEntry> {
    optimizers()
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| BorchError::Type(format!("module 'torch.optim' has no attribute '{name}'")))
}

/// torch's `optim.<name>(params, **options)`.
pub fn build(name: &str, params: Params, options: &Options) -> Result<Box<dyn Optimizer>> {
    find(name)?.build(params, options)
}

/// Check one of torch's keyword-only flags: `foreach` and `fused` are accepted (every borch step
/// is one fused kernel per parameter); `capturable` and `differentiable` only when False.
fn check_flag(optimizer: &str, key: &str, value: &Value) -> Result<()> {
    match (key, value) {
        ("foreach" | "fused", Value::None | Value::Bool(_)) => Ok(()),
        ("capturable" | "differentiable", Value::Bool(false)) => Ok(()),
        ("capturable", Value::Bool(true)) => Err(BorchError::NotImplemented(format!(
            "{optimizer}(capturable=True) is not supported by borch: it is for CUDA graph \
             capture; borch's steps already keep their state on the device"
        ))),
        ("differentiable", Value::Bool(true)) => Err(BorchError::NotImplemented(format!(
            "{optimizer}(differentiable=True) is not supported by borch: its optimizer steps \
             are fused kernels outside autograd"
        ))),
        _ => Err(BorchError::Type(format!(
            "{optimizer}(): {key} must be a bool, not {}",
            value_type(value)
        ))),
    }
}

fn value_type(v: &Value) -> &'static str {
    match v {
        Value::Float(_) => "float",
        Value::Int(_) => "int",
        Value::Bool(_) => "bool",
        Value::Str(_) => "str",
        Value::List(_) => "tuple",
        Value::Dict(_) => "dict",
        Value::None => "NoneType",
    }
}

/// `base` with the entries of `over` set; in a group, other numeric entries are kept as the
/// group's own (torch keeps any key of a group dict).
fn apply<H: Hyper>(base: &H, over: &Options, in_group: bool) -> Result<(H, BTreeMap<String, f64>)> {
    let mut map = base.to_map();
    let mut extra = BTreeMap::new();
    for (key, value) in over {
        if H::FLAGS.iter().any(|(flag, _)| flag == key) {
            check_flag(H::NAME, key, value)?;
        } else if map.contains_key(key) {
            map.insert(key.clone(), value.clone());
        } else if in_group && let Some(x) = value.as_f64() {
            extra.insert(key.clone(), x);
        } else {
            return Err(BorchError::Type(format!(
                "{}() got an unexpected keyword argument '{key}'",
                H::NAME
            )));
        }
    }
    Ok((H::from_map(&map)?, extra))
}

fn build_optim<H: Hyper + Default>(
    params: Params,
    options: &Options,
) -> Result<Box<dyn Optimizer>> {
    let (defaults, _) = apply(&H::default(), options, false)?;
    let optimizer = match params {
        Params::Tensors(tensors) => Optim::new(tensors, defaults)?,
        Params::Groups(groups) => {
            let groups = groups
                .into_iter()
                .map(|(tensors, entries)| {
                    let (options, extra) = apply(&defaults, &entries, true)?;
                    let mut group = ParamGroup::new(tensors, options);
                    group.extra = extra;
                    Ok(group)
                })
                .collect::<Result<Vec<_>>>()?;
            Optim::with_groups(groups, defaults)?
        }
    };
    Ok(Box::new(optimizer))
}

fn build_lbfgs(params: Params, options: &Options) -> Result<Box<dyn Optimizer>> {
    let read = |base: &LBFGSOptions, over: &Options| {
        let mut map = base.declared_map();
        for (key, value) in over {
            if !map.contains_key(key) {
                return Err(BorchError::Type(format!(
                    "LBFGS() got an unexpected keyword argument '{key}'"
                )));
            }
            map.insert(key.clone(), value.clone());
        }
        LBFGSOptions::declared_read(&map)
    };
    let mut defaults = read(&LBFGSOptions::default(), options)?;
    let tensors = match params {
        Params::Tensors(tensors) => tensors,
        Params::Groups(mut groups) if groups.len() == 1 => {
            let (tensors, entries) = groups.remove(0);
            defaults = read(&defaults, &entries)?;
            tensors
        }
        Params::Groups(_) => {
            return Err(BorchError::Value(
                "LBFGS doesn't support per-parameter options (parameter groups)".into(),
            ));
        }
    };
    Ok(Box::new(LBFGS::new(tensors, defaults)?))
}

fn sparse_adam_specs() -> Vec<OptionSpec> {
    vec![
        OptionSpec {
            name: "lr",
            kind: "Float",
            default: Value::Float(1e-3),
        },
        OptionSpec {
            name: "betas",
            kind: "Floats",
            default: (0.9, 0.999).into(),
        },
        OptionSpec {
            name: "eps",
            kind: "Float",
            default: Value::Float(1e-8),
        },
        OptionSpec {
            name: "maximize",
            kind: "Bool",
            default: Value::Bool(false),
        },
    ]
}

fn refuse_sparse_adam(_: Params, _: &Options) -> Result<Box<dyn Optimizer>> {
    Err(BorchError::NotImplemented(
        "SparseAdam is not supported by borch: it updates sparse gradients (nn.Embedding with \
         sparse=True), and borch has no sparse tensors; use Adam or AdamW"
            .into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirteen_optimizers_and_sparse_adam_with_torch_signatures() {
        let names: Vec<&str> = optimizers().iter().map(|e| e.name).collect();
        assert_eq!(names.len(), 14);
        assert_eq!(
            find("Adam").unwrap().signature(),
            "params: Params, lr: Float = 0.001, betas: Floats = (0.9, 0.999), eps: Float = \
             1e-08, weight_decay: Float = 0.0, amsgrad: Bool = False, maximize: Bool = False, \
             decoupled_weight_decay: Bool = False, foreach: Bool = None, capturable: Bool = \
             False, differentiable: Bool = False, fused: Bool = None"
        );
        assert_eq!(
            find("LBFGS").unwrap().signature(),
            "params: Params, lr: Float = 1.0, max_iter: Int = 20, max_eval: Int = None, \
             tolerance_grad: Float = 1e-07, tolerance_change: Float = 1e-09, history_size: Int \
             = 100, line_search_fn: Str = None, maximize: Bool = False"
        );
        assert!(
            find("Adafactor")
                .unwrap()
                .signature()
                .contains("eps: Floats = (None, 0.001)")
        );
        let e = find("Nadam").err().unwrap();
        assert!(e.to_string().contains("has no attribute 'Nadam'"), "{e}");
    }
}
