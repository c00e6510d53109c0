//! Classes whose constructor takes modules as well as values: torch's
//! `TransformerEncoder(encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
//! mask_check=True)` and `TransformerDecoder(decoder_layer, num_layers, norm=None)`. A catalog
//! value cannot carry a module, so each class lists its module parameters (name and position in
//! torch's signature); a binding takes those arguments out, hands them over as `&dyn Module`
//! (they are deep-copied, so the caller's layer stays its own, as torch's `_get_clones`), and the
//! core binds the rest to the other parameters with its binder (torch's defaults and TypeErrors).

use std::sync::OnceLock;

use borch_tensor::api::{self, Args, Call, Entry, Form, Returns, Value, parse_params};
use borch_tensor::{BorchError, Result};

use super::{MODULE, boxed};
use crate::api::forward::ForwardSignature;
use crate::layers::transformer::{DECODER_FORWARD, ENCODER_FORWARD};
use crate::module::Module;
use crate::{TransformerDecoder, TransformerEncoder};

/// A module parameter: torch's name, its position in torch's signature, whether it is required
/// (an optional one defaults to None).
pub struct ModuleParam {
    /// torch's name of the parameter.
    pub name: &'static str,
    /// Its position in torch's signature.
    pub position: usize,
    /// Whether it must be given (an optional one defaults to None).
    pub required: bool,
}

/// Builds the module from its module arguments (in [`StackClass::modules`] order, None where
/// left out or None) and the other arguments, bound.
pub type StackBuilder = fn(&[Option<&dyn Module>], &Args) -> Result<Box<dyn Module>>;

/// One class taking modules.
pub struct StackClass {
    /// torch's class name (`"TransformerEncoder"`).
    pub name: &'static str,
    /// torch's signature, module parameters typed `Module`.
    pub signature: &'static str,
    /// The module parameters, from the signature.
    pub modules: &'static [ModuleParam],
    /// The other parameters, in torch's order, as the binder takes them.
    pub entry: Entry,
    /// Builds the module.
    pub build: StackBuilder,
    /// The forward's signature.
    pub forward: &'static ForwardSignature,
}

fn unused(_: &Args) -> Result<Value> {
    Ok(Value::None)
}

fn stack(
    name: &'static str,
    signature: &'static str,
    modules: &'static [ModuleParam],
    values: &str,
    build: StackBuilder,
    forward: &'static ForwardSignature,
) -> StackClass {
    StackClass {
        name,
        signature,
        modules,
        entry: Entry {
            name,
            form: Form::Function,
            params: parse_params(values),
            returns: Returns::Tensor,
            call: Call::Fn(unused),
        },
        build,
        forward,
    }
}

const fn param(name: &'static str, position: usize, required: bool) -> ModuleParam {
    ModuleParam {
        name,
        position,
        required,
    }
}

static ENCODER_MODULES: [ModuleParam; 2] =
    [param("encoder_layer", 0, true), param("norm", 2, false)];
static DECODER_MODULES: [ModuleParam; 2] =
    [param("decoder_layer", 0, true), param("norm", 2, false)];

fn layer<'a>(m: &[Option<&'a dyn Module>]) -> Result<&'a dyn Module> {
    m.first()
        .copied()
        .flatten()
        .ok_or_else(|| BorchError::Type("the layer argument is required".into()))
}

fn encoder(m: &[Option<&dyn Module>], a: &Args) -> Result<Box<dyn Module>> {
    let norm = m.get(1).copied().flatten();
    boxed(TransformerEncoder::from_modules(
        layer(m)?,
        a.usize(0)?,
        norm,
        a.bool(1)?,
        a.bool(2)?,
    )?)
}

fn decoder(m: &[Option<&dyn Module>], a: &Args) -> Result<Box<dyn Module>> {
    let norm = m.get(1).copied().flatten();
    boxed(TransformerDecoder::from_modules(
        layer(m)?,
        a.usize(0)?,
        norm,
    )?)
}

