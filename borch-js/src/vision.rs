//! `vision.models`: torchvision's model builders (`resnet18`, `resnet34`, `resnet50`, borch's
//! `cifarResnet18`), built by name through borch-vision's model catalog
//! (`borch_vision::models::catalog`): `newModel(name, args)` binds the keyword arguments (a
//! trailing plain object, camelCase keys) to the model's torchvision signature and builds it in
//! the core. The package's `vision.models.<name>` functions are generated from the catalog
//! (`cargo xtask build-js`).

use borch_nn::api::modules::ModuleClass;
use borch_vision::models::catalog;
use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::call::arguments;
use crate::errors::{JsResult, to_js};
use crate::modules::Node;
use crate::nn::JsModule;

/// torchvision's `models.<name>(**kwargs)` for a model of borch-vision's catalog.
#[wasm_bindgen(js_name = newModel)]
pub fn new_model(
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsModule> {
    let (positional, keywords) = arguments(&args)?;
    Node::build(catalog::build_model(name, positional, keywords).map_err(to_js)).map(JsModule)
}

/// The models of the catalog, for the package generator.
pub fn vision_models() -> &'static [ModuleClass] {
    catalog::models()
}
