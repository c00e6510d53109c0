//! The `nn.intrinsic` classes as a catalog that bindings forward to: each class by torch's
//! name with its module parameters (torch's names, in order) and one builder taking those
//! modules (moved in, as torch's `_FusedModule` holds them) after torch's type check
//! (`Incorrect types for input modules: Conv1d and ReLU`; torch's AssertionError is a
//! RuntimeError here, with torch's message).

use std::sync::OnceLock;

use borch_tensor::{BorchError, Result};

use super::fused::*;
use crate::module::Module;
use crate::{
    BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv2d, Conv3d, LeakyReLU, Linear, ReLU, Tanh,
};

/// The module named in errors.
pub const MODULE: &str = "torch.ao.nn.intrinsic";

/// Builds the fused module from its module arguments (already type-checked).
pub type FusedBuilder = fn(Vec<Box<dyn Module>>) -> Box<dyn Module>;

/// One class of `nn.intrinsic`.
pub struct FusedClass {
    /// torch's class name (`"ConvReLU2d"`).
    pub name: &'static str,
    /// torch's module parameters, in order (`["conv", "bn", "relu"]`).
    pub modules: &'static [&'static str],
    /// torch's parameters that take a function, not a module (ConvAdd2d's `add`, which is
    /// `torch.add`): a binding accepts `torch.add` there; borch's forward always adds.
    pub functions: &'static [(&'static str, usize)],
    /// The class names each module argument must have.
    pub types: &'static [&'static str],
    /// Builds the fused module.
    pub build: FusedBuilder,
}

/// `m` as its type (checked before).
fn take<T: Module + 'static>(m: Box<dyn Module>) -> T {
    match m.into_any().downcast::<T>() {
        Ok(t) => *t,
        Err(_) => unreachable!("the types were checked"),
    }
}

macro_rules! classes {
    ($($name:ident($($arg:ident: $ty:ident),+) $(functions $f:expr)?;)*) => {
        fn all() -> Vec<FusedClass> {
            vec![$(FusedClass {
                name: stringify!($name),
                modules: &[$(stringify!($arg)),+],
                functions: &[$($f)?],
                types: &[$(stringify!($ty)),+],
                build: |ms| {
                    let mut it = ms.into_iter();
                    Box::new($name::new($(take::<$ty>(it.next().expect(stringify!($arg)))),+))
                },
            }),*]
        }
    };
}

classes! {
    ConvReLU1d(conv: Conv1d, relu: ReLU);
    ConvReLU2d(conv: Conv2d, relu: ReLU);
    ConvReLU3d(conv: Conv3d, relu: ReLU);
    LinearReLU(linear: Linear, relu: ReLU);
    ConvBn1d(conv: Conv1d, bn: BatchNorm1d);
    ConvBn2d(conv: Conv2d, bn: BatchNorm2d);
    ConvBn3d(conv: Conv3d, bn: BatchNorm3d);
    ConvBnReLU1d(conv: Conv1d, bn: BatchNorm1d, relu: ReLU);
    ConvBnReLU2d(conv: Conv2d, bn: BatchNorm2d, relu: ReLU);
    ConvBnReLU3d(conv: Conv3d, bn: BatchNorm3d, relu: ReLU);
    BNReLU2d(batch_norm: BatchNorm2d, relu: ReLU);
    BNReLU3d(batch_norm: BatchNorm3d, relu: ReLU);
    LinearBn1d(linear: Linear, bn: BatchNorm1d);
    LinearLeakyReLU(linear: Linear, leaky_relu: LeakyReLU);
    LinearTanh(linear: Linear, tanh: Tanh);
    ConvAdd2d(conv: Conv2d) functions ("add", 1);
    ConvAddReLU2d(conv: Conv2d, relu: ReLU) functions ("add", 1);
}

/// Every class, built once.
pub fn fused_classes() -> &'static [FusedClass] {
    static CLASSES: OnceLock<Vec<FusedClass>> = OnceLock::new();
    CLASSES.get_or_init(all)
}

/// The class called `name`, if `nn.intrinsic` has it.
pub fn find_fused(name: &str) -> Option<&'static FusedClass> {
    fused_classes().iter().find(|c| c.name == name)
}

/// torch's `Incorrect types for input modules: A and B` / `A, B, and C`.
fn incorrect(names: &[String]) -> BorchError {
    let list = match names {
        [a, b] => format!("{a} and {b}"),
        [a, b, c] => format!("{a}, {b}, and {c}"),
        other => other.join(", "),
    };
    BorchError::Runtime(format!("Incorrect types for input modules: {list}"))
}