/// Every class taking modules, built once.
pub fn stack_classes() -> &'static [StackClass] {
    static CLASSES: OnceLock<Vec<StackClass>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        vec![
            stack(
                "TransformerEncoder",
                "encoder_layer: Module, num_layers: Int, norm: Module = None, \
                 enable_nested_tensor: Bool = True, mask_check: Bool = True",
                &ENCODER_MODULES,
                "num_layers: Int, enable_nested_tensor: Bool = True, mask_check: Bool = True",
                encoder,
                &ENCODER_FORWARD,
            ),
            stack(
                "TransformerDecoder",
                "decoder_layer: Module, num_layers: Int, norm: Module = None",
                &DECODER_MODULES,
                "num_layers: Int",
                decoder,
                &DECODER_FORWARD,
            ),
        ]
    })
}

/// The class called `name`, if it takes modules.
pub fn find_stack(name: &str) -> Option<&'static StackClass> {
    stack_classes().iter().find(|c| c.name == name)
}

/// Every class name a binding's `nn` has: the catalog's, then those taking modules.
pub fn class_names() -> Vec<&'static str> {
    let mut names = super::names();
    names.extend(stack_classes().iter().map(|c| c.name));
    names
}

/// The arguments of class `name` split as a binding must: its module arguments (in
/// [`StackClass::modules`] order, by position or by keyword; `None` where left out), then the
/// other positional and keyword arguments, for the core's binder. `T` is the binding's value.
#[allow(clippy::type_complexity)]
pub fn split_arguments<T>(
    name: &str,
    positional: Vec<T>,
    keywords: Vec<(String, T)>,
) -> Result<(Vec<Option<T>>, Vec<T>, Vec<(String, T)>)> {
    let class = find_stack(name)
        .ok_or_else(|| BorchError::Type(format!("module '{MODULE}' has no attribute '{name}'")))?;
    let what = format!("{name}.__init__");
    crate::api::module_functions::split_modules(&what, class.modules, positional, keywords)
}

/// torch's `nn.<name>(...)` for a class taking modules: `modules` are its module arguments in
/// [`StackClass::modules`] order (None where left out), `positional` and `keywords` the others.
pub fn build_stack(
    name: &str,
    modules: &[Option<&dyn Module>],
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Box<dyn Module>> {
    let Some(class) = find_stack(name) else {
        return Err(BorchError::Type(format!(
            "module '{MODULE}' has no attribute '{name}'"
        )));
    };
    for (p, m) in class.modules.iter().zip(modules) {
        if p.required && m.is_none() {
            return Err(BorchError::Type(format!(
                "{name}.__init__() missing 1 required positional argument: '{}'",
                p.name
            )));
        }
    }
    let args = api::bind(&class.entry, positional, keywords)?;
    (class.build)(modules, &args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_arguments_split_by_position_and_keyword() {
        let (m, p, k) =
            split_arguments("TransformerEncoder", vec!["L", "2", "N", "F"], vec![]).expect("split");
        assert_eq!(
            (m, p, k),
            (vec![Some("L"), Some("N")], vec!["2", "F"], vec![])
        );
        let kw = vec![("norm".to_string(), "N"), ("mask_check".to_string(), "F")];
        let (m, p, k) = split_arguments("TransformerEncoder", vec!["L", "2"], kw).expect("split");
        assert_eq!(m, vec![Some("L"), Some("N")]);
        assert_eq!((p, k), (vec!["2"], vec![("mask_check".to_string(), "F")]));
        let twice = vec![("decoder_layer".to_string(), "L")];
        let e = split_arguments("TransformerDecoder", vec!["L", "1"], twice).unwrap_err();
        assert_eq!(
            e.to_string(),
            "TransformerDecoder.__init__() got multiple values for argument 'decoder_layer'"
        );
        let e = build_stack(
            "TransformerEncoder",
            &[None, None],
            vec![Value::Int(2)],
            vec![],
        );
        assert_eq!(
            e.err().map(|e| e.to_string()).as_deref(),
            Some(
                "TransformerEncoder.__init__() missing 1 required positional argument: 'encoder_layer'"
            )
        );
        assert!(class_names().ends_with(&["TransformerEncoder", "TransformerDecoder"]));
    }
}
