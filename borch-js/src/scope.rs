//! Memory scopes from JavaScript: `await scope(async (s) => …)` releases every tensor made inside
//! when the callback settles, except those kept with `s.keep(t)` or `keepAlive(t)`.

use std::cell::RefCell;
use std::rc::Rc;

use borch_tensor::Scope;
use js_sys::Promise;
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
    pub fn keep(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Tensor")] t: JsValue,
    ) -> JsResult<JsTensor> {
        let t = tensor_argument("keep", &t)?;
        Ok(match self.0.borrow().as_ref() {
            Some(s) => JsTensor::from(s.keep(&t)),
            None => JsTensor::from(t),
        })
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
pub async fn scope(
    #[wasm_bindgen(unchecked_param_type = "Function")] callback: JsValue,
) -> JsResult<JsValue> {
    let callback = crate::bind::function("scope", 1, &callback)?;
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
pub fn keep_alive(
    #[wasm_bindgen(unchecked_param_type = "Tensor")] t: JsValue,
) -> JsResult<JsTensor> {
    tensor_argument("keep_alive", &t).map(|t| JsTensor::from(borch_tensor::keep_alive(&t)))
}

/// The tensor argument `t` of `name(t)`, bound as torch binds a `Tensor` parameter.
fn tensor_argument(name: &'static str, t: &JsValue) -> JsResult<borch_tensor::Tensor> {
    crate::bind::build(name, "t: Tensor", &js_sys::Array::of1(t), |a| a.tensor(0))
}
