//! Memory scopes from JavaScript: `await scope(async (s) => …)` releases every tensor made inside
//! when the callback settles, except those kept with `s.keep(t)` or `keepAlive(t)`.
//!
//! The scope stack is one per thread and JavaScript keeps no state across an await, so two async
//! bodies whose awaits interleave share it: tensors of one land in the other's scope. Nested
//! scopes always end innermost first; a `scope()` whose callback settles while a scope opened
//! after it is still open has interleaved, and it rejects with an error saying so (both scopes
//! end, as the core ends every scope opened inside one that ends).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use borch_tensor::Scope;
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::errors::JsResult;
use crate::tensor::JsTensor;

type Shared = Rc<RefCell<Option<Open>>>;

thread_local! {
    /// The JavaScript scopes open now, oldest first (ids from `NEXT`).
    static OPEN: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    static NEXT: Cell<u64> = const { Cell::new(0) };
}

/// A core scope opened from JavaScript, known among the open ones until it ends.
struct Open {
    id: u64,
    scope: Scope,
}

impl Open {
    fn enter() -> Open {
        let id = NEXT.with(|n| n.replace(n.get() + 1));
        OPEN.with(|open| open.borrow_mut().push(id));
        Open {
            id,
            scope: Scope::enter(),
        }
    }

    /// End the scope; whether it was the innermost open one (else two async bodies
    /// interleaved).
    fn end(self) -> bool {
        let innermost = OPEN.with(|open| open.borrow().last() == Some(&self.id));
        drop(self);
        innermost
    }
}

impl Drop for Open {
    /// Forget this scope and every scope opened after it: the core ends those with it.
    fn drop(&mut self) {
        OPEN.with(|open| {
            let mut open = open.borrow_mut();
            if let Some(at) = open.iter().position(|&o| o == self.id) {
                open.truncate(at);
            }
        });
    }
}

/// The error of a scope that did not end innermost first.
fn interleaved() -> JsValue {
    crate::errors::to_js(borch_tensor::BorchError::Runtime(
        "scope(): two async scope() bodies interleaved (each ran while the other awaited): a \
         scope ended while a scope opened after it was still open, so tensors of one body were \
         recorded in the other's scope. Scopes must nest: await one scope() before starting the \
         next, or run concurrent loops inside one scope(). Both scopes have ended and released \
         their tensors."
            .into(),
    ))
}

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
            Some(open) => JsTensor::from(open.scope.keep(&t)),
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
    JsScope(Rc::new(RefCell::new(Some(Open::enter()))))
}

/// Run `callback(scope)` (sync or async) in a new scope and return what it returns or resolves
/// to. Scopes nest; async callbacks whose awaits interleave are refused when the first of them
/// ends (the file's comment).
#[wasm_bindgen(unchecked_return_type = "Promise<unknown>")]
pub async fn scope(
    #[wasm_bindgen(unchecked_param_type = "Function")] callback: JsValue,
) -> JsResult<JsValue> {
    let callback = crate::bind::function("scope", 1, &callback)?;
    let shared: Shared = Rc::new(RefCell::new(Some(Open::enter())));
    let handle = JsScope(shared.clone());
    let settled = match callback.call1(&JsValue::UNDEFINED, &handle.into()) {
        Ok(returned) => settle(returned).await,
        Err(e) => Err(e),
    };
    let innermost = shared.borrow_mut().take().is_none_or(Open::end);
    if !innermost {
        return Err(settled.err().unwrap_or_else(interleaved));
    }
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
