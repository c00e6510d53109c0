//! `vision.transforms` and `vision.datasets` (borch-vision), answering borch-ts's names:
//! torchvision's tensor transforms built by name through the transform catalog, `Compose`,
//! `ToTensor` / `PILToTensor` from raw HWC uint8 bytes with their `(height, width, channels)`, a
//! transform applied with `forward(img)` (random ones draw from the global generator as
//! torchvision's); the dataset readers from bytes (`CIFAR10.fromBytes([batch, …])`,
//! `MNIST.fromBytes(images, labels)`, `Digits.fromBytes(csv_gz)`, …) with torchvision's `train`,
//! `transform`, `download`. `vision.models` is in modules.rs.

use std::rc::Rc;

use borch_data::Dataset;
use borch_vision::catalogue::fetch;
use borch_vision::datasets::{CIFAR10, CIFAR100, Digits, FashionMNIST, MNIST, VisionOptions};
use borch_vision::transforms::catalog;
use borch_vision::transforms::{PILToTensor, ToTensor, Transform};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{arguments, type_name};
use crate::data::{Extra, PyCoreDataset};
use crate::errors::{err, guard, type_error};
use crate::tensor::PyTensor;
use crate::thread_bound::ThreadBound;

/// A picture conversion: `ToTensor` (divided by 255, float32) or `PILToTensor` (values kept).
#[derive(Clone, Copy)]
enum Picture {
    ToTensor,
    PilToTensor,
}

/// A transform (borch-ts's `Transform`): a picture conversion first, then tensor transforms.
#[pyclass(name = "Transform", module = "borch._native")]
pub struct PyTransform {
    picture: Option<Picture>,
    tensor: ThreadBound<Option<Rc<dyn Transform>>>,
}

impl PyTransform {
    fn new(picture: Option<Picture>, tensor: Option<Rc<dyn Transform>>) -> PyTransform {
        PyTransform {
            picture,
            tensor: ThreadBound::new("transform", tensor),
        }
    }
}

/// `transforms.<name>(*args, **kwargs)` of borch-vision's transform catalog.
#[pyfunction]
#[pyo3(signature = (name, *args))]
pub fn new_transform(name: &str, args: &Bound<'_, PyTuple>) -> PyResult<PyTransform> {
    let (positional, keywords) = arguments(args)?;
    let t = guard(|| catalog::build_transform(name, positional, keywords).map_err(err))?;
    Ok(PyTransform::new(None, Some(t)))
}

/// The transform catalog's class names (torchvision's, `Normalize`).
#[pyfunction]
pub fn transform_names() -> Vec<&'static str> {
    catalog::transforms().iter().map(|c| c.name).collect()
}

#[pyfunction]
pub fn to_tensor_transform() -> PyTransform {
    PyTransform::new(Some(Picture::ToTensor), None)
}

#[pyfunction]
pub fn pil_to_tensor_transform() -> PyTransform {
    PyTransform::new(Some(Picture::PilToTensor), None)
}

/// `Compose(transforms)`: ToTensor / PILToTensor only first.
#[pyfunction]
pub fn compose_transforms(transforms: &Bound<'_, PyAny>) -> PyResult<PyTransform> {
    let mut picture = None;
    let mut tensor = Vec::new();
    for (i, item) in transforms.try_iter()?.enumerate() {
        let item = item?;
        let t = item.cast::<PyTransform>().map_err(|_| {
            type_error(format!(
                "Compose(): element {i} must be a transform, not {}",
                type_name(&item)
            ))
        })?;
        let t = t.borrow();
        if t.picture.is_some() && (i > 0 || picture.is_some()) {
            return Err(type_error(
                "Compose(): ToTensor/PILToTensor take a picture: borch needs them first",
            ));
        }
        picture = picture.or(t.picture);
        tensor.extend(t.tensor.get()?.clone());
    }
    let tensor = (!tensor.is_empty()).then(|| catalog::compose(tensor));
    Ok(PyTransform::new(picture, tensor))
}

