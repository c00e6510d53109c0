//! torch's state dicts: an ordered map from dotted names to tensors, and `load_state_dict` with
//! torch's walk over the module tree and its error text.

use std::fmt;

use borch_tensor::{BorchError, Result, Tensor};

use crate::module::Module;

/// An ordered map of names to tensors (torch's `OrderedDict` returned by `state_dict()`).
#[derive(Clone, Default)]
pub struct StateDict {
    entries: Vec<(String, Tensor)>,
}

impl StateDict {
    /// An empty state dict.
    pub fn new() -> StateDict {
        StateDict::default()
    }

    /// Set `key` (in place if present, else appended), as a Python dict assignment does.
    pub fn insert(&mut self, key: impl Into<String>, value: Tensor) {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// The tensor stored under `key`.
    pub fn get(&self, key: &str) -> Option<&Tensor> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Remove `key`, returning its tensor.
    pub fn remove(&mut self, key: &str) -> Option<Tensor> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(i).1)
    }

    /// Whether `key` is in it.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The keys in order.
    pub fn keys(&self) -> Vec<&str> {
        self.entries.iter().map(|(k, _)| k.as_str()).collect()
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Tensor)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl FromIterator<(String, Tensor)> for StateDict {
    fn from_iter<I: IntoIterator<Item = (String, Tensor)>>(iter: I) -> StateDict {
        let mut sd = StateDict::new();
        for (k, v) in iter {
            sd.insert(k, v);
        }
        sd
    }
}

impl IntoIterator for StateDict {
    type Item = (String, Tensor);
    type IntoIter = std::vec::IntoIter<(String, Tensor)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl fmt::Debug for StateDict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v.shape())))
            .finish()
    }
}

/// What `load_state_dict` returns (torch's `_IncompatibleKeys`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IncompatibleKeys {
    /// torch's `missing_keys`: the module's keys the state dict lacks.
    pub missing_keys: Vec<String>,
    /// torch's `unexpected_keys`: the state dict's keys the module lacks.
    pub unexpected_keys: Vec<String>,
}

/// `torch.Size([3, 4])`, as torch's messages print a shape.
fn torch_size(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("torch.Size([{}])", dims.join(", "))
}

fn quoted(keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// torch's `Module.load_state_dict`.
pub(crate) fn load_into(
    root: &dyn Module,
    state_dict: &StateDict,
    strict: bool,
) -> Result<IncompatibleKeys> {
    let mut keys = IncompatibleKeys::default();
    let mut errors = Vec::new();
    load_module(root, state_dict, "", &mut keys, &mut errors)?;
    if strict {
        if !keys.unexpected_keys.is_empty() {
            let msg = format!(
                "Unexpected key(s) in state_dict: {}. ",
                quoted(&keys.unexpected_keys)
            );
            errors.insert(0, msg);
        }
        if !keys.missing_keys.is_empty() {
            let msg = format!(
                "Missing key(s) in state_dict: {}. ",
                quoted(&keys.missing_keys)
            );
            errors.insert(0, msg);
        }
    }
    if !errors.is_empty() {
        return Err(BorchError::Runtime(format!(
            "Error(s) in loading state_dict for {}:\n\t{}",
            root.name(),
            errors.join("\n\t")
        )));
    }
    Ok(keys)
}

/// torch's `_load_from_state_dict` for one module, then its children.
fn load_module(
    m: &dyn Module,
    state_dict: &StateDict,
    prefix: &str,
    keys: &mut IncompatibleKeys,
    errors: &mut Vec<String>,
) -> Result<()> {
    let local: Vec<(String, Tensor)> = m
        .own_parameters()
        .into_iter()
        .chain(m.own_buffers())
        .collect();
    for (name, param) in &local {
        let key = format!("{prefix}{name}");
        let Some(input) = state_dict.get(&key) else {
            keys.missing_keys.push(key);
            continue;
        };
        if input.shape() != param.shape() {
            errors.push(format!(
                "size mismatch for {key}: copying a param with shape {} from checkpoint, the \
                 shape in current model is {}.",
                torch_size(input.shape()),
                torch_size(param.shape())
            ));
            continue;
        }
        if let Err(e) = borch_autograd::no_grad(|| param.copy_(input)) {
            errors.push(format!(
                "While copying the parameter named \"{key}\", whose dimensions in the model are \
                 {} and whose dimensions in the checkpoint are {}, an exception occurred : {e}.",
                torch_size(param.shape()),
                torch_size(input.shape())
            ));
        }
    }
    let children = m.named_children();
    for (key, _) in state_dict.iter() {
        let Some(rest) = key.strip_prefix(prefix) else {
            continue;
        };
        let known = match rest.split_once('.') {
            Some((first, _)) => children.iter().any(|(name, _)| name == first),
            None => local.iter().any(|(name, _)| name == rest),
        };
        if !known {
            keys.unexpected_keys.push(key.to_string());
        }
    }
    for (name, child) in children {
        load_module(child, state_dict, &format!("{prefix}{name}."), keys, errors)?;
    }
    Ok(())
}
