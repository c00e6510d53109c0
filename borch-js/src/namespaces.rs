//! Which classes the package groups under `nn`, `optim` and `optim.lrScheduler`. The lists come
//! from the module catalog and the macros that define the other classes, so nothing here is kept
//! by hand: the package generator reads `namespace_lists()` natively, and JavaScript can ask
//! `namespaces()`.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

/// `(namespace, class names)`: `nn`, `optim`, `lrScheduler` (which the package nests as
/// `optim.lrScheduler`).
pub fn namespace_lists() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut nn = crate::nn::classes();
    nn.extend(crate::containers::CONTAINERS);
    vec![
        ("nn", nn),
        ("optim", crate::optim::optimizers()),
        ("lrScheduler", crate::optim::schedulers()),
    ]
}

/// `{ nn: [...], optim: [...], lrScheduler: [...] }`: the exported class names of each namespace.
#[wasm_bindgen(unchecked_return_type = "{ nn: string[]; optim: string[]; lrScheduler: string[] }")]
pub fn namespaces() -> Object {
    let out = Object::new();
    for (name, classes) in namespace_lists() {
        let list: Array = classes.into_iter().map(JsValue::from_str).collect();
        let _ = Reflect::set(&out, &JsValue::from_str(name), &list);
    }
    out
}
