//! Memory scopes from JavaScript: `await scope(async (s) => …)` releases every tensor made inside
//! when the callback settles, except those kept with `s.keep(t)` or `keepAlive(t)`.

use std::cell::RefCell;
use std::rc::Rc;

use borch_tensor::Scope;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::errors::JsResult;
use crate::tensor::JsTensor;

type Shared = Rc<RefCell<Option<Scope>>>;

/// An open scope, handed to the callback of `scope()`.
#[wasm_bindgen(js_name = Scope)]
pub struct JsScope(Shared);

#[wasm_bindgen(js_class = Scope)]
impl JsScope {
    /// Hand `t` to the enclosing scope (or free it from scoping at top level); returns `t`.
    /// After the scope has ended this only returns `t`.
    pub fn keep(&self, t: &JsTensor) -> JsTensor {
        match self.0.borrow().as_ref() {
            Some(s) => JsTensor::from(s.keep(&t.0)),
            None => JsTensor::from(t.0.clone()),
        }
    }

    /// End the scope opened by `enterScope()` (what Python's `with` calls on exit); later calls
    /// do nothing.
    pub fn exit(&self) {
        drop(self.0.borrow_mut().take());
    }
}

/// Open a scope without a callback, for languages whose `with` blocks cannot be one (Python):
/// the scope ends at `exit()`. Scopes must be exited in the reverse order of entry.
#[wasm_bindgen(js_name = enterScope)]
pub fn enter_scope() -> JsScope {
    JsScope(Rc::new(RefCell::new(Some(Scope::enter()))))
}

/// Run `callback(scope)` (sync or async) in a new scope and return what it returns or resolves
/// to. Scopes nest; callbacks running concurrently must not each open a scope (they would
/// interleave).
#[wasm_bindgen(unchecked_return_type = "Promise<unknown>")]
pub async fn scope(callback: Function) -> JsResult<JsValue> {
    let shared: Shared = Rc::new(RefCell::new(Some(Scope::enter())));
    let handle = JsScope(shared.clone());
    let settled = match callback.call1(&JsValue::UNDEFINED, &handle.into()) {
        Ok(returned) => settle(returned).await,
        Err(e) => Err(e),
    };
    drop(shared.borrow_mut().take());
    settled
}

async fn settle(value: JsValue) -> JsResult<JsValue> {
    match value.dyn_into::<Promise>() {
        Ok(p) => JsFuture::from(p).await,
        Err(v) => Ok(v),
    }
}

/// Exempt `t` from every scope (parameters, optimizer state); returns `t`.
#[wasm_bindgen(js_name = keepAlive)]
pub fn keep_alive(t: &JsTensor) -> JsTensor {
    JsTensor::from(borch_tensor::keep_alive(&t.0))
}
