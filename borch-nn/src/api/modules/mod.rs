//! The `torch.nn` module classes as a catalog that bindings forward to: each class by torch's
//! name, with its constructor's signature written as the op catalog writes one
//! (`"in_features: Int, out_features: Int, bias: Bool = True, …"`, parsed by
//! [`parse_params`]) and one builder. [`build_module`] binds positional and keyword arguments to
//! that signature with the core's binder (torch's defaults and TypeErrors) and builds the module,
//! so JavaScript's `nn.<Class>`, Python's `borch_webgpu.nn.<Class>` and the native tests all
//! construct through this one definition.
//!
//! Each group file (`layers.rs`, `activations.rs`, …) returns its classes from `entries()`;
//! adding a group is one file and one line in [`classes`]. Containers (Sequential, ModuleList,
//! ModuleDict) take modules, not values, and are built by the bindings themselves; classes that
//! take a module to deep-copy (TransformerEncoder) are in [`stacks`].

use std::sync::OnceLock;

use borch_tensor::api::{self, Args, Call, Entry, Form, Param, Returns, Value, parse_params};
use borch_tensor::{BorchError, DType, Result};

use crate::api::forward::ForwardSignature;
use crate::module::Module;
use crate::reduction::Reduction;

mod activations;
mod activations_more;
mod conv;
mod conv_more;
mod dropout_distance;
mod layers;
mod lazy;
mod lora;
mod losses;
mod losses_more;
mod more_layers;
mod normalization;
mod normalization_more;
mod padding;
mod pooling;
mod pooling_more;
mod recurrent;
mod resample;
pub mod stacks;
pub mod statics;
mod transformer;

/// The module named in errors (`module 'torch.nn' has no attribute 'X'`).
pub const MODULE: &str = "torch.nn";

/// Builds a module from its bound constructor arguments (in the signature's order).
pub type Builder = fn(&Args) -> Result<Box<dyn Module>>;

/// One class of the catalog.
pub struct ModuleClass {
    /// torch's class name (`"Linear"`).
    pub name: &'static str,
    /// The constructor's parameters as written (`"in_features: Int, …"`).
    pub signature: &'static str,
    /// The signature parsed, as an [`Entry`] the core's binder takes (its `call` is unused).
    pub entry: Entry,
    /// Builds the module from the bound arguments.
    pub build: Builder,
    /// The forward's signature when it takes more than tensors or returns a tuple (LSTM's
    /// `forward(input, hx=None) -> (output, (h_n, c_n))`); `None`: tensors in, one tensor out.
    pub forward: Option<&'static ForwardSignature>,
}

impl ModuleClass {
    /// The constructor's parameters, in torch's order.
    pub fn params(&self) -> &[Param] {
        &self.entry.params
    }

    /// This class with the forward signature its module's `forward_values` binds.
    pub(super) fn with_forward(self, forward: &'static ForwardSignature) -> ModuleClass {
        ModuleClass {
            forward: Some(forward),
            ..self
        }
    }
}

impl std::fmt::Debug for ModuleClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({})", self.name, self.signature)
    }
}

fn unused(_: &Args) -> Result<Value> {
    Ok(Value::None)
}

/// A class of the catalog: its torch name, its constructor's signature and its builder (also
/// how other crates' catalogs, e.g. borch-vision's models, declare theirs).
pub fn class(name: &'static str, signature: &'static str, build: Builder) -> ModuleClass {
    ModuleClass {
        name,
        signature,
        entry: Entry {
            name,
            form: Form::Function,
            params: parse_params(signature),
            returns: Returns::Tensor,
            call: Call::Fn(unused),
        },
        build,
        forward: None,
    }
}

