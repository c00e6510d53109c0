//! Core errors as thrown JavaScript errors: `RangeError` for torch's IndexError, `TypeError` for
//! torch's TypeError, and `BorchError` (a class of `js/errors.js`) for every other kind, each with
//! a `kind` property naming torch's exception and the core's English message unchanged.

use borch_tensor::{BorchError, ErrorKind};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(kind: &str, message: &str) -> JsValue;
    #[wasm_bindgen(js_name = errorClasses)]
    fn error_classes_js() -> JsValue;
}

/// What a binding returns: the value, or the error to throw.
pub type JsResult<T> = Result<T, JsValue>;

/// The `kind` property of the thrown error: the name of the exception torch raises.
pub fn kind_name(kind: ErrorKind) -> &'static str {
    kind.name()
}

/// The JavaScript error to throw for a core error (the value a checkpointed function threw, when
/// `e` stands for it: `grad_checkpoint`).
pub fn to_js(e: BorchError) -> JsValue {
    if let Some(thrown) = crate::grad_checkpoint::thrown_for(&e) {
        return thrown;
    }
    make_error(kind_name(e.kind()), &e.to_string())
}

/// A `TypeError` with `message`, for arguments the bindings cannot even hand to the core.
pub fn type_error(message: impl Into<String>) -> JsValue {
    to_js(BorchError::Type(message.into()))
}

/// `.js()` turns a core result into a binding result, converting the value with `From`: a method
/// body stays one forwarding call, e.g. `self.0.exp().js()`.
pub trait IntoJs<T> {
    fn js<U: From<T>>(self) -> JsResult<U>;
}

impl<T> IntoJs<T> for borch_tensor::Result<T> {
    fn js<U: From<T>>(self) -> JsResult<U> {
        self.map(U::from).map_err(to_js)
    }
}

impl<T> IntoJs<T> for borch_device::DeviceResult<T> {
    fn js<U: From<T>>(self) -> JsResult<U> {
        self.map(U::from).map_err(|e| to_js(e.into()))
    }
}

/// The error classes for the package's index.js to re-export: `{ BorchError }`.
#[wasm_bindgen(js_name = errorClasses, unchecked_return_type = "{ BorchError: Function }")]
pub fn error_classes() -> JsValue {
    error_classes_js()
}
