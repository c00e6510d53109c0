//! torch's functions that take modules (`nn.utils.fusion`: `fuseConvBnEval(conv, bn)`,
//! `fuseForEval(model)`, …; LoRA's `nn.utils.lora`: `applyLora(model, r, { targetModules })`, …): each namespace is a core catalog of `ModuleFunction`s
//! (`borch_nn::api::module_functions`); the package generator reads this list natively and
//! JavaScript calls one entry point. The core splits the module arguments from the others; the
//! modules are lent to it (mutably for a function that changes its module in place), and a new
//! module it makes comes back as a `Module` owned by its JavaScript object.

use borch_nn::api::module_functions::{self as core, ModuleFunction, Output};
use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::bind::wrong_argument;
use crate::call::{raw_arguments, result, values};
use crate::errors::{JsResult, to_js, type_error};
use crate::modules::{Node, node_of, state_dict_js, with_modules};
use crate::nn::JsModule;

pub use core::{Namespace as ModuleFunctionNamespace, namespaces as module_function_namespaces};

/// `<namespace>.name(...args)`: the function `name` of the namespace at `path`.
#[wasm_bindgen(js_name = callWithModules)]
pub fn call_with_modules(
    path: &str,
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsValue> {
    call(find(path, name)?, &args)
}

fn find(path: &str, name: &str) -> JsResult<&'static ModuleFunction> {
    let Some(ns) = core::namespace(path) else {
        return Err(type_error(format!("borch-ts has no namespace '{path}'")));
    };
    core::find((ns.functions)(), ns.module, name).map_err(to_js)
}

/// The handles of the module arguments (None where left out, `null` or `undefined`).
fn nodes(f: &ModuleFunction, modules: Vec<Option<JsValue>>) -> JsResult<Vec<Option<Node>>> {
    modules
        .iter()
        .zip(&f.modules)
        .map(|(v, p)| match v {
            Some(v) if !v.is_undefined() && !v.is_null() => node_of(v).map(Some).ok_or_else(|| {
                wrong_argument(f.name, p.position + 1, "a Module (nn.Conv2d, …)", v)
            }),
            _ => Ok(None),
        })
        .collect()
}

fn call(f: &'static ModuleFunction, args: &Array) -> JsResult<JsValue> {
    let (positional, keywords) = raw_arguments(args)?;
    let (modules, positional, keywords) =
        core::split_arguments(f, positional, keywords).map_err(to_js)?;
    let nodes = nodes(f, modules)?;
    let (positional, keywords) = values(positional, keywords)?;
    let output = if f.in_place() {
        match nodes.into_iter().next().flatten() {
            Some(node) => {
                node.with_mut(|m| core::call_in_place(f, Some(m), positional, keywords))?
            }
            None => core::call_in_place(f, None, positional, keywords),
        }
    } else {
        with_modules(&nodes, |ms| {
            Ok(core::call_reading(f, ms, positional, keywords))
        })?
    };
    match output.map_err(to_js)? {
        Output::Module(m) => Ok(JsModule(Node::new(m)).into()),
        Output::Value(v) => result(v),
        Output::StateDict(sd) => Ok(state_dict_js(sd).into()),
    }
}
