//! torch's `nn.Module`: forward, parameters and buffers by dotted name, children, train/eval,
//! zero_grad, state_dict / load_state_dict and the printed form.
//!
//! A layer implements the few required methods (its name, its own parameters, buffers and
//! children, its training flag, `forward`); everything that walks the tree is provided here.
//! The trait is object-safe, so containers hold `Box<dyn Module>`.

use std::any::Any;
use std::collections::HashSet;
use std::fmt;

use borch_tensor::api::Value;
use borch_tensor::{BorchError, Result, Tensor};

use crate::repr::add_indent;
use crate::state_dict::{IncompatibleKeys, StateDict, load_into};

/// Access to a module as `&dyn Module` and as `Any` (for downcasting a child to its type);
/// implemented for every module by a blanket impl.
pub trait AsModule {
    /// `self` as a `dyn Module`.
    fn as_module(&self) -> &dyn Module;
    /// `self` as a mutable `dyn Module`.
    fn as_module_mut(&mut self) -> &mut dyn Module;
    /// `self` as `Any`, to downcast to the concrete module.
    fn as_any(&self) -> &dyn Any;
    /// `self` as mutable `Any`.
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// The boxed module as `Box<dyn Any>`, to take a child back as its type.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: Module + 'static> AsModule for T {
    fn as_module(&self) -> &dyn Module {
        self
    }
    fn as_module_mut(&mut self) -> &mut dyn Module {
        self
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// torch's `nn.Module`.
pub trait Module: AsModule {
    /// torch's `forward` for a module of one input.
    fn forward(&self, input: &Tensor) -> Result<Tensor>;

    /// `forward` with several inputs (Bilinear's two, a loss's input and target); a module of one
    /// input takes exactly one.
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [x] => self.forward(x),
            _ => Err(BorchError::Type(format!(
                "{}.forward() takes 2 positional arguments but {} were given",
                self.name(),
                inputs.len() + 1
            ))),
        }
    }

