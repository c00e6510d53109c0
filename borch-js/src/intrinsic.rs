//! `nn.intrinsic.<Class>(...modules)`: torch.ao.nn.intrinsic's fused modules
//! (`borch_nn::intrinsic`'s catalog). As into a `Sequential`, the modules move into the fused
//! module and their JavaScript objects then reach its children (`0`, `1`, …); the core checks
//! the arguments first (torch's TypeErrors, `Incorrect types for input modules: …`, ConvAdd2d's
//! `add` being borch-ts's `add`) and builds the module (`Node::fused`).

use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::errors::JsResult;
use crate::modules::Node;
use crate::nn::JsModule;

/// torch's `nni.<name>(*args)`.
#[wasm_bindgen(js_name = newFused)]
pub fn new_fused(
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsModule> {
    Node::fused(name, args.to_vec()).map(JsModule)
}
