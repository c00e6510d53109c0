//! Autograd on `Tensor`: `requiresGrad`, `grad`, `isLeaf`, `backward()`, and the grad modes
//! `noGrad(fn)`, `enableGrad(fn)`, `setGradEnabled(mode)`.
//!
//! Grad mode is one switch per thread (as torch's is per thread), and JavaScript has no state
//! that follows an async function across its awaits: `noGrad(async () => …)` would record again
//! after the first `await`, and turn recording off for whatever else ran meanwhile. So the
//! function forms take synchronous functions only and refuse async ones with a TypeError before
//! running them (and a returned Promise after), with the mode restored (docs/js.md).

use wasm_bindgen::prelude::*;

use crate::call::optional_tensor;
use crate::errors::{IntoJs, JsResult, to_js};
use crate::tensor::JsTensor;

#[wasm_bindgen(js_class = Tensor)]
impl JsTensor {
    #[wasm_bindgen(getter = requiresGrad)]
    pub fn requires_grad(&self) -> bool {
        self.0.requires_grad()
    }

    /// torch's `t.requires_grad = flag` (a bool, as torch requires).
    #[wasm_bindgen(setter = requiresGrad)]
    pub fn set_requires_grad(
        &self,
        #[wasm_bindgen(unchecked_param_type = "boolean")] flag: JsValue,
    ) -> JsResult<()> {
        flag_argument(&flag).and_then(|flag| self.0.set_requires_grad(flag).map(|_| ()).js())
    }

    /// The accumulated gradient, or `null` (torch's `None`) before any backward.
    #[wasm_bindgen(getter, unchecked_return_type = "Tensor | null")]
    pub fn grad(&self) -> JsValue {
        self.0
            .grad()
            .map_or(JsValue::NULL, |g| JsTensor::from(g).into())
    }

    /// Set or clear `.grad` (Python's `p.grad = None`, what `zero_grad()` does).
    #[wasm_bindgen(setter)]
    pub fn set_grad(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Tensor | null | undefined")] grad: JsValue,
    ) -> JsResult<()> {
        optional_tensor("grad", 1, &grad).and_then(|g| self.0.assign_grad(g).map_err(to_js))
    }

    #[wasm_bindgen(getter = isLeaf)]
    pub fn is_leaf(&self) -> bool {
        self.0.is_leaf()
    }

    /// torch's `backward(gradient=None, retain_graph=False)`.
    pub fn backward(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "Tensor | null")] gradient: Option<JsValue>,
        #[wasm_bindgen(js_name = retainGraph, unchecked_optional_param_type = "boolean")]
        retain_graph: Option<JsValue>,
    ) -> JsResult<()> {
        let args = js_sys::Array::of2(
            &gradient.unwrap_or_default(),
            &retain_graph.unwrap_or_default(),
        );
        let (gradient, retain_graph) = crate::bind::build("backward", BACKWARD, &args, |a| {
            Ok((a.opt_tensor(0)?, a.bool(1)?))
        })?;
        borch_autograd::backward(&self.0, gradient.as_ref(), retain_graph).js()
    }
}

/// The parameters of `backward`, bound by the core (torch's names in its messages).
const BACKWARD: &str = "gradient: Tensor = None, retain_graph: Bool = False";

/// torch's "requires_grad must be a bool" for anything but a boolean.
fn flag_argument(flag: &JsValue) -> JsResult<bool> {
    flag.as_bool().ok_or_else(|| {
        crate::errors::to_js(borch_tensor::BorchError::Runtime(
            "requires_grad must be a bool".into(),
        ))
    })
}

/// torch's `no_grad()`: run `f` (a synchronous function) with gradient recording off, returning
/// its result; an async `f` is refused (see the file's comment).
#[wasm_bindgen(js_name = noGrad)]
pub fn no_grad(#[wasm_bindgen(unchecked_param_type = "Function")] f: JsValue) -> JsResult<JsValue> {
    sync_body("noGrad", &f).and_then(|f| {
        borch_autograd::no_grad(|| sync_result("noGrad", f.call0(&JsValue::UNDEFINED)))
    })
}

/// torch's `enable_grad()`: run `f` (a synchronous function) with gradient recording on (inside
/// a `noGrad` body, say), returning its result; an async `f` is refused as in `noGrad`.
#[wasm_bindgen(js_name = enableGrad)]
pub fn enable_grad(
    #[wasm_bindgen(unchecked_param_type = "Function")] f: JsValue,
) -> JsResult<JsValue> {
    sync_body("enableGrad", &f).and_then(|f| {
        borch_autograd::enable_grad(|| sync_result("enableGrad", f.call0(&JsValue::UNDEFINED)))
    })
}

/// torch's `torch.set_grad_enabled(mode)` as a plain switch: sets gradient recording for the
/// thread and returns the previous state (what `with torch.no_grad():` in Python restores). The
/// switch stays until set again, across awaits and for every other async body too.
#[wasm_bindgen(js_name = setGradEnabled)]
pub fn set_grad_enabled(
    #[wasm_bindgen(unchecked_param_type = "boolean")] mode: JsValue,
) -> JsResult<bool> {
    crate::bind::flag("set_grad_enabled", "mode: Bool", Some(mode))
        .map(borch_tensor::set_grad_enabled)
}

/// What an async body gets instead of a grad mode that would not last: the TypeError, saying why
/// and what to write instead.
fn async_refused(name: &str, what: &str) -> JsValue {
    crate::errors::type_error(format!(
        "{name}(): argument 'fn' must be a synchronous function, not {what}: grad mode is one \
         switch, and JavaScript keeps no state across an await, so recording would come back on \
         after the first await (and be off for other code running meanwhile). Run the \
         synchronous part inside and await outside: const y = {name}(() => model.call(x)); \
         await y.item()"
    ))
}

/// `f` as a function that is not an async function (its `Symbol.toStringTag` is
/// `AsyncFunction` or `AsyncGeneratorFunction`), refused before it runs.
fn sync_body(name: &str, f: &JsValue) -> JsResult<js_sys::Function> {
    let f = crate::bind::function(name, 1, f)?;
    let tag = js_sys::Reflect::get(&f, &js_sys::Symbol::to_string_tag())?;
    match tag.as_string().as_deref() {
        Some("AsyncFunction" | "AsyncGeneratorFunction") => {
            Err(async_refused(name, "an async function"))
        }
        _ => Ok(f),
    }
}

/// The body's result, or the TypeError when it is a thenable (a function that returned a
/// Promise): the mode is restored as the error leaves the body.
fn sync_result(name: &str, result: JsResult<JsValue>) -> JsResult<JsValue> {
    let value = result?;
    let thenable = value.is_object() && js_sys::Reflect::get(&value, &"then".into())?.is_function();
    if thenable {
        return Err(async_refused(name, "a function that returned a Promise"));
    }
    Ok(value)
}