/// Every class, in group order, built once.
pub fn classes() -> &'static [ModuleClass] {
    static CLASSES: OnceLock<Vec<ModuleClass>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let mut all = Vec::new();
        all.extend(layers::entries());
        all.extend(activations::entries());
        all.extend(conv::entries());
        all.extend(pooling::entries());
        all.extend(conv_more::entries());
        all.extend(pooling_more::entries());
        all.extend(lazy::entries());
        all.extend(normalization::entries());
        all.extend(normalization_more::entries());
        all.extend(padding::entries());
        all.extend(resample::entries());
        all.extend(losses::entries());
        all.extend(activations_more::entries());
        all.extend(losses_more::entries());
        all.extend(dropout_distance::entries());
        all.extend(recurrent::entries());
        all.extend(more_layers::entries());
        all.extend(transformer::entries());
        all.extend(lora::entries());
        all
    })
}

/// The class called `name`, if the catalog has it.
pub fn find(name: &str) -> Option<&'static ModuleClass> {
    classes().iter().find(|c| c.name == name)
}

/// Every class name, in catalog order.
pub fn names() -> Vec<&'static str> {
    classes().iter().map(|c| c.name).collect()
}

/// `(name, signature)` of every class, for generators and documentation.
pub fn signatures() -> Vec<(&'static str, &'static str)> {
    classes().iter().map(|c| (c.name, c.signature)).collect()
}

/// torch's `nn.<name>(*positional, **keywords)`: the arguments bound to the class's signature
/// (torch's TypeErrors for a missing, unexpected or mistyped argument), then the module built.
pub fn build_module(
    name: &str,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Box<dyn Module>> {
    let Some(class) = find(name) else {
        return Err(BorchError::Type(format!(
            "module '{MODULE}' has no attribute '{name}'"
        )));
    };
    let args = api::bind(&class.entry, positional, keywords)?;
    (class.build)(&args)
}

/// A built module as the builder's result.
pub(super) fn boxed<M: Module + 'static>(m: M) -> Result<Box<dyn Module>> {
    Ok(Box::new(m))
}

/// `inplace=True`, which borch's modules do not offer (argument `i`).
pub(super) fn no_inplace(a: &Args, i: usize) -> Result<()> {
    if a.bool(i)? {
        return Err(BorchError::NotImplemented(format!(
            "{}(inplace=True): borch's modules have no in-place form",
            a.name()
        )));
    }
    Ok(())
}

/// torch's `device=None, dtype=None` factory keywords at `i` and `i + 1`: borch's parameters live
/// on its one device as float32.
pub(super) fn factory(a: &Args, i: usize) -> Result<()> {
    if !a.get(i).is_none() {
        a.str(i)?;
        return Err(BorchError::NotImplemented(format!(
            "{}(device=...): borch has one device (its WebGPU adapter); leave device out",
            a.name()
        )));
    }
    match a.dtype(i + 1)? {
        None | Some(DType::Float32) => Ok(()),
        Some(d) => Err(BorchError::NotImplemented(format!(
            "{}(dtype={}): borch's module parameters are float32",
            a.name(),
            d.name()
        ))),
    }
}

/// torch's deprecated `size_average` and `reduce` (arguments `i`, `j`), which borch does not take.
pub(super) fn legacy(a: &Args, i: usize, j: usize) -> Result<()> {
    if a.get(i).is_none() && a.get(j).is_none() {
        return Ok(());
    }
    Err(BorchError::NotImplemented(format!(
        "{}(): borch does not take the deprecated size_average and reduce: pass reduction",
        a.name()
    )))
}

/// torch's `reduction=` string (argument `i`).
pub(super) fn reduction(a: &Args, i: usize) -> Result<Reduction> {
    a.str(i)?.parse()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_a_unique_name_and_a_parsed_signature() {
        let mut names: Vec<_> = classes().iter().map(|c| c.name).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a class is registered twice");
        for c in classes() {
            let expected = c
                .signature
                .split(',')
                .filter(|p| !p.trim().is_empty())
                .count();
            assert_eq!(c.params().len(), expected, "{c:?}");
        }
    }
}