#[pymethods]
impl PyTransform {
    /// `transform(img)`: a Tensor, or for ToTensor / PILToTensor HWC uint8 bytes with `hwc`.
    #[pyo3(signature = (img, hwc=None))]
    fn forward(&self, img: &Bound<'_, PyAny>, hwc: Option<Vec<usize>>) -> PyResult<PyTensor> {
        let x = match self.picture {
            Some(kind) => {
                let bytes: Vec<u8> = img.extract().map_err(|_| {
                    type_error(format!(
                        "forward(): the picture must be bytes (HWC uint8), not {}",
                        type_name(img)
                    ))
                })?;
                let Some([h, w, c]) = hwc.as_deref().and_then(|s| <[usize; 3]>::try_from(s).ok())
                else {
                    return Err(type_error(
                        "forward(): a picture's bytes need its (height, width, channels)",
                    ));
                };
                match kind {
                    Picture::ToTensor => ToTensor::new().call(&bytes, h, w, c),
                    Picture::PilToTensor => PILToTensor::new().call(&bytes, h, w, c),
                }
                .map_err(err)?
            }
            None => img
                .cast::<PyTensor>()
                .map(|t| t.borrow().0.clone())
                .map_err(|_| type_error("forward(): img must be a Tensor"))?,
        };
        match self.tensor.get()? {
            Some(t) => guard(|| t.forward(&x).map(PyTensor).map_err(err)),
            None => Ok(PyTensor(x)),
        }
    }
}

/// torchvision's `train`, `transform`, `download` keywords.
fn options(name: &str, o: Option<&Bound<'_, PyDict>>) -> PyResult<VisionOptions> {
    let get = |k: &str| o.map(|o| o.get_item(k)).transpose().map(Option::flatten);
    let transform = match get("transform")? {
        Some(t) if !t.is_none() => {
            let t = t.cast::<PyTransform>().map_err(|_| {
                type_error(format!(
                    "{name}(): transform must be a vision.transforms transform, not {}",
                    type_name(&t)
                ))
            })?;
            let t = t.borrow();
            if t.picture.is_some() {
                return Err(type_error(format!(
                    "{name}(): the dataset hands transform the image as ToTensor() makes it: \
                     leave ToTensor/PILToTensor out of the transform"
                )));
            }
            t.tensor.get()?.clone().map(catalog::shared)
        }
        _ => None,
    };
    Ok(VisionOptions {
        train: get("train")?.map_or(Ok(true), |v| v.extract::<bool>())?,
        transform,
        target_transform: None,
        download: get("download")?.map_or(Ok(false), |v| v.extract::<bool>())?,
    })
}

fn made<D: Dataset + 'static>(d: D, targets: &[i64]) -> PyCoreDataset {
    let extra = Extra {
        targets: Some(targets.to_vec()),
        ..Extra::default()
    };
    PyCoreDataset::new(Rc::new(d), extra)
}

