//! torch.utils.checkpoint's `checkpoint(fn, ...inputs, { useReentrant: false })`
//! (`utils.checkpoint.checkpoint` in the package): the core's `checkpoint_with_options` around a
//! JavaScript function, which the core calls in the forward and again in the backward's
//! recompute. A throw of the function is the core's error on the way up; the binding that gets
//! that error back throws the function's own error instead (the same object: its class,
//! message and stack), so a throw during `loss.backward()` reaches the caller as it was thrown.
//! A function with a `borchRelease` method (borch_webgpu's wrapper of a Python callable) has it
//! called when the core drops the function (its checkpoint node is gone).

use std::cell::RefCell;

use borch_tensor::api::Value;
use borch_tensor::{BorchError, Result, Tensor};
use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use crate::errors::{IntoJs, JsResult};
use crate::tensor::JsTensor;

/// The JavaScript function, as the core's checkpoint holds it.
struct Callback(Function);

// SAFETY: borch-ts is built for wasm32-unknown-unknown without atomics: one thread, so the
// function is never reached from another one. The core's `Function` trait asks for Send + Sync
// because native graphs may be shared across threads.
unsafe impl Send for Callback {}
unsafe impl Sync for Callback {}

/// A function that asks to be released with its checkpoint (borch_webgpu's wrapper of a Python
/// callable's proxy) has this property, a function the binding calls when the core drops it.
const RELEASE: &str = "borchRelease";

impl Drop for Callback {
    fn drop(&mut self) {
        if let Ok(release) = js_sys::Reflect::get(&self.0, &JsValue::from_str(RELEASE))
            && let Some(release) = release.dyn_ref::<Function>()
        {
            let _ = release.call0(&JsValue::UNDEFINED);
        }
    }
}

thread_local! {
    /// The error the function threw last, with the message of the core error standing for it.
    static THROWN: RefCell<Option<(String, JsValue)>> = const { RefCell::new(None) };
}

impl Callback {
    fn call(&self, inputs: &[Tensor]) -> Result<Tensor> {
        let args: Array = inputs
            .iter()
            .map(|t| JsValue::from(JsTensor::from(t.clone())))
            .collect();
        let out = self.0.apply(&JsValue::UNDEFINED, &args).map_err(thrown)?;
        match crate::call::value(&out) {
            Ok(Value::Tensor(t)) => Ok(t),
            _ => Err(BorchError::Type(format!(
                "checkpoint(): the function must return one Tensor, not {}",
                crate::js::describe(&out)
            ))),
        }
    }
}

/// The core error for a throw of the function: its message names the function's, and the thrown
/// value is kept for [`thrown_for`].
fn thrown(e: JsValue) -> BorchError {
    let text = js_sys::Reflect::get(&e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| crate::js::describe(&e));
    let message = format!("checkpoint(): the checkpointed function threw: {text}");
    THROWN.with(|t| *t.borrow_mut() = Some((message.clone(), e)));
    BorchError::Runtime(message)
}

/// The function's own thrown value when `e` is the core error standing for it (taken: once).
pub(crate) fn thrown_for(e: &BorchError) -> Option<JsValue> {
    THROWN.with(|t| {
        let mut slot = t.borrow_mut();
        match slot.as_ref() {
            Some((message, _)) if *message == e.to_string() => slot.take().map(|(_, v)| v),
            _ => None,
        }
    })
}

/// `checkpoint(fn, ...inputs, options)`: `args` are the inputs and a trailing options object.
#[wasm_bindgen(js_name = checkpointCore)]
pub fn checkpoint(
    #[wasm_bindgen(unchecked_param_type = "Function")] function: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsTensor> {
    let callback = Callback(crate::bind::function("checkpoint", 1, &function)?);
    let (inputs, options) = crate::call::arguments(&args)?;
    borch_autograd::checkpoint_with_options(move |x| callback.call(x), inputs, options).js()
}
