//! `nn.TransformerEncoder(encoderLayer, numLayers, norm, …)` and `nn.TransformerDecoder(…)`:
//! classes whose constructor takes modules (`borch_nn::api::modules::stacks`). The core splits
//! the module arguments from the others; they are lent to it as modules (`Node::stack`) and
//! deep-copied, so the caller's layer stays its own (unlike `Sequential`, which takes its
//! modules); the core binds the other arguments and builds the module.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::errors::JsResult;
use crate::modules::Node;
use crate::nn::JsModule;

/// torch's `nn.<name>(...)` for a class taking modules (`TransformerEncoder`).
#[wasm_bindgen(js_name = newStack)]
pub fn new_stack(
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsModule> {
    Node::stack(name, &args).map(JsModule)
}