    /// torch's `forward(*args, **kwargs)` as a binding calls it: any values in, one value out (a
    /// tensor, or a tuple as `Value::List`, nested as torch nests it: LSTM's `(output, (h_n,
    /// c_n))`). The default takes tensors only, positionally, and calls [`Module::forward_args`];
    /// a module whose forward takes more (masks, flags, initial states) or returns a tuple
    /// overrides it, binding its arguments with a [`crate::api::forward::ForwardSignature`].
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        crate::api::forward::tensors_only(self.as_module(), positional, keywords)
    }

    /// The class name (torch's `_get_name()`), used by the printed form and error messages.
    fn name(&self) -> String;

    /// torch's `extra_repr`: the arguments shown inside the parentheses.
    fn extra_repr(&self) -> String {
        String::new()
    }

    /// This module's own parameters (not its children's), in registration order.
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        Vec::new()
    }

    /// This module's own persistent buffers, in registration order.
    fn own_buffers(&self) -> Vec<(String, Tensor)> {
        Vec::new()
    }

    /// torch's `named_children`: the direct submodules in registration order.
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        Vec::new()
    }

    /// The direct submodules, mutably (for `train`).
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        Vec::new()
    }

    /// Replace the direct child `name` by `module` and return the one it replaces (Python's
    /// `setattr(parent, name, module)` as `torch.ao.quantization.fuse_modules` uses it). The
    /// containers (Sequential, ModuleList, ModuleDict) can; a module whose children are typed
    /// fields cannot, and says so (give it a [`Module::fuse_for_eval`] instead).
    fn replace_child(&mut self, name: &str, module: Box<dyn Module>) -> Result<Box<dyn Module>> {
        let _ = module;
        Err(BorchError::NotImplemented(format!(
            "{}: its child '{name}' is a typed field and cannot be replaced by another module",
            self.name()
        )))
    }

    /// borch's eval-mode fusion hook (`borch_nn::utils::fusion::fuse_for_eval`): fold this
    /// module's Conv-BN(-Add)(-ReLU) patterns into fused forwards. The default recurses into
    /// the children; `Sequential` fuses runs of its children (`nn.intrinsic` modules, as
    /// `fuse_modules` would); a module with a forward of its own (a ResNet block) overrides it
    /// and switches its eval forward to `borch_nn::intrinsic::conv_bn2d_forward`.
    fn fuse_for_eval(&mut self) -> Result<()> {
        for (_, child) in self.named_children_mut() {
            child.fuse_for_eval()?;
        }
        Ok(())
    }

    /// torch's `training` flag of this module alone.
    fn is_training(&self) -> bool;

    /// Set this module's own `training` flag (`train` sets it on the whole tree).
    fn set_training(&mut self, mode: bool);

    /// torch's `train(mode)`: set training mode on this module and every descendant.
    fn train(&mut self, mode: bool) {
        self.set_training(mode);
        for (_, child) in self.named_children_mut() {
            child.train(mode);
        }
    }

    /// torch's `eval()`: `train(false)`.
    fn eval(&mut self) {
        self.train(false);
    }

    /// torch's `children()`.
    fn children(&self) -> Vec<&dyn Module> {
        self.named_children().into_iter().map(|(_, m)| m).collect()
    }

    /// torch's `named_modules()`: this module (named "") and every descendant, depth first, with
    /// dotted names.
    fn named_modules(&self) -> Vec<(String, &dyn Module)> {
        let mut out = vec![(String::new(), self.as_module())];
        collect_modules(self.as_module(), "", &mut out);
        out
    }

    /// torch's `modules()`.
    fn modules(&self) -> Vec<&dyn Module> {
        self.named_modules().into_iter().map(|(_, m)| m).collect()
    }

    /// torch's `named_parameters()`: every parameter of the tree once (a tensor shared by two
    /// modules is listed under its first name), with dotted names such as `0.weight`.
    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        named_members(self.as_module(), |m| m.own_parameters())
    }

    /// torch's `parameters()`: what an optimizer takes.
    fn parameters(&self) -> Vec<Tensor> {
        self.named_parameters()
            .into_iter()
            .map(|(_, p)| p)
            .collect()
    }

    /// torch's `named_buffers()`.
    fn named_buffers(&self) -> Vec<(String, Tensor)> {
        named_members(self.as_module(), |m| m.own_buffers())
    }

    /// torch's `buffers()`.
    fn buffers(&self) -> Vec<Tensor> {
        self.named_buffers().into_iter().map(|(_, b)| b).collect()
    }

    /// torch's `requires_grad_(requires_grad)`: freeze (false) or unfreeze every parameter.
    fn requires_grad_(&self, requires_grad: bool) -> Result<()> {
        for p in self.parameters() {
            p.set_requires_grad(requires_grad)?;
        }
        Ok(())
    }

    /// torch's `apply(fn)`: call `f` on every submodule (children first) and then on this
    /// module, e.g. to initialise weights.
    fn apply(&self, f: &mut dyn FnMut(&dyn Module) -> Result<()>) -> Result<()> {
        for child in self.children() {
            child.apply(f)?;
        }
        f(self.as_module())
    }

    /// torch's `zero_grad(set_to_none)`: clear (or zero) every parameter's `.grad`.
    fn zero_grad(&self, set_to_none: bool) -> Result<()> {
        for p in self.parameters() {
            match p.grad() {
                Some(g) if !set_to_none => borch_autograd::no_grad(|| g.zero_())?,
                _ => p.set_grad(None),
            }
        }
        Ok(())
    }

    /// torch's `state_dict()`: every parameter and persistent buffer by dotted name (module by
    /// module: its parameters, its buffers, then its children), detached but sharing storage.
    fn state_dict(&self) -> StateDict {
        let mut out = StateDict::new();
        collect_state(self.as_module(), "", &mut out);
        out
    }

    /// torch's `load_state_dict(state_dict, strict)`: copy the values in (shapes must match);
    /// with `strict`, missing or unexpected keys are an error with torch's message. Returns the
    /// missing and unexpected keys.
    fn load_state_dict(&self, state_dict: &StateDict, strict: bool) -> Result<IncompatibleKeys> {
        load_into(self.as_module(), state_dict, strict)
    }

    /// torch's `repr(module)`: the name, `extra_repr` and the children indented below.
    fn repr(&self) -> String {
        let extra = self.extra_repr();
        let extra_lines: Vec<String> = if extra.is_empty() {
            Vec::new()
        } else {
            extra.split('\n').map(str::to_string).collect()
        };
        let child_lines: Vec<String> = self
            .named_children()
            .into_iter()
            .map(|(name, m)| format!("({name}): {}", add_indent(&m.repr(), 2)))
            .collect();
        format_repr(&self.name(), &extra_lines, &child_lines)
    }
}

