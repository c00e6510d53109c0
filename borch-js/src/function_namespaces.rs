//! torch's function namespaces beyond `torch` and `torch.nn.functional` (`torch.nn.utils`,
//! `torch.autograd`): each is a core catalog of `Entry`s; the package generator reads this list
//! natively and JavaScript calls one entry point, so no function is bound by hand.

use borch_tensor::api::{self, Entry};
use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::call::{arguments, result};
use crate::errors::{JsResult, to_js, type_error};

/// One namespace: its path in the package (`nn.utils`), torch's module name for errors, and its
/// catalog.
pub struct FunctionNamespace {
    pub path: &'static str,
    pub module: &'static str,
    pub entries: fn() -> &'static [Entry],
}

pub fn function_namespaces() -> [FunctionNamespace; 3] {
    [
        FunctionNamespace {
            path: "nn.utils",
            module: borch_nn::utils::MODULE,
            entries: borch_nn::utils::entries,
        },
        FunctionNamespace {
            path: "autograd",
            module: borch_autograd::api::MODULE,
            entries: borch_autograd::api::entries,
        },
        FunctionNamespace {
            path: "nn.Transformer",
            module: borch_nn::api::modules::statics::TRANSFORMER,
            entries: borch_nn::api::modules::statics::transformer,
        },
    ]
}

/// `<namespace>.name(...args)`: the entry `name` of the namespace at `path`.
#[wasm_bindgen(js_name = callIn)]
pub fn call_in(path: &str, name: &str, args: Array) -> JsResult<JsValue> {
    let Some(ns) = function_namespaces().into_iter().find(|ns| ns.path == path) else {
        return Err(type_error(format!("borch-ts has no namespace '{path}'")));
    };
    let (positional, keywords) = arguments(&args)?;
    result(
        api::call_in((ns.entries)(), ns.module, name, false, positional, keywords)
            .map_err(to_js)?,
    )
}
