//! `nn.intrinsic.<Class>(...modules)`: torch.ao.nn.intrinsic's fused modules
//! (`borch_nn::intrinsic`'s catalog). As `Sequential`, the modules move into the fused module
//! and their JavaScript objects then reach them through it (`0`, `1`, …); the core checks them
//! first (torch's TypeErrors and `Incorrect types for input modules: …`) and builds the module.
//! ConvAdd2d's and ConvAddReLU2d's `add` must be borch-ts's `add` (torch.add): checked by name.

use borch_nn::Identity;
use borch_nn::intrinsic::{build_fused, check_add, check_fused, child_names, find_fused};
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use crate::bind::wrong_argument;
use crate::errors::{JsResult, to_js, type_error};
use crate::modules::{Node, node_of};
use crate::nn::JsModule;

/// The class names of `nn.intrinsic`, for the package generator.
pub fn intrinsic_classes() -> Vec<&'static str> {
    borch_nn::intrinsic::fused_classes()
        .iter()
        .map(|c| c.name)
        .collect()
}

/// A JavaScript function's name (`name`, or a Python function's `__name__` through Pyodide).
fn function_name(v: &JsValue) -> Option<String> {
    ["name", "__name__"].iter().find_map(|key| {
        Reflect::get(v, &JsValue::from_str(key))
            .ok()
            .and_then(|n| n.as_string())
            .filter(|n| !n.is_empty())
    })
}

/// torch's `nni.<name>(*args)`.
#[wasm_bindgen(js_name = newFused)]
pub fn new_fused(
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsModule> {
    let mut args = args.to_vec();
    if let Some(class) = find_fused(name) {
        for &(_, position) in class.functions.iter().rev() {
            if position >= args.len() {
                return Err(type_error(format!(
                    "{name}.__init__() missing 1 required positional argument: 'add'"
                )));
            }
            let f = args.remove(position);
            check_add(name, function_name(&f).as_deref()).map_err(to_js)?;
        }
    }
    let mut classes = Vec::new();
    for (i, v) in args.iter().enumerate() {
        let node = node_of(v)
            .ok_or_else(|| wrong_argument(name, i + 1, "a Module (nn.Conv2d, nn.ReLU, …)", v))?;
        classes.push(node.with(|m| Ok(m.name()))?);
    }
    check_fused(name, &classes).map_err(to_js)?;
    let named = child_names(name)
        .into_iter()
        .map(str::to_string)
        .zip(args)
        .collect();
    let owned = name.to_string();
    Node::container_with(name, named, Box::new(Identity::new()), move |modules| {
        build_fused(&owned, modules.into_iter().map(|(_, m)| m).collect())
    })
    .map(JsModule)
}