/// torch's checks of `nni.<name>(*modules)` from the modules' class names: the number of
/// arguments (TypeError), then their classes (`Incorrect types for input modules: …`).
pub fn check_fused(name: &str, classes: &[String]) -> Result<&'static FusedClass> {
    let class = find_fused(name)
        .ok_or_else(|| BorchError::Type(format!("module '{MODULE}' has no attribute '{name}'")))?;
    let (given, want) = (classes.len(), class.modules.len());
    if given < want {
        let missing: Vec<String> = class.modules[given..]
            .iter()
            .map(|m| format!("'{m}'"))
            .collect();
        return Err(BorchError::Type(format!(
            "{name}.__init__() missing {} required positional argument(s): {}",
            missing.len(),
            missing.join(", ")
        )));
    }
    if given > want {
        let extra = class.functions.len() + 1;
        return Err(BorchError::Type(format!(
            "{name}.__init__() takes {} positional arguments but {} were given",
            want + extra,
            given + extra
        )));
    }
    if classes.iter().zip(class.types).any(|(n, t)| n != t) {
        return Err(incorrect(classes));
    }
    Ok(class)
}

/// torch's `nni.<name>(*modules)` (ConvAdd2d's and ConvAddReLU2d's `add` left out): the modules
/// type-checked as torch checks them ([`check_fused`]), then moved into the fused module.
pub fn build_fused(name: &str, modules: Vec<Box<dyn Module>>) -> Result<Box<dyn Module>> {
    let names: Vec<String> = modules.iter().map(|m| m.name()).collect();
    let class = check_fused(name, &names)?;
    Ok((class.build)(modules))
}

/// The child names of class `name`'s modules, in order (`0`, `1`, …; ConvAddReLU2d's ReLU is
/// `relu`), as a binding names the modules it moves in.
pub fn child_names(name: &str) -> Vec<&'static str> {
    match name {
        "ConvAddReLU2d" => vec!["0", "relu"],
        _ => ["0", "1", "2"][..find_fused(name).map_or(0, |c| c.modules.len())].to_vec(),
    }
}

/// Every class name, in catalog order.
pub fn fused_names() -> Vec<&'static str> {
    fused_classes().iter().map(|c| c.name).collect()
}

/// For a binding: the arguments of `nni.<name>(*args)` checked and named as the fused module's
/// children. `function_name` gives a function argument's name (ConvAdd2d's `add` must be
/// `add`: [`check_add`]), `module_class` a module argument's class name (`None`: not a module).
/// torch's TypeErrors for a missing or extra argument, then its type check ([`check_fused`]).
pub fn bind_fused<T>(
    name: &str,
    mut args: Vec<T>,
    function_name: impl Fn(&T) -> Option<String>,
    module_class: impl Fn(&T) -> Option<String>,
) -> Result<Vec<(String, T)>> {
    let class = find_fused(name)
        .ok_or_else(|| BorchError::Type(format!("module '{MODULE}' has no attribute '{name}'")))?;
    for &(function, position) in class.functions.iter().rev() {
        if position >= args.len() {
            return Err(BorchError::Type(format!(
                "{name}.__init__() missing 1 required positional argument: '{function}'"
            )));
        }
        let f = args.remove(position);
        check_add(name, function_name(&f).as_deref())?;
    }
    let mut classes = Vec::new();
    for (i, a) in args.iter().enumerate() {
        classes.push(module_class(a).ok_or_else(|| {
            BorchError::Type(format!(
                "{name}.__init__(): argument {} must be a Module",
                i + 1
            ))
        })?);
    }
    check_fused(name, &classes)?;
    Ok(child_names(name)
        .into_iter()
        .map(str::to_string)
        .zip(args)
        .collect())
}

/// [`build_fused`] of named modules (as [`bind_fused`] named them).
pub fn build_fused_named(
    name: &str,
    modules: Vec<(String, Box<dyn Module>)>,
) -> Result<Box<dyn Module>> {
    build_fused(name, modules.into_iter().map(|(_, m)| m).collect())
}

/// Whether `function` is what torch passes as ConvAdd2d's `add` (`torch.add` or
/// `operator.add`, by its name): borch's ConvAdd2d always adds.
pub fn check_add(class: &str, function_name: Option<&str>) -> Result<()> {
    match function_name {
        Some("add") => Ok(()),
        _ => Err(BorchError::NotImplemented(format!(
            "{class}(conv, add, ...): borch's {class} adds (torch.add); pass torch.add"
        ))),
    }
}
