//! `onnx.exportOnnx(model, sample, options)`: borch-onnx's export of the module's eval forward
//! traced on `sample` (a Tensor or an array of Tensors), resolved as the ONNX file's bytes.
//! Options are torch.onnx.export's keywords in camelCase (`inputNames`, `outputNames`,
//! `dynamicAxes` as `[[name, [[axis, symbol], …]], …]` — the package turns torch's object form
//! into these pairs —, `opsetVersion`).

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::bind::wrong_argument;
use crate::call::arguments;
use crate::errors::{JsResult, to_js};
use crate::modules::node_of;

/// The ONNX model of `model` traced on `args[0]` (the keywords in a trailing object).
#[wasm_bindgen(js_name = exportOnnxCore, unchecked_return_type = "Promise<Uint8Array>")]
pub fn export_onnx(model: JsValue, args: Array) -> JsResult<Promise> {
    let node =
        node_of(&model).ok_or_else(|| wrong_argument("exportOnnx", 1, "a module", &model))?;
    let (positional, keywords) = arguments(&args)?;
    let traced = node.with(|m| borch_onnx::trace_values(m, positional, keywords))?;
    Ok(future_to_promise(async move {
        let bytes = traced.to_bytes().await.map_err(to_js)?;
        Ok(Uint8Array::from(bytes.as_slice()).into())
    }))
}
