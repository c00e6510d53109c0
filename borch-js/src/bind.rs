//! Arguments of small helpers (`train(mode)`, `__getitem__`, `asFloat`): JavaScript arguments
//! (positional values, then an optional plain object of camelCase keyword arguments) bound to a
//! signature written as Python writes it, by the core's binder (`borch_tensor::api::bind`), so
//! defaults and errors are torch's. This file converts; it computes nothing the core would.

use std::cell::RefCell;
use std::collections::HashMap;

use borch_tensor::api::{self, Args, Call, Entry, Form, Returns, Value};
use borch_tensor::{BorchError, Result};
use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::call::arguments;
use crate::errors::{JsResult, to_js};

type Signatures = HashMap<(&'static str, &'static str), &'static Entry>;

thread_local! {
    static ENTRIES: RefCell<Signatures> = RefCell::new(HashMap::new());
}

fn unused(_: &Args) -> Result<Value> {
    Ok(Value::None)
}

/// The signature of constructor `name`, parsed once (keyed by both: `__getitem__` binds an
/// `idx: Int` for Sequential and a `key: Str` for ModuleDict).
fn entry(name: &'static str, signature: &'static str) -> &'static Entry {
    ENTRIES.with(|entries| {
        *entries
            .borrow_mut()
            .entry((name, signature))
            .or_insert_with(|| {
                Box::leak(Box::new(Entry {
                    name,
                    form: Form::Function,
                    params: api::parse_params(signature),
                    returns: Returns::Tensor,
                    call: Call::Fn(unused),
                }))
            })
    })
}

/// Bind `args` (a JavaScript arguments array) to `signature`, as `name(...)`.
pub fn bind(name: &'static str, signature: &'static str, args: &Array) -> JsResult<Args<'static>> {
    let (positional, keywords) = arguments(args)?;
    api::bind(entry(name, signature), positional, keywords).map_err(to_js)
}

/// Build with `f` from the bound arguments; a core error becomes the JavaScript error.
pub fn build<T>(
    name: &'static str,
    signature: &'static str,
    args: &Array,
    f: impl FnOnce(&Args) -> Result<T>,
) -> JsResult<T> {
    f(&bind(name, signature, args)?).map_err(to_js)
}

/// A TypeError naming the argument, for values the bindings look up themselves.
pub fn wrong_argument(name: &str, position: usize, expected: &str, got: &JsValue) -> JsValue {
    to_js(BorchError::Type(format!(
        "{name}(): argument {position} must be {expected}, not {}",
        crate::js::describe(got)
    )))
}

/// A function argument (`noGrad(fn)`, `scope(callback)`), or torch's TypeError naming it.
pub fn function(name: &str, position: usize, v: &JsValue) -> JsResult<js_sys::Function> {
    v.clone()
        .dyn_into::<js_sys::Function>()
        .map_err(|v| wrong_argument(name, position, "a function", &v))
}

/// A boolean argument of `name` that defaults to `default` when left out (`train(mode=True)`),
/// bound by the core's binder: anything but a boolean is torch's TypeError, not JavaScript's
/// truthiness.
pub fn flag(name: &'static str, signature: &'static str, v: Option<JsValue>) -> JsResult<bool> {
    build(name, signature, &Array::of1(&v.unwrap_or_default()), |a| {
        a.bool(0)
    })
}
