//! `compiled(fn)` / `compiled(module)`: the core's record-and-replay (`borch_tensor::Traces`)
//! around a JavaScript function, or a module's `forward`. The package's index.js makes the
//! returned object callable.

use std::cell::RefCell;

use borch_tensor::{Traces, tensors_of};
use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use crate::errors::{IntoJs, JsResult};

/// A function whose device work is recorded on the first call per input shapes and replayed
/// on later calls.
#[wasm_bindgen(js_name = Compiled)]
pub struct JsCompiled {
    f: Function,
    this: JsValue,
    traces: RefCell<Traces>,
}

/// Wrap a function, or a module (its `forward`).
#[wasm_bindgen(js_name = compiledCore)]
pub fn compiled(
    #[wasm_bindgen(unchecked_param_type = "Function | { forward: Function }")] target: JsValue,
) -> JsResult<JsCompiled> {
    let (f, this) = callee(&target)?;
    Ok(JsCompiled {
        f,
        this,
        traces: RefCell::new(Traces::new()),
    })
}

/// The function to call and its `this`: `target` itself, or a module's `forward` on the module.
fn callee(target: &JsValue) -> JsResult<(Function, JsValue)> {
    if target.is_function() {
        return Ok((target.clone().unchecked_into(), JsValue::UNDEFINED));
    }
    let forward =
        js_sys::Reflect::get(target, &JsValue::from_str("forward")).unwrap_or(JsValue::UNDEFINED);
    let f = crate::bind::function("compiled", 1, &forward).map_err(|_| {
        crate::bind::wrong_argument("compiled", 1, "a function or a module", target)
    })?;
    Ok((f, target.clone()))
}

#[wasm_bindgen(js_class = Compiled)]
impl JsCompiled {
    /// Call the function with `args`, recording or replaying (a call inside itself runs
    /// eagerly).
    pub fn call(&self, args: Array) -> JsResult<JsValue> {
        let (positional, _) = crate::call::arguments(&args)?;
        let Ok(mut traces) = self.traces.try_borrow_mut() else {
            return self.f.apply(&self.this, &args);
        };
        traces
            .run_any(&tensors_of(&positional), || self.f.apply(&self.this, &args))
            .js::<JsResult<JsValue>>()?
    }

    /// Calls that replayed a recording completely.
    pub fn replays(&self) -> f64 {
        self.traces.try_borrow().map_or(0.0, |t| t.replays() as f64)
    }

    /// Calls that recorded a trace.
    pub fn recordings(&self) -> f64 {
        self.traces
            .try_borrow()
            .map_or(0.0, |t| t.recordings() as f64)
    }

    /// Calls whose device work stopped matching the recording (they ran eagerly from there).
    pub fn divergences(&self) -> f64 {
        self.traces
            .try_borrow()
            .map_or(0.0, |t| t.divergences() as f64)
    }
}
