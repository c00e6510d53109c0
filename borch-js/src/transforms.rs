//! `vision.transforms`: torchvision's tensor transforms built by name through borch-vision's
//! transform catalog (`borch_vision::transforms::catalog`), `Compose`, and `ToTensor` /
//! `PILToTensor` from raw HWC uint8 pixels (an `ImageData`, or a `Uint8Array` with its
//! `[height, width, channels]`). A transform is applied with `forward(img)`; random ones draw from
//! the global generator (`manualSeed`) as torchvision does.

use std::rc::Rc;

use borch_vision::transforms::catalog::{self, TransformClass};
use borch_vision::transforms::{PILToTensor, ToTensor, Transform};
use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::call::arguments;
use crate::data_values::{Handle, Registered};
use crate::errors::{JsResult, to_js, type_error};
use crate::tensor::JsTensor;

/// The picture conversion a pipeline starts with.
#[derive(Clone, Copy)]
pub enum Picture {
    ToTensor,
    PilToTensor,
}

/// A transform: an optional picture conversion, then tensor transforms.
#[wasm_bindgen(js_name = Transform)]
pub struct JsTransform {
    picture: Option<Picture>,
    tensor: Option<Rc<dyn Transform>>,
    registered: Registered,
}

impl JsTransform {
    fn new(picture: Option<Picture>, tensor: Option<Rc<dyn Transform>>) -> JsTransform {
        let registered = Registered::new(Handle::Transform(picture, tensor.clone()));
        JsTransform {
            picture,
            tensor,
            registered,
        }
    }
}

/// torchvision's `transforms.<name>(...)` for a transform of borch-vision's catalog.
#[wasm_bindgen(js_name = newTransform)]
pub fn new_transform(
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsTransform> {
    let (positional, keywords) = arguments(&args)?;
    let t = catalog::build_transform(name, positional, keywords).map_err(to_js)?;
    Ok(JsTransform::new(None, Some(t)))
}

/// `transforms.ToTensor()`.
#[wasm_bindgen(js_name = toTensorTransform)]
pub fn to_tensor_transform() -> JsTransform {
    JsTransform::new(Some(Picture::ToTensor), None)
}

/// `transforms.PILToTensor()`.
#[wasm_bindgen(js_name = pilToTensorTransform)]
pub fn pil_to_tensor_transform() -> JsTransform {
    JsTransform::new(Some(Picture::PilToTensor), None)
}

/// `transforms.Compose([...])`: a picture conversion may only come first.
#[wasm_bindgen(js_name = composeTransforms)]
pub fn compose_transforms(
    #[wasm_bindgen(unchecked_param_type = "Transform[]")] transforms: JsValue,
) -> JsResult<JsTransform> {
    let items = crate::js::elements(&transforms)?
        .ok_or_else(|| type_error("Compose(): transforms must be an array of transforms"))?;
    let mut picture = None;
    let mut tensor = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(Handle::Transform(p, t)) = crate::data_values::handle(item) else {
            return Err(type_error(format!(
                "Compose(): element {i} must be a transform, not {}",
                crate::js::describe(item)
            )));
        };
        if p.is_some() && (i > 0 || picture.is_some()) {
            return Err(type_error(
                "Compose(): ToTensor/PILToTensor take a picture: borch needs them first",
            ));
        }
        picture = picture.or(p);
        tensor.extend(t);
    }
    let t = (!tensor.is_empty()).then(|| catalog::compose(tensor));
    Ok(JsTransform::new(picture, t))
}

/// The transforms of the catalog, for the package generator.
pub fn vision_transforms() -> &'static [TransformClass] {
    catalog::transforms()
}

#[wasm_bindgen(js_class = Transform)]
impl JsTransform {
    /// `transform(img)`: a Tensor, or for ToTensor/PILToTensor a picture — an `ImageData`
    /// (`{ data, width, height }`, RGBA) or a `Uint8Array` with `[height, width, channels]`.
    pub fn forward(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Tensor | ImageData | Uint8Array")] img: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number[]")] hwc: Option<Vec<f64>>,
    ) -> JsResult<JsTensor> {
        let x = match self.picture {
            Some(kind) => {
                let (bytes, h, w, c) = picture(&img, hwc)?;
                match kind {
                    Picture::ToTensor => ToTensor::new().call(&bytes, h, w, c),
                    Picture::PilToTensor => PILToTensor::new().call(&bytes, h, w, c),
                }
                .map_err(to_js)?
            }
            None => crate::call::optional_tensor("forward", 0, &img)?
                .ok_or_else(|| type_error("forward(): img must be a Tensor"))?,
        };
        match &self.tensor {
            Some(t) => t.forward(&x).map(JsTensor::from).map_err(to_js),
            None => Ok(JsTensor::from(x)),
        }
    }

    /// The registry id `Compose` and datasets find this transform by.
    #[wasm_bindgen(getter = __borchData)]
    pub fn data_id(&self) -> f64 {
        self.registered.id()
    }
}

/// The bytes and `(height, width, channels)` of a picture argument.
fn picture(img: &JsValue, hwc: Option<Vec<f64>>) -> JsResult<(Vec<u8>, usize, usize, usize)> {
    let dim = |v: f64| v as usize;
    if let Some(bytes) = img.dyn_ref::<Uint8Array>() {
        let Some([h, w, c]) = hwc.as_deref().and_then(|s| <[f64; 3]>::try_from(s).ok()) else {
            return Err(type_error(
                "forward(): a Uint8Array picture needs its [height, width, channels]",
            ));
        };
        return Ok((bytes.to_vec(), dim(h), dim(w), dim(c)));
    }
    let data = Reflect::get(img, &"data".into())?;
    let (w, h) = (
        Reflect::get(img, &"width".into())?.as_f64(),
        Reflect::get(img, &"height".into())?.as_f64(),
    );
    let bytes = data
        .dyn_ref::<js_sys::Uint8ClampedArray>()
        .map(|a| a.to_vec())
        .or_else(|| data.dyn_ref::<Uint8Array>().map(|a| a.to_vec()));
    match (bytes, h, w) {
        (Some(bytes), Some(h), Some(w)) if h * w > 0.0 => {
            let c = bytes.len() / dim(h * w);
            Ok((bytes, dim(h), dim(w), c))
        }
        _ => Err(type_error(format!(
            "forward(): the picture must be an ImageData ({{ data, width, height }}) or a \
             Uint8Array, not {}",
            crate::js::describe(img)
        ))),
    }
}