/// `CIFAR10.from_bytes([batch, …], train=True, transform=None)`.
#[pyfunction]
#[pyo3(signature = (batches, options=None))]
pub fn cifar10_from_bytes(
    batches: Vec<Vec<u8>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyCoreDataset> {
    let refs: Vec<&[u8]> = batches.iter().map(Vec::as_slice).collect();
    let d = CIFAR10::from_bytes(&refs, self::options("CIFAR10", options)?).map_err(err)?;
    let targets = d.targets().to_vec();
    Ok(made(d, &targets))
}

/// `CIFAR100.from_bytes(bytes, train=True, transform=None)`.
#[pyfunction]
#[pyo3(signature = (bytes, options=None))]
pub fn cifar100_from_bytes(
    bytes: Vec<u8>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyCoreDataset> {
    let d = CIFAR100::from_bytes(&bytes, self::options("CIFAR100", options)?).map_err(err)?;
    let targets = d.targets().to_vec();
    Ok(made(d, &targets))
}

/// `MNIST.from_bytes(images, labels, train=True, transform=None)` (raw or gzip-compressed).
#[pyfunction]
#[pyo3(signature = (images, labels, options=None))]
pub fn mnist_from_bytes(
    images: Vec<u8>,
    labels: Vec<u8>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyCoreDataset> {
    let d = MNIST::from_bytes(&images, &labels, self::options("MNIST", options)?).map_err(err)?;
    let targets = d.targets().to_vec();
    Ok(made(d, &targets))
}

/// `FashionMNIST.from_bytes(images, labels, train=True, transform=None)`.
#[pyfunction]
#[pyo3(signature = (images, labels, options=None))]
pub fn fashion_mnist_from_bytes(
    images: Vec<u8>,
    labels: Vec<u8>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyCoreDataset> {
    let o = self::options("FashionMNIST", options)?;
    let d = FashionMNIST::from_bytes(&images, &labels, o).map_err(err)?;
    let targets = d.targets().to_vec();
    Ok(made(d, &targets))
}

/// `Digits.from_bytes(digits_csv_gz, transform=None)`: the bundled digits (data/digits/).
#[pyfunction]
#[pyo3(signature = (bytes, options=None))]
pub fn digits_from_bytes(
    bytes: Vec<u8>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyCoreDataset> {
    let o = self::options("Digits", options)?;
    let d = Digits::from_bytes(&bytes, "digits.csv.gz", o).map_err(err)?;
    let targets = d.targets().to_vec();
    Ok(made(d, &targets))
}

/// A verified catalogue entry (borch-ts's `Loaded`): `manifest` (a dict), `model` (in eval mode,
/// weights loaded), `maxSampleDiff`, `source`, `cached`, `refusedCache`.
#[pyclass(name = "Loaded", module = "borch._native")]
pub struct PyLoaded {
    manifest: Py<PyAny>,
    model: Py<crate::modules::PyModule>,
    max_sample_diff: f64,
    source: String,
}

#[pymethods]
impl PyLoaded {
    #[getter]
    fn manifest(&self, py: Python<'_>) -> Py<PyAny> {
        self.manifest.clone_ref(py)
    }

    #[getter]
    fn model(&self, py: Python<'_>) -> Py<crate::modules::PyModule> {
        self.model.clone_ref(py)
    }

    #[getter(maxSampleDiff)]
    fn max_sample_diff(&self) -> f64 {
        self.max_sample_diff
    }

    #[getter]
    fn source(&self) -> String {
        self.source.clone()
    }

    /// Natively nothing is cached (every load reads or fetches the files again).
    #[getter]
    fn cached(&self) -> bool {
        false
    }

    /// None: no cached copy is read natively, so none is refused (borch-ts's `null`).
    #[getter(refusedCache)]
    fn refused_cache(&self) -> Option<String> {
        None
    }
}

fn loaded(
    py: Python<'_>,
    l: borch_vision::catalogue::Loaded,
    source: String,
) -> PyResult<PyLoaded> {
    let manifest = py
        .import("json")?
        .call_method1("loads", (l.manifest.to_json(),))?
        .unbind();
    let model = Py::new(py, crate::modules::PyModule::own(l.model))?;
    Ok(PyLoaded {
        manifest,
        model,
        max_sample_diff: l.max_sample_diff,
        source,
    })
}

/// `catalogue.load(url)`: a manifest and the weights next to it, from an `http://` /
/// `https://` URL, a `file:` URL or a path, every check the core's
/// (`borch_vision::catalogue::fetch::load_location`); nothing is cached natively.
#[pyfunction]
#[pyo3(signature = (url, options=None))]
pub fn catalogue_load(
    py: Python<'_>,
    url: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyLoaded> {
    let _ = options; // `cache=`: natively nothing is kept (every load fetches and checks again).
    let l = guard(|| {
        // Fetched without the GIL: other Python threads (a server in this process) run meanwhile.
        let (manifest, weights) = py.detach(|| fetch::read_location(url)).map_err(err)?;
        borch_vision::catalogue::load_from(manifest, &weights).map_err(err)
    })?;
    loaded(py, l, fetch::source(url))
}

/// `catalogue.load_from(manifest_json, weights)`: from memory.
#[pyfunction]
pub fn catalogue_load_from(py: Python<'_>, manifest: &str, weights: Vec<u8>) -> PyResult<PyLoaded> {
    let l = guard(|| {
        pollster::block_on(borch_vision::catalogue::load_json_async(manifest, &weights))
            .map_err(err)
    })?;
    loaded(py, l, "memory".to_string())
}
