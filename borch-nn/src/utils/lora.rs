//! loralib's helpers (`mark_only_lora_as_trainable`, `lora_state_dict`, with its `bias` modes
//! `'none'`, `'all'`, `'lora_only'`) and borch's `apply_lora`, which swaps a model's Linear
//! children for [`LoRALinear`]s around the same weights (as PEFT's `target_modules` does).

use borch_tensor::{BorchError, Result};

use crate::layers::{Identity, Linear, LoRAConv2d, LoRALinear};
use crate::module::Module;
use crate::state_dict::StateDict;

/// loralib's `bias` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoraBias {
    /// Only `lora_*` parameters.
    None,
    /// `lora_*` and every bias.
    All,
    /// `lora_*` and the biases of the LoRA layers.
    LoraOnly,
}

impl std::str::FromStr for LoraBias {
    type Err = BorchError;
    fn from_str(s: &str) -> Result<LoraBias> {
        match s {
            "none" => Ok(LoraBias::None),
            "all" => Ok(LoraBias::All),
            "lora_only" => Ok(LoraBias::LoraOnly),
            other => Err(BorchError::NotImplemented(format!(
                "bias={other:?}: loralib takes 'none', 'all' or 'lora_only'"
            ))),
        }
    }
}

/// The LoRA layers' bias names (`<path>.bias`).
fn lora_biases(model: &dyn Module) -> Vec<String> {
    model
        .named_modules()
        .into_iter()
        .filter(|(_, m)| {
            m.as_any()
                .downcast_ref::<LoRALinear>()
                .is_some_and(|l| l.bias.is_some())
        })
        .map(|(path, _)| {
            if path.is_empty() {
                "bias".into()
            } else {
                format!("{path}.bias")
            }
        })
        .collect()
}

/// loralib's `mark_only_lora_as_trainable(model, bias)`: every parameter without `lora_` in its
/// name frozen, then (by `bias`) every bias or the LoRA layers' biases trainable again.
pub fn mark_only_lora_as_trainable(model: &dyn Module, bias: LoraBias) -> Result<()> {
    let lora_only = lora_biases(model);
    for (name, p) in model.named_parameters() {
        let trainable = name.contains("lora_")
            || match bias {
                LoraBias::None => false,
                LoraBias::All => name.contains("bias"),
                LoraBias::LoraOnly => lora_only.contains(&name),
            };
        if !trainable || name.contains("lora_") || bias != LoraBias::None {
            p.set_requires_grad(trainable)?;
        }
    }
    Ok(())
}

/// loralib's `lora_state_dict(model, bias)`: the adapter's entries (and biases by `bias`), in
/// loralib's order.
pub fn lora_state_dict(model: &dyn Module, bias: LoraBias) -> StateDict {
    let all = model.state_dict();
    let mut out = StateDict::new();
    for (k, v) in all.iter() {
        match bias {
            LoraBias::None if k.contains("lora_") => out.insert(k, v.clone()),
            LoraBias::All if k.contains("lora_") || k.contains("bias") => out.insert(k, v.clone()),
            LoraBias::LoraOnly if k.contains("lora_") => {
                out.insert(k, v.clone());
                let bias_name = format!("{}bias", k.split("lora_").next().unwrap_or(""));
                if let Some(b) = all.get(&bias_name) {
                    out.insert(bias_name, b.clone());
                }
            }
            _ => {}
        }
    }
    out
}

/// borch's `apply_lora(model, r, lora_alpha, target_modules)`: every `Linear` child whose name
/// is in `target_modules` (at any depth, under containers) becomes a [`LoRALinear`] of rank `r`
/// around the same weight and bias (`lora_A` kaiming-uniform, `lora_B` zeros, the weight
/// frozen). Returns the dotted paths adapted; none found is an error, as PEFT's.
pub fn apply_lora(
    model: &mut dyn Module,
    r: usize,
    lora_alpha: f64,
    target_modules: &[&str],
) -> Result<Vec<String>> {
    crate::layers::check_rank(r, "apply_lora")?;
    let mut adapted = Vec::new();
    adapt_children(model, "", r, lora_alpha, target_modules, &mut adapted)?;
    if adapted.is_empty() {
        return Err(BorchError::Value(format!(
            "apply_lora: target modules {target_modules:?} not found in the base model (no \
             Linear child has one of these names)"
        )));
    }
    Ok(adapted)
}

fn adapt_children(
    m: &mut dyn Module,
    prefix: &str,
    r: usize,
    alpha: f64,
    targets: &[&str],
    adapted: &mut Vec<String>,
) -> Result<()> {
    let matches: Vec<String> = m
        .named_children()
        .into_iter()
        .filter(|(n, c)| targets.contains(&n.as_str()) && c.as_any().is::<Linear>())
        .map(|(n, _)| n)
        .collect();
    for name in &matches {
        let old = m.replace_child(name, Box::new(Identity::new()))?;
        let Ok(linear) = old.into_any().downcast::<Linear>() else {
            return Err(BorchError::Runtime(format!(
                "apply_lora: '{name}' is not a Linear"
            )));
        };
        let mut lora = LoRALinear::from_linear(*linear, r, alpha, 0.0, true)?;
        lora.set_training(m.is_training());
        m.replace_child(name, Box::new(lora))?;
        adapted.push(if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        });
    }
    for (name, child) in m.named_children_mut() {
        if matches.contains(&name) {
            continue;
        }
        let path = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}.{name}")
        };
        adapt_children(child, &path, r, alpha, targets, adapted)?;
    }
    Ok(())
}

/// borch's `merge_lora(model)`: every LoRA layer's adapter added into its weight now (what
/// loralib's `eval()` does with `merge_weights`), whatever the mode; the forward then runs the
/// plain layer. Returns the dotted paths merged (already merged ones too).
pub fn merge_lora(model: &mut dyn Module) -> Result<Vec<String>> {
    for_each_lora(model, "", &mut |l| match l {
        Lora::Linear(l) => l.merge(),
        Lora::Conv(c) => c.merge(),
    })
}

/// borch's `unmerge_lora(model)`: every LoRA layer's adapter taken out of its weight again (what
/// loralib's `train()` does with `merge_weights`). Returns the dotted paths of the LoRA layers.
pub fn unmerge_lora(model: &mut dyn Module) -> Result<Vec<String>> {
    for_each_lora(model, "", &mut |l| match l {
        Lora::Linear(l) => l.unmerge(),
        Lora::Conv(c) => c.unmerge(),
    })
}

enum Lora<'a> {
    Linear(&'a mut LoRALinear),
    Conv(&'a mut LoRAConv2d),
}

fn for_each_lora(
    m: &mut dyn Module,
    path: &str,
    f: &mut dyn FnMut(Lora) -> Result<()>,
) -> Result<Vec<String>> {
    let any = m.as_any_mut();
    if let Some(l) = any.downcast_mut::<LoRALinear>() {
        f(Lora::Linear(l))?;
        return Ok(vec![path.to_string()]);
    }
    if let Some(c) = any.downcast_mut::<LoRAConv2d>() {
        f(Lora::Conv(c))?;
        return Ok(vec![path.to_string()]);
    }
    let mut paths = Vec::new();
    for (name, child) in m.named_children_mut() {
        let p = if path.is_empty() {
            name
        } else {
            format!("{path}.{name}")
        };
        paths.extend(for_each_lora(child, &p, f)?);
    }
    Ok(paths)
}
