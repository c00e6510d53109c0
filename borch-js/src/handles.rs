//! Live JavaScript tensor handles by id, so that a tensor passed inside a dynamically typed
//! argument (an array of tensors, a tensor-or-number) can be found without taking it from its
//! JavaScript owner. A handle registers when it is made and leaves when it is freed.

use std::cell::RefCell;
use std::collections::HashMap;

use borch_tensor::Tensor;
use wasm_bindgen::prelude::*;

use crate::tensor::JsTensor;

/// The property a `Tensor` object answers with its handle id.
pub const ID_PROPERTY: &str = "__borchId";

thread_local! {
    static LIVE: RefCell<HashMap<u64, (Tensor, usize)>> = RefCell::new(HashMap::new());
}

pub fn register(t: &Tensor) {
    LIVE.with(|live| {
        live.borrow_mut()
            .entry(t.id())
            .or_insert_with(|| (t.clone(), 0))
            .1 += 1;
    });
}

pub fn unregister(id: u64) {
    let _ = LIVE.try_with(|live| {
        let mut live = live.borrow_mut();
        if let Some(entry) = live.get_mut(&id) {
            entry.1 -= 1;
            if entry.1 == 0 {
                live.remove(&id);
            }
        }
    });
}

/// The tensor of a live handle with this id.
pub fn lookup(id: u64) -> Option<Tensor> {
    LIVE.with(|live| live.borrow().get(&id).map(|(t, _)| t.clone()))
}

impl Drop for JsTensor {
    fn drop(&mut self) {
        unregister(self.0.id());
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
