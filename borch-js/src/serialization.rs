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

/// `torch.saveCheckpoint(model, optimizer, scheduler | null, epoch)` (a borch extension; torch
/// pickles a dict): the model, optimizer, scheduler, epoch and RNG state as one safetensors file.
#[wasm_bindgen(js_name = saveCheckpoint)]
pub async fn save_checkpoint(
    #[wasm_bindgen(unchecked_param_type = "{ readonly __borchModule: number }")] model: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Optimizer")] optimizer: JsValue,
    #[wasm_bindgen(unchecked_param_type = "LRScheduler | null")] scheduler: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] epoch: JsValue,
) -> JsResult<Uint8Array> {
    crate::checkpoints::save(model, optimizer, scheduler, epoch).await
}

/// `torch.loadCheckpoint(bytes, model, optimizer, scheduler | null)` (a borch extension): restores
/// what `saveCheckpoint` wrote and returns its epoch.
#[wasm_bindgen(js_name = loadCheckpoint)]
pub fn load_checkpoint(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: JsValue,
    #[wasm_bindgen(unchecked_param_type = "{ readonly __borchModule: number }")] model: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Optimizer")] optimizer: JsValue,
    #[wasm_bindgen(unchecked_param_type = "LRScheduler | null")] scheduler: JsValue,
) -> JsResult<f64> {
    crate::checkpoints::load(&bytes, &model, &optimizer, &scheduler)
}
