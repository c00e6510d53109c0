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

    /// torch's `t.requires_grad = flag` (a bool, as torch requires).
    #[wasm_bindgen(setter = requiresGrad)]
    pub fn set_requires_grad(
        &self,
        #[wasm_bindgen(unchecked_param_type = "boolean")] flag: JsValue,
    ) -> JsResult<()> {
        flag_argument(&flag).and_then(|flag| self.0.set_requires_grad(flag).map(|_| ()).js())
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
        #[wasm_bindgen(js_name = retainGraph, unchecked_param_type = "boolean")]
        retain_graph: Option<JsValue>,
    ) -> JsResult<()> {
        let args = js_sys::Array::of2(&gradient, &retain_graph.unwrap_or_default());
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

/// torch's `no_grad()`: run `f` synchronously with gradient recording off, returning its result.
#[wasm_bindgen(js_name = noGrad)]
pub fn no_grad(#[wasm_bindgen(unchecked_param_type = "Function")] f: JsValue) -> JsResult<JsValue> {
    crate::bind::function("noGrad", 1, &f)
        .and_then(|f| borch_autograd::no_grad(|| f.call0(&JsValue::UNDEFINED)))
}

/// torch's `torch.set_grad_enabled(mode)` as a plain switch: sets gradient recording for the
/// thread and returns the previous state (what `with torch.no_grad():` in Python restores).
#[wasm_bindgen(js_name = setGradEnabled)]
pub fn set_grad_enabled(enabled: bool) -> bool {
    borch_tensor::set_grad_enabled(enabled)
}
