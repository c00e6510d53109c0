//! `torch.utils.data`'s `TensorDataset`, `Subset`, `ConcatDataset` and `DataLoader` (borch-data),
//! answering borch-ts's names (`length`, `getItem`, `iter()`, a pass's `next()` as `{done,
//! value}`). A dataset written in Python reaches the core as the `{getItem, length}` dict the
//! shared layer makes of it (utils/data.py `_dataset`), an iterable one as a Python iterable
//! (data_iterable.rs), a `collate_fn` as a Python callable;
//! both are called back while the loader runs. With the same seed a shuffled loader gives torch's
//! batches in torch's order, as borch-ts's does.

use std::cell::RefCell;
use std::rc::Rc;

use borch_data::{
    ConcatDataset, DataLoader, DataLoaderIter, DataLoaderOptions, Dataset, Sample, Subset,
    TensorDataset,
};
use borch_tensor::{BorchError, Result};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::convert::{raw_arguments, type_name};
use crate::errors::{callback_error, err, guard, type_error};
use crate::tensor::PyTensor;
use crate::thread_bound::ThreadBound;

/// A sample as Python: tuples stay tuples, lists lists, dicts dicts.
pub fn sample_py(py: Python<'_>, s: Sample) -> PyResult<Py<PyAny>> {
    let items = |v: Vec<Sample>| -> PyResult<Vec<Py<PyAny>>> {
        v.into_iter().map(|s| sample_py(py, s)).collect()
    };
    match s {
        Sample::Tensor(t) => PyTensor(t).into_py_any(py),
        Sample::Int(i) => i.into_py_any(py),
        Sample::Float(x) => x.into_py_any(py),
        Sample::Bool(b) => b.into_py_any(py),
        Sample::Str(s) => s.into_py_any(py),
        Sample::Tuple(v) => PyTuple::new(py, items(v)?)?.into_py_any(py),
        Sample::List(v) => PyList::new(py, items(v)?)?.into_py_any(py),
        Sample::Dict(kv) => {
            let d = PyDict::new(py);
            for (k, v) in kv {
                d.set_item(k, sample_py(py, v)?)?;
            }
            d.into_py_any(py)
        }
    }
}

