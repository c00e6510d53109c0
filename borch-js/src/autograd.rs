//! Autograd on `Tensor`: `requiresGrad`, `grad`, `isLeaf`, `backward()`, and `noGrad(fn)`.

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

    #[wasm_bindgen(setter = requiresGrad)]
    pub fn set_requires_grad(&self, flag: bool) -> JsResult<()> {
        self.0.set_requires_grad(flag).map(|_| ()).js()
    }

    /// The accumulated gradient, or `undefined` before any backward.
    #[wasm_bindgen(getter)]
    pub fn grad(&self) -> Option<JsTensor> {
        self.0.grad().map(JsTensor::from)
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
        #[wasm_bindgen(unchecked_param_type = "Tensor | null")] gradient: JsValue,
        #[wasm_bindgen(js_name = retainGraph)] retain_graph: Option<bool>,
    ) -> JsResult<()> {
        let gradient = optional_tensor("backward", 1, &gradient)?;
        borch_autograd::backward(&self.0, gradient.as_ref(), retain_graph.unwrap_or(false)).js()
    }
}

/// torch's `no_grad()`: run `f` synchronously with gradient recording off, returning its result.
#[wasm_bindgen(js_name = noGrad)]
pub fn no_grad(f: &js_sys::Function) -> JsResult<JsValue> {
    borch_autograd::no_grad(|| f.call0(&JsValue::UNDEFINED))
}

/// torch's `torch.set_grad_enabled(mode)` as a plain switch: sets gradient recording for the
/// thread and returns the previous state (what `with torch.no_grad():` in Python restores).
#[wasm_bindgen(js_name = setGradEnabled)]
pub fn set_grad_enabled(enabled: bool) -> bool {
    borch_tensor::set_grad_enabled(enabled)
}
