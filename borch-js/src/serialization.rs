//! torch's `torch.save` / `torch.load` for state dicts, as safetensors bytes
//! (borch_nn::serialization; docs/checkpoints.md).

use js_sys::{Object, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::bind::wrong_argument;
use crate::errors::{JsResult, to_js};
use crate::modules::{state_dict_from, state_dict_js};

/// `torch.save(stateDict)`: the safetensors bytes of a plain object name → `Tensor` (a promise:
/// the tensors are read back from the GPU).
#[wasm_bindgen(js_name = saveStateDict)]
pub async fn save_state_dict(obj: JsValue) -> JsResult<Uint8Array> {
    let sd = state_dict_from("save", &obj)?;
    let bytes = borch_nn::serialization::save(&sd, &Default::default())
        .await
        .map_err(to_js)?;
    Ok(Uint8Array::from(bytes.as_slice()))
}

/// `torch.load(bytes)`: the tensors of safetensors bytes (a `Uint8Array`), name → `Tensor`.
#[wasm_bindgen(js_name = loadStateDict)]
pub fn load_state_dict(bytes: JsValue) -> JsResult<Object> {
    let bytes = bytes
        .dyn_into::<Uint8Array>()
        .map_err(|v| wrong_argument("load", 1, "a Uint8Array", &v))?;
    borch_nn::serialization::load(&bytes.to_vec())
        .map(state_dict_js)
        .map_err(to_js)
}
