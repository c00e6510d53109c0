//! Functions whose arguments include modules (`torch.nn.utils.fusion.fuse_conv_bn_eval(conv,
//! bn, transpose=False)`, borch's `fuse_for_eval(model)`), as catalogs that bindings forward to.
//! A catalog value cannot carry a module, so each function is written once as torch writes its
//! signature, module parameters typed `Module`; from that text follow the module parameters
//! (name, position), the other parameters (bound by the core's binder: torch's defaults and
//! TypeErrors) and the bindings' declarations. A binding takes the module arguments out
//! ([`split_arguments`]), lends them to the core and converts the [`Output`] back.

use borch_tensor::api::{self, Args, Call, Entry, Form, Returns, Value, parse_params};
use borch_tensor::{BorchError, Result};

use super::modules::stacks::ModuleParam;
use crate::module::Module;
use crate::state_dict::StateDict;

/// Makes a new module from the module arguments (None where left out) and the bound others.
pub type MakeModule = fn(&[Option<&dyn Module>], &Args) -> Result<Box<dyn Module>>;

/// What a function does with its modules.
#[derive(Clone, Copy)]
pub enum ModuleBody {
    /// Reads its modules (in [`ModuleFunction::modules`] order, None where left out) and makes a
    /// new module (`fuse_conv_bn_eval`: the fused conv; the arguments stay as they were).
    Make(MakeModule),
    /// Takes values only and returns one (`fuse_conv_bn_weights`: `entry.returns` says what).
    Values(fn(&Args) -> Result<Value>),
    /// Changes its one module in place (`fuse_for_eval(model)`) and returns None.
    InPlace(fn(&mut dyn Module, &Args) -> Result<()>),
    /// Changes its one module in place and returns names (`apply_lora(model, r)`: the dotted
    /// paths it adapted), a list of strs.
    InPlaceNames(fn(&mut dyn Module, &Args) -> Result<Vec<String>>),
    /// Reads its one module and returns a state dict (`lora_state_dict(model)`).
    ReadStateDict(fn(&dyn Module, &Args) -> Result<StateDict>),
}

/// One function of a catalog.
pub struct ModuleFunction {
    /// torch's name (`"clip_grad_norm_"`).
    pub name: &'static str,
    /// torch's signature, module parameters typed `Module` (`Module = None` when optional).
    pub signature: &'static str,
    /// The module parameters, from the signature.
    pub modules: Vec<ModuleParam>,
    /// The other parameters, in torch's order, as the binder takes them.
    pub entry: Entry,
    /// What the call does.
    pub body: ModuleBody,
}

/// What a call gives back.
pub enum Output {
    /// A module (`fuse_conv_bn_eval` and the like).
    Module(Box<dyn Module>),
    /// A value (a tensor, a number, a list).
    Value(Value),
    /// A state dict (`lora_state_dict`), as the bindings return `state_dict()`'s.
    StateDict(StateDict),
}

/// One namespace of module functions: its path in the bindings (`nn.utils.fusion`), torch's
/// module name for errors, and its catalog.
pub struct Namespace {
    /// The path below the package (`nn.utils.fusion`).
    pub path: &'static str,
    /// torch's (or borch's) module name, for errors.
    pub module: &'static str,
    /// The catalog.
    pub functions: fn() -> &'static [ModuleFunction],
}

/// Every namespace of module functions the bindings expose.
pub fn namespaces() -> [Namespace; 2] {
    [
        Namespace {
            path: "nn.utils.fusion",
            module: crate::utils::fusion_catalog::MODULE,
            functions: crate::utils::fusion_catalog::functions,
        },
        Namespace {
            path: "nn.utils.lora",
            module: crate::utils::lora_catalog::MODULE,
            functions: crate::utils::lora_catalog::functions,
        },
    ]
}

/// The namespace at `path`.
pub fn namespace(path: &str) -> Option<Namespace> {
    namespaces().into_iter().find(|ns| ns.path == path)
}

fn unused(_: &Args) -> Result<Value> {
    Ok(Value::None)
}

/// A function from its torch signature: the parameters typed `Module` are its modules, the
/// others its values. `returns` is what a [`ModuleBody::Values`] body returns.
pub fn function(
    name: &'static str,
    signature: &'static str,
    returns: Returns,
    body: ModuleBody,
) -> ModuleFunction {
    let mut modules = Vec::new();
    let mut values = Vec::new();
    for (position, p) in signature.split(',').map(str::trim).enumerate() {
        let (head, default) = p.split_once('=').unwrap_or((p, ""));
        let (param, kind) = head.split_once(':').expect("parameter without a kind");
        if kind.trim() == "Module" {
            modules.push(ModuleParam {
                name: Box::leak(param.trim().to_string().into_boxed_str()),
                position,
                required: default.trim().is_empty(),
            });
        } else {
            values.push(p);
        }
    }
    ModuleFunction {
        name,
        signature,
        modules,
        entry: Entry {
            name,
            form: Form::Function,
            params: parse_params(&values.join(", ")),
            returns,
            call: Call::Fn(unused),
        },
        body,
    }
}