/// torch's `Module.__repr__` layout from its pieces.
pub(crate) fn format_repr(name: &str, extra_lines: &[String], child_lines: &[String]) -> String {
    let mut s = format!("{name}(");
    if extra_lines.len() == 1 && child_lines.is_empty() {
        s.push_str(&extra_lines[0]);
    } else if !extra_lines.is_empty() || !child_lines.is_empty() {
        let lines: Vec<&str> = extra_lines
            .iter()
            .chain(child_lines)
            .map(String::as_str)
            .collect();
        s.push_str("\n  ");
        s.push_str(&lines.join("\n  "));
        s.push('\n');
    }
    s.push(')');
    s
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

fn collect_modules<'a>(m: &'a dyn Module, prefix: &str, out: &mut Vec<(String, &'a dyn Module)>) {
    for (name, child) in m.named_children() {
        let full = join(prefix, &name);
        out.push((full.clone(), child));
        collect_modules(child, &full, out);
    }
}

fn named_members(
    root: &dyn Module,
    members: impl Fn(&dyn Module) -> Vec<(String, Tensor)>,
) -> Vec<(String, Tensor)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (prefix, m) in root.named_modules() {
        for (name, t) in members(m) {
            if seen.insert(t.id()) {
                out.push((join(&prefix, &name), t));
            }
        }
    }
    out
}

fn collect_state(m: &dyn Module, prefix: &str, out: &mut StateDict) {
    for (name, t) in m.own_parameters().into_iter().chain(m.own_buffers()) {
        out.insert(format!("{prefix}{name}"), t.detach());
    }
    for (name, child) in m.named_children() {
        collect_state(child, &format!("{prefix}{name}."), out);
    }
}

impl fmt::Display for dyn Module + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr())
    }
}

impl fmt::Debug for dyn Module + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr())
    }
}

/// `Display` (and `Debug`) as torch's repr for module types: `display_as_repr!(MyNet);`.
#[macro_export]
macro_rules! display_as_repr {
    ($($t:ty),* $(,)?) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&$crate::Module::repr(self))
            }
        }
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&$crate::Module::repr(self))
            }
        }
    )*};
}
/// The training flag's two methods (`is_training`, `set_training`) inside `impl Module for …`,
/// for a struct with a `training: bool` field.
#[macro_export]
macro_rules! training_flag {
    () => {
        fn is_training(&self) -> bool {
            self.training
        }
        fn set_training(&mut self, mode: bool) {
            self.training = mode;
        }
    };
}

/// `named_children` and `named_children_mut` inside `impl Module for …`, for a module whose
/// children are fields named as torch names them, listed in registration order.
#[macro_export]
macro_rules! child_fields {
    ($($field:ident),+ $(,)?) => {
        fn named_children(&self) -> Vec<(String, &dyn $crate::Module)> {
            vec![$((stringify!($field).into(), &self.$field as &dyn $crate::Module)),+]
        }
        fn named_children_mut(&mut self) -> Vec<(String, &mut dyn $crate::Module)> {
            vec![$((stringify!($field).into(), &mut self.$field as &mut dyn $crate::Module)),+]
        }
    };
}
