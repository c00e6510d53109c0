//! `nn.TransformerEncoder(encoderLayer, numLayers, norm, …)` and `nn.TransformerDecoder(…)`:
//! classes whose constructor takes modules (`borch_nn::api::modules::stacks`). The module
//! arguments are taken out of the arguments here and lent to the core, which deep-copies them (so
//! the caller's layer stays its own, unlike `Sequential`, which takes its modules); the core binds
//! the other arguments and builds the module.

use borch_nn::api::modules::stacks::{StackClass, build_stack, find_stack, stack_classes};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::bind::wrong_argument;
use crate::call::{arguments, is_options, snake};
use crate::errors::{JsResult, type_error};
use crate::modules::{Node, node_of, with_modules};
use crate::nn::JsModule;

/// The class names `namespaces()` adds to `nn`.
pub fn names() -> Vec<&'static str> {
    stack_classes().iter().map(|c| c.name).collect()
}

/// The arguments without the module ones, and the module ones in the class's order (`None`
/// where left out, `undefined` or `null`).
fn split(class: &StackClass, args: &Array) -> JsResult<(Array, Vec<Option<Node>>)> {
    let mut items: Vec<JsValue> = args.iter().collect();
    let options = match items.last() {
        Some(last) if is_options(last) => items.pop(),
        _ => None,
    };
    let mut found = vec![JsValue::UNDEFINED; class.modules.len()];
    for (i, p) in class.modules.iter().enumerate().rev() {
        if p.position < items.len() {
            found[i] = items.remove(p.position);
        }
    }
    if let Some(options) = options {
        let rest = Object::new();
        for (key, v) in crate::js::entries(&options)? {
            match class.modules.iter().position(|p| p.name == snake(&key)) {
                Some(i) if found[i].is_undefined() => found[i] = v,
                Some(_) => {
                    return Err(type_error(format!(
                        "{}.__init__() got multiple values for argument '{}'",
                        class.name,
                        snake(&key)
                    )));
                }
                None => {
                    let _ = Reflect::set(&rest, &JsValue::from_str(&key), &v);
                }
            }
        }
        items.push(rest.into());
    }
    let nodes = found
        .iter()
        .zip(class.modules)
        .map(|(v, p)| match v.is_undefined() || v.is_null() {
            true => Ok(None),
            false => node_of(v)
                .map(Some)
                .ok_or_else(|| wrong_argument(class.name, p.position + 1, "a Module", v)),
        })
        .collect::<JsResult<Vec<_>>>()?;
    Ok((items.into_iter().collect(), nodes))
}

/// torch's `nn.<name>(...)` for a class taking modules (`TransformerEncoder`).
#[wasm_bindgen(js_name = newStack)]
pub fn new_stack(
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsModule> {
    let class = find_stack(name)
        .ok_or_else(|| type_error(format!("module 'torch.nn' has no attribute '{name}'")))?;
    let (rest, nodes) = split(class, &args)?;
    let (positional, keywords) = arguments(&rest)?;
    let module = with_modules(&nodes, |ms| build_stack(name, ms, positional, keywords))?;
    Ok(JsModule(Node::new(module)))
}