/// The function `name` of `functions` (torch's AttributeError wording otherwise).
pub fn find<'a>(
    functions: &'a [ModuleFunction],
    module: &str,
    name: &str,
) -> Result<&'a ModuleFunction> {
    functions
        .iter()
        .find(|f| f.name == name)
        .ok_or_else(|| BorchError::Type(format!("module '{module}' has no attribute '{name}'")))
}

/// Arguments split as a binding must: the module arguments of a call of `what` (`params`, by
/// position or by keyword; `None` where left out), then the other positional and keyword
/// arguments, for the core's binder. `T` is the binding's value.
#[allow(clippy::type_complexity)]
pub fn split_modules<T>(
    what: &str,
    params: &[ModuleParam],
    mut positional: Vec<T>,
    keywords: Vec<(String, T)>,
) -> Result<(Vec<Option<T>>, Vec<T>, Vec<(String, T)>)> {
    let mut modules: Vec<Option<T>> = params.iter().map(|_| None).collect();
    for (i, p) in params.iter().enumerate().rev() {
        if p.position < positional.len() {
            modules[i] = Some(positional.remove(p.position));
        }
    }
    let mut rest = Vec::new();
    for (key, v) in keywords {
        match params.iter().position(|p| p.name == key) {
            Some(i) if modules[i].is_some() => {
                return Err(BorchError::Type(format!(
                    "{what}() got multiple values for argument '{key}'"
                )));
            }
            Some(i) => modules[i] = Some(v),
            None => rest.push((key, v)),
        }
    }
    Ok((modules, positional, rest))
}

/// [`split_modules`] for a call of `f`.
#[allow(clippy::type_complexity)]
pub fn split_arguments<T>(
    f: &ModuleFunction,
    positional: Vec<T>,
    keywords: Vec<(String, T)>,
) -> Result<(Vec<Option<T>>, Vec<T>, Vec<(String, T)>)> {
    split_modules(f.name, &f.modules, positional, keywords)
}

/// torch's TypeError for a required module left out (or given as None).
fn check_required(f: &ModuleFunction, given: &[bool]) -> Result<()> {
    match f
        .modules
        .iter()
        .zip(given)
        .find(|(p, g)| p.required && !**g)
    {
        Some((p, _)) => Err(BorchError::Type(format!(
            "{}() missing 1 required positional argument: '{}'",
            f.name, p.name
        ))),
        None => Ok(()),
    }
}

/// A call of `f` whose body reads its modules or takes none ([`ModuleBody::Make`],
/// [`ModuleBody::Values`]): `modules` in [`ModuleFunction::modules`] order, the others bound.
pub fn call_reading(
    f: &ModuleFunction,
    modules: &[Option<&dyn Module>],
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Output> {
    check_required(f, &modules.iter().map(Option::is_some).collect::<Vec<_>>())?;
    let args = api::bind(&f.entry, positional, keywords)?;
    match f.body {
        ModuleBody::Make(make) => make(modules, &args).map(Output::Module),
        ModuleBody::Values(body) => body(&args).map(Output::Value),
        ModuleBody::ReadStateDict(body) => match modules.first().copied().flatten() {
            Some(m) => body(m, &args).map(Output::StateDict),
            None => Err(BorchError::Type(format!(
                "{}() missing 1 required positional argument: 'model'",
                f.name
            ))),
        },
        ModuleBody::InPlace(_) | ModuleBody::InPlaceNames(_) => Err(BorchError::Runtime(format!(
            "{}() changes its module in place: call it through call_in_place",
            f.name
        ))),
    }
}

/// A call of `f` whose body changes its one module in place ([`ModuleBody::InPlace`]).
pub fn call_in_place(
    f: &ModuleFunction,
    module: Option<&mut dyn Module>,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Output> {
    check_required(f, &[module.is_some()])?;
    let args = api::bind(&f.entry, positional, keywords)?;
    match (f.body, module) {
        (ModuleBody::InPlace(body), Some(m)) => body(m, &args).map(|()| Output::Value(Value::None)),
        (ModuleBody::InPlaceNames(body), Some(m)) => body(m, &args)
            .map(|names| Output::Value(Value::List(names.into_iter().map(Value::Str).collect()))),
        _ => Err(BorchError::Runtime(format!(
            "{}() does not change a module in place: call it through call_reading",
            f.name
        ))),
    }
}

impl ModuleFunction {
    /// Whether the body changes its module in place (a binding borrows it mutably).
    pub fn in_place(&self) -> bool {
        matches!(
            self.body,
            ModuleBody::InPlace(_) | ModuleBody::InPlaceNames(_)
        )
    }
}
