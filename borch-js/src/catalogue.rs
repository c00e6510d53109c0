//! The core of borch-ts's `vision.catalogue` (docs/vision.md, "Model catalogue"): the
//! manifest's check and the verified load of borch-vision's catalogue
//! (`borch_vision::catalogue`), every step defined there. Fetching the two files and keeping them
//! in the browser's Cache API is the package's (borch-js/js/catalogue.js); what it hands over
//! here is the manifest's JSON text and the weights' bytes.

use borch_vision::catalogue::{self, Manifest};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::bind::wrong_argument;
use crate::errors::{JsResult, to_js};
use crate::modules::Node;
use crate::nn::JsModule;

const LOAD_FROM: &str = "catalogue.loadFrom";

/// A string argument, or torch's TypeError naming it.
fn text_of(name: &str, position: usize, v: &JsValue) -> JsResult<String> {
    v.as_string()
        .ok_or_else(|| wrong_argument(name, position, "a string", v))
}

/// A `Uint8Array` argument's bytes, or torch's TypeError naming it.
fn bytes_of(name: &str, position: usize, v: JsValue) -> JsResult<Vec<u8>> {
    v.dyn_into::<Uint8Array>()
        .map(|b| b.to_vec())
        .map_err(|v| wrong_argument(name, position, "a Uint8Array", &v))
}

/// The manifest's JSON text checked (step `manifest`), as the core normalised it: the package
/// reads the weights' file name from it before fetching them.
#[wasm_bindgen(js_name = catalogueManifest)]
pub fn catalogue_manifest(
    #[wasm_bindgen(unchecked_param_type = "string")] json: JsValue,
) -> JsResult<String> {
    Manifest::from_json(&text_of("catalogue.manifest", 1, &json)?)
        .map(|m| m.to_json())
        .map_err(to_js)
}

/// Every step of the catalogue's loader on the manifest's JSON text and the weights' bytes (the
/// sample's readback awaited); resolves to `[manifestJson, model, maxSampleDiff]` only when all of
/// them passed, else rejects with the error naming the step.
#[wasm_bindgen(js_name = catalogueLoadFrom)]
pub async fn catalogue_load_from(
    #[wasm_bindgen(unchecked_param_type = "string")] manifest: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] weights: JsValue,
) -> JsResult<Array> {
    let loaded = catalogue::load_json_async(
        &text_of(LOAD_FROM, 1, &manifest)?,
        &bytes_of(LOAD_FROM, 2, weights)?,
    )
    .await
    .map_err(to_js)?;
    let model = Node::build(Ok(loaded.model)).map(JsModule)?;
    Ok(Array::of3(
        &loaded.manifest.to_json().into(),
        &model.into(),
        &loaded.max_sample_diff.into(),
    ))
}
