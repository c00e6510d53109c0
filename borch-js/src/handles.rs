//! Live JavaScript tensor handles by id, so that a tensor passed inside a dynamically typed
//! argument (an array of tensors, a tensor-or-number) can be found without taking it from its
//! JavaScript owner. A handle registers when it is made and leaves when it is freed.

use std::cell::RefCell;

use borch_tensor::Tensor;
use wasm_bindgen::prelude::*;

use crate::registry::{Live, Registry};
use crate::tensor::JsTensor;

/// The property a `Tensor` object answers with its handle id.
pub const ID_PROPERTY: &str = "__borchId";

thread_local! {
    static LIVE: RefCell<Registry<Tensor>> = RefCell::default();
}

/// One more handle on `t` (a tensor with two handles stays until both are freed).
pub fn register(t: &Tensor) {
    LIVE.register(t.id(), || t.clone());
}

/// The tensor of a live `Tensor` object `v`.
pub fn lookup(v: &JsValue) -> Option<Tensor> {
    LIVE.branded(v, ID_PROPERTY)
}

impl Drop for JsTensor {
    fn drop(&mut self) {
        LIVE.unregister(self.0.id());
    }
}

#[wasm_bindgen(js_class = Tensor)]
impl JsTensor {
    /// The handle id that dynamically typed arguments are resolved by.
    #[wasm_bindgen(getter = __borchId)]
    pub fn handle_id(&self) -> f64 {
        self.0.id() as f64
    }
}