/// A Python value a dataset returned (or a collate_fn) as a sample.
pub fn sample_of(v: &Bound<'_, PyAny>) -> PyResult<Sample> {
    if let Ok(t) = v.cast::<PyTensor>() {
        return Ok(Sample::Tensor(t.borrow().0.clone()));
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Sample::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(Sample::Int(v.extract()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Sample::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Sample::Str(v.extract()?));
    }
    let items = |v: &Bound<'_, PyAny>| -> PyResult<Vec<Sample>> {
        v.try_iter()?.map(|i| sample_of(&i?)).collect()
    };
    if v.is_instance_of::<PyTuple>() {
        return Ok(Sample::Tuple(items(v)?));
    }
    if v.is_instance_of::<PyList>() {
        return Ok(Sample::List(items(v)?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return d
            .iter()
            .map(|(k, v)| Ok((k.extract::<String>()?, sample_of(&v)?)))
            .collect::<PyResult<_>>()
            .map(Sample::Dict);
    }
    Err(type_error(format!(
        "default_collate: batch must contain tensors, numbers, dicts or lists; found {}",
        type_name(v)
    )))
}

/// A dataset written in Python: `{getItem, length}`.
struct PyDataset {
    get_item: Py<PyAny>,
    length: usize,
}

impl Dataset for PyDataset {
    fn get(&self, index: i64) -> Result<Sample> {
        Python::attach(|py| {
            let item = self.get_item.bind(py).call1((index,))?;
            sample_of(&item)
        })
        .map_err(callback_error)
    }

    fn len(&self) -> usize {
        self.length
    }
}

/// A dataset of the core (`TensorDataset`, `Subset`, `ConcatDataset`).
#[pyclass(name = "Dataset", module = "borch._native")]
pub struct PyCoreDataset(pub(crate) ThreadBound<Rc<dyn Dataset>>, pub(crate) Extra);

impl PyCoreDataset {
    pub(crate) fn new(d: Rc<dyn Dataset>, extra: Extra) -> PyCoreDataset {
        PyCoreDataset(ThreadBound::new("dataset", d), extra)
    }
}

/// What a Subset (`indices`) or a ConcatDataset (`cumulative_sizes`) also answers.
#[derive(Default)]
pub(crate) struct Extra {
    pub(crate) indices: Option<Vec<i64>>,
    pub(crate) cumulative_sizes: Option<Vec<usize>>,
    /// A vision dataset's labels (torchvision's `targets`).
    pub(crate) targets: Option<Vec<i64>>,
}

/// The dataset argument: a core dataset, or a Python one as `{getItem, length}`.
pub(crate) fn dataset_of(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Rc<dyn Dataset>> {
    if let Ok(d) = v.cast::<PyCoreDataset>() {
        return Ok(d.borrow().0.get()?.clone());
    }
    let dict = v.cast::<PyDict>().map_err(|_| {
        type_error(format!(
            "{name}(): the dataset must be a Dataset (with __getitem__ and __len__), not {}",
            type_name(v)
        ))
    })?;
    let (Some(get_item), Some(length)) = (dict.get_item("getItem")?, dict.get_item("length")?)
    else {
        return Err(type_error(format!(
            "{name}(): the dataset has no __getitem__ or __len__"
        )));
    };
    Ok(Rc::new(PyDataset {
        get_item: get_item.unbind(),
        length: length.extract()?,
    }))
}

#[pymethods]
impl PyCoreDataset {
    #[getter]
    fn length(&self) -> PyResult<usize> {
        Ok(self.0.get()?.len())
    }

    /// A Subset's `indices`.
    #[getter]
    fn indices(&self) -> PyResult<Vec<i64>> {
        self.1.indices.clone().ok_or_else(|| {
            pyo3::exceptions::PyAttributeError::new_err("this dataset has no 'indices'")
        })
    }

    /// A vision dataset's `targets`.
    #[getter]
    fn targets(&self) -> PyResult<Vec<i64>> {
        self.1.targets.clone().ok_or_else(|| {
            pyo3::exceptions::PyAttributeError::new_err("this dataset has no 'targets'")
        })
    }

    /// A ConcatDataset's `cumulative_sizes`.
    #[getter(cumulativeSizes)]
    fn cumulative_sizes(&self) -> PyResult<Vec<usize>> {
        self.1.cumulative_sizes.clone().ok_or_else(|| {
            pyo3::exceptions::PyAttributeError::new_err("this dataset has no 'cumulative_sizes'")
        })
    }

    #[pyo3(name = "getItem")]
    fn get_item(&self, py: Python<'_>, index: i64) -> PyResult<Py<PyAny>> {
        let d = self.0.get()?;
        let s = guard(|| d.get(index).map_err(err))?;
        sample_py(py, s)
    }
}

/// `TensorDataset(*tensors)` (borch-ts takes the tensors as one list).
#[pyfunction]
pub fn new_tensor_dataset(tensors: &Bound<'_, PyAny>) -> PyResult<PyCoreDataset> {
    let ts = tensors
        .try_iter()?
        .map(|t| {
            let t = t?;
            t.cast::<PyTensor>()
                .map(|t| t.borrow().0.clone())
                .map_err(|_| {
                    type_error(format!(
                        "TensorDataset(): expected Tensors, not {}",
                        type_name(&t)
                    ))
                })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let d = TensorDataset::new(ts).map_err(err)?;
    Ok(PyCoreDataset::new(Rc::new(d), Extra::default()))
}

/// A Subset as a dataset object that also answers `indices`.
pub(crate) fn subset(d: Subset) -> PyCoreDataset {
    let extra = Extra {
        indices: Some(d.indices().to_vec()),
        ..Extra::default()
    };
    PyCoreDataset::new(Rc::new(d), extra)
}

/// `Subset(dataset, indices)`.
#[pyfunction]
pub fn new_subset(dataset: &Bound<'_, PyAny>, indices: Vec<i64>) -> PyResult<PyCoreDataset> {
    let d = Subset::new(dataset_of("Subset", dataset)?, indices);
    Ok(subset(d))
}

/// `ConcatDataset(datasets)`.
#[pyfunction]
pub fn new_concat_dataset(datasets: &Bound<'_, PyAny>) -> PyResult<PyCoreDataset> {
    let parts = datasets
        .try_iter()?
        .map(|d| dataset_of("ConcatDataset", &d?))
        .collect::<PyResult<Vec<_>>>()?;
    let d = ConcatDataset::new(parts).map_err(err)?;
    let extra = Extra {
        cumulative_sizes: Some(d.cumulative_sizes().to_vec()),
        ..Extra::default()
    };
    Ok(PyCoreDataset::new(Rc::new(d), extra))
}

/// `DataLoader(dataset, batch_size=1, shuffle=None, drop_last=False, collate_fn=None)`.
#[pyclass(name = "DataLoader", module = "borch._native")]
pub struct PyDataLoader(ThreadBound<DataLoader>);

/// `DataLoader(dataset, {batch_size, shuffle, drop_last, collate_fn})` (keywords as a trailing
/// dict, as borch-ts's options object).
#[pyfunction]
#[pyo3(signature = (*args))]
pub fn new_data_loader(args: &Bound<'_, PyTuple>) -> PyResult<PyDataLoader> {
    let (items, keywords) = raw_arguments(args)?;
    let [dataset] = items.as_slice() else {
        return Err(type_error(
            "DataLoader(): takes one dataset, then keyword arguments",
        ));
    };
    let mut options = DataLoaderOptions::default();
    for (key, v) in keywords {
        match key.as_str() {
            "batch_size" if v.is_none() => options.batch_size = None,
            "batch_size" => options.batch_size = Some(v.extract()?),
            "shuffle" => options.shuffle = v.extract()?,
            "drop_last" => options.drop_last = v.extract()?,
            "collate_fn" if v.is_none() => {}
            "collate_fn" => {
                let f: Py<PyAny> = v.unbind();
                options.collate_fn = Some(Rc::new(move |batch: Vec<Sample>| {
                    Python::attach(|py| {
                        let items = batch
                            .into_iter()
                            .map(|s| sample_py(py, s))
                            .collect::<PyResult<Vec<_>>>()?;
                        let out = f.bind(py).call1((PyList::new(py, items)?,))?;
                        sample_of(&out)
                    })
                    .map_err(callback_error)
                }));
            }
            "sampler" if v.is_none() => {}
            "sampler" => options.sampler = Some(crate::samplers::sampler_of("DataLoader", &v)?),
            "batch_sampler" if v.is_none() => {}
            "batch_sampler" => {
                options.batch_sampler = Some(crate::samplers::batch_sampler_of("DataLoader", &v)?)
            }
            "generator" => {
                options.generator = crate::samplers::generator_of("DataLoader", Some(&v))?
            }
            other => {
                return Err(type_error(format!(
                    "DataLoader.__init__() got an unexpected keyword argument '{other}'"
                )));
            }
        }
    }
    let d = crate::data_iterable::source_of("DataLoader", dataset)?;
    Ok(PyDataLoader(ThreadBound::new(
        "DataLoader",
        DataLoader::new(d, options).map_err(err)?,
    )))
}

#[pymethods]
impl PyDataLoader {
    /// `len(loader)`: the number of batches.
    #[getter]
    fn length(&self) -> PyResult<usize> {
        self.0.get()?.len().map_err(err)
    }

    /// One pass (torch's `iter(loader)`), shuffled anew.
    fn iter(&self) -> PyResult<PyPass> {
        let loader = self.0.get()?;
        let pass = guard(|| loader.iter().map_err(err))?;
        Ok(PyPass(ThreadBound::new(
            "DataLoader pass",
            RefCell::new(pass),
        )))
    }
}

/// One pass of a DataLoader: `next()` is `{done, value}` (borch-ts's iterator step).
#[pyclass(name = "Pass", module = "borch._native")]
pub struct PyPass(ThreadBound<RefCell<DataLoaderIter>>);

#[pymethods]
impl PyPass {
    fn next(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        pass_step(py, self.0.get()?, "DataLoader")
    }
}

/// One step of a pass as borch-ts's `{done, value}`; `what` names the pass in the error a
/// re-entered pass (its dataset's `__iter__` or `collate_fn` stepping it) gives.
pub(crate) fn pass_step<I>(py: Python<'_>, pass: &RefCell<I>, what: &str) -> PyResult<Py<PyAny>>
where
    I: Iterator<Item = borch_tensor::Result<Sample>> + ?Sized,
{
    let step = guard(|| {
        let mut it = pass.try_borrow_mut().map_err(|_| {
            err(BorchError::Runtime(format!(
                "this {what} pass is already running"
            )))
        })?;
        it.next().transpose().map_err(err)
    })?;
    let out = PyDict::new(py);
    out.set_item("done", step.is_none())?;
    match step {
        Some(sample) => out.set_item("value", sample_py(py, sample)?)?,
        None => out.set_item("value", py.None())?,
    }
    out.into_py_any(py)
}
