//! The arguments of `torch.saveCheckpoint` / `torch.loadCheckpoint` (borch extensions; torch
//! itself pickles a dict): the JavaScript model, optimizer and scheduler objects to the core's,
//! borrowed for the one call of `borch_nn::serialization::{save_checkpoint, load_checkpoint}`
//! (docs/checkpoints.md).

use borch_tensor::BorchError;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

use crate::bind::wrong_argument;
use crate::errors::{JsResult, to_js};
use crate::modules::{Node, descend, node_of};
use crate::optimizers::{optimizer_at, scheduler_of};

fn busy(what: &str) -> JsValue {
    to_js(BorchError::Runtime(format!(
        "this {what} is in use by a call that has not returned"
    )))
}

fn model_of(name: &str, v: &JsValue) -> JsResult<Node> {
    node_of(v).ok_or_else(|| wrong_argument(name, 1, "an nn.Module", v))
}

/// `epoch`: an integral number (torch's `int`).
fn epoch_of(v: &JsValue) -> JsResult<i64> {
    match v.as_f64() {
        Some(e) if e.fract() == 0.0 && e.abs() <= 9.007_199_254_740_991e15 => Ok(e as i64),
        _ => Err(wrong_argument("saveCheckpoint", 4, "an integer", v)),
    }
}

/// `saveCheckpoint(model, optimizer, scheduler | null, epoch)`: the checkpoint's bytes. The
/// model, optimizer and scheduler stay borrowed until the GPU's copies are read back, on
/// purpose: every other use of these handles takes them with `try_borrow`, so a call made
/// meanwhile gets the "in use by a call that has not returned" error, not a checkpoint of a
/// half-updated training.
#[allow(clippy::await_holding_refcell_ref)]
pub async fn save(
    model: JsValue,
    optimizer: JsValue,
    scheduler: JsValue,
    epoch: JsValue,
) -> JsResult<Uint8Array> {
    const NAME: &str = "saveCheckpoint";
    let node = model_of(NAME, &model)?;
    let optimizer = optimizer_at(NAME, 2, &optimizer)?;
    let scheduler = scheduler_of(NAME, 3, &scheduler)?;
    let epoch = epoch_of(&epoch)?;
    let (root, path) = node.locate().map_err(to_js)?;
    let place = root.try_borrow().map_err(|_| busy("module"))?;
    let module = descend(&place, &path).map_err(to_js)?;
    let o = optimizer.try_borrow().map_err(|_| busy("optimizer"))?;
    let s = match &scheduler {
        Some(s) => Some(s.try_borrow().map_err(|_| busy("scheduler"))?),
        None => None,
    };
    let bytes = borch_nn::serialization::save_checkpoint(module, &**o, s.as_deref(), epoch)
        .await
        .map_err(to_js)?;
    Ok(Uint8Array::from(bytes.as_slice()))
}

/// `loadCheckpoint(bytes, model, optimizer, scheduler | null)`: restores them (and the RNG
/// state) and returns the saved epoch.
pub fn load(
    bytes: &JsValue,
    model: &JsValue,
    optimizer: &JsValue,
    scheduler: &JsValue,
) -> JsResult<f64> {
    const NAME: &str = "loadCheckpoint";
    let bytes = bytes
        .clone()
        .dyn_into::<Uint8Array>()
        .map_err(|v| wrong_argument(NAME, 1, "a Uint8Array", &v))?
        .to_vec();
    let node = node_of(model).ok_or_else(|| wrong_argument(NAME, 2, "an nn.Module", model))?;
    let optimizer = optimizer_at(NAME, 3, optimizer)?;
    let scheduler = scheduler_of(NAME, 4, scheduler)?;
    let mut o = optimizer.try_borrow_mut().map_err(|_| busy("optimizer"))?;
    let mut s = match &scheduler {
        Some(s) => Some(s.try_borrow_mut().map_err(|_| busy("scheduler"))?),
        None => None,
    };
    let resumed = node.with(|m| {
        borch_nn::serialization::load_checkpoint(&bytes, m, &mut **o, s.as_deref_mut())
    })?;
    Ok(resumed.epoch as f64)
}
