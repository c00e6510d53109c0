//! `vision.datasets`: borch-vision's readers of the on-disk formats, from bytes (a browser has
//! no folder): `CIFAR10.fromBytes([batch, ...])`, `CIFAR100.fromBytes(bytes)`,
//! `MNIST.fromBytes(images, labels)`, `FashionMNIST.fromBytes(images, labels)`,
//! `Digits.fromBytes(csvGz)`, each with torchvision's `{ train, transform, download }` (a
//! `transform` of `vision.transforms`; the dataset hands it the image as `ToTensor()` makes it).
//! A dataset works with `data.DataLoader`, `data.Subset`, `data.randomSplit`.

use std::rc::Rc;

use borch_data::Dataset;
use borch_vision::datasets::{CIFAR10, CIFAR100, Digits, FashionMNIST, MNIST, VisionOptions};
use js_sys::{Array, Object, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::data_values::{self as values, Handle, Registered, to_value};
use crate::errors::{JsResult, to_js, type_error};

/// One of borch-vision's datasets: `length`, `getItem(i)` (`[image, label]`), `targets`.
#[wasm_bindgen(js_name = VisionDataset)]
pub struct JsVisionDataset {
    dataset: Rc<dyn Dataset>,
    targets: Vec<i64>,
    registered: Registered,
}

fn made<D: Dataset + 'static>(d: D, targets: &[i64]) -> JsVisionDataset {
    let targets = targets.to_vec();
    let dataset: Rc<dyn Dataset> = Rc::new(d);
    let registered = Registered::new(Handle::Dataset(dataset.clone()));
    JsVisionDataset {
        dataset,
        targets,
        registered,
    }
}

/// `{ train, transform, download }` as the core's options.
fn options(name: &'static str, o: Option<Object>) -> JsResult<VisionOptions> {
    let (rest, picked) = values::split_options(o, &["transform"])?;
    let transform = match values::handle(&picked[0]) {
        _ if picked[0].is_undefined() || picked[0].is_null() => None,
        Some(Handle::Transform(None, Some(t))) => {
            Some(borch_vision::transforms::catalog::shared(t))
        }
        Some(Handle::Transform(Some(_), _)) => {
            return Err(type_error(format!(
                "{name}(): the dataset hands transform the image as ToTensor() makes it: leave \
                 ToTensor/PILToTensor out of the transform"
            )));
        }
        _ => {
            return Err(type_error(format!(
                "{name}(): transform must be a vision.transforms transform, not {}",
                crate::js::describe(&picked[0])
            )));
        }
    };
    let signature = "train: Bool = True, download: Bool = False";
    crate::bind::build(name, signature, &Array::of1(&rest), |a| {
        Ok(VisionOptions {
            train: a.bool(0)?,
            transform,
            target_transform: None,
            download: a.bool(1)?,
        })
    })
}

#[wasm_bindgen(js_class = VisionDataset)]
impl JsVisionDataset {
    /// `CIFAR10.fromBytes([batch, ...], options)`: the binary batches' bytes, in order.
    #[wasm_bindgen(js_name = cifar10FromBytes)]
    pub fn cifar10_from_bytes(
        batches: Vec<Uint8Array>,
        options: Option<Object>,
    ) -> JsResult<JsVisionDataset> {
        let bytes: Vec<Vec<u8>> = batches.iter().map(Uint8Array::to_vec).collect();
        let refs: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
        let d = CIFAR10::from_bytes(&refs, self::options("CIFAR10", options)?).map_err(to_js)?;
        let targets = d.targets().to_vec();
        Ok(made(d, &targets))
    }

    /// `CIFAR100.fromBytes(bytes, options)`.
    #[wasm_bindgen(js_name = cifar100FromBytes)]
    pub fn cifar100_from_bytes(
        bytes: Uint8Array,
        options: Option<Object>,
    ) -> JsResult<JsVisionDataset> {
        let d = CIFAR100::from_bytes(&bytes.to_vec(), self::options("CIFAR100", options)?)
            .map_err(to_js)?;
        let targets = d.targets().to_vec();
        Ok(made(d, &targets))
    }

    /// `MNIST.fromBytes(images, labels, options)` (raw or gzip-compressed IDX files).
    #[wasm_bindgen(js_name = mnistFromBytes)]
    pub fn mnist_from_bytes(
        images: Uint8Array,
        labels: Uint8Array,
        options: Option<Object>,
    ) -> JsResult<JsVisionDataset> {
        let o = self::options("MNIST", options)?;
        let d = MNIST::from_bytes(&images.to_vec(), &labels.to_vec(), o).map_err(to_js)?;
        let targets = d.targets().to_vec();
        Ok(made(d, &targets))
    }

    /// `FashionMNIST.fromBytes(images, labels, options)`.
    #[wasm_bindgen(js_name = fashionMnistFromBytes)]
    pub fn fashion_mnist_from_bytes(
        images: Uint8Array,
        labels: Uint8Array,
        options: Option<Object>,
    ) -> JsResult<JsVisionDataset> {
        let o = self::options("FashionMNIST", options)?;
        let d = FashionMNIST::from_bytes(&images.to_vec(), &labels.to_vec(), o).map_err(to_js)?;
        let targets = d.targets().to_vec();
        Ok(made(d, &targets))
    }

    /// `Digits.fromBytes(bytes, options)`: `digits.csv.gz`'s bytes.
    #[wasm_bindgen(js_name = digitsFromBytes)]
    pub fn digits_from_bytes(
        bytes: Uint8Array,
        options: Option<Object>,
    ) -> JsResult<JsVisionDataset> {
        let o = self::options("Digits", options)?;
        let d = Digits::from_bytes(&bytes.to_vec(), "digits.csv.gz", o).map_err(to_js)?;
        let targets = d.targets().to_vec();
        Ok(made(d, &targets))
    }

    /// `len(dataset)`.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.dataset.len()
    }

    /// `dataset[index]`: `[image, label]`.
    #[wasm_bindgen(js_name = getItem, unchecked_return_type = "Batch")]
    pub fn get_item(&self, index: JsValue) -> JsResult<JsValue> {
        let i = crate::bind::build("__getitem__", "idx: Int", &Array::of1(&index), |a| a.i64(0))?;
        to_value(self.dataset.get(i).map_err(to_js)?)
    }

    /// `dataset.targets`: the labels, in order.
    #[wasm_bindgen(getter, unchecked_return_type = "number[]")]
    pub fn targets(&self) -> Array {
        self.targets
            .iter()
            .map(|&t| JsValue::from_f64(t as f64))
            .collect()
    }

    /// The registry id `DataLoader`, `Subset`, … find this dataset by.
    #[wasm_bindgen(getter = __borchData)]
    pub fn data_id(&self) -> f64 {
        self.registered.id()
    }
}
