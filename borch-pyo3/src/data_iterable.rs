//! torch's `IterableDataset` natively: a dataset written in Python (the shared layer hands over
//! an object whose `__iter__` yields the samples converted, and whose `__len__` is the dataset's,
//! utils/data.py `_Samples`) as the core's `IterableDataset`, and `ChainDataset` (borch-data),
//! answering borch-ts's names (`length`, `iter()`, a pass's `next()` as `{done, value}`).

use std::cell::RefCell;
use std::rc::Rc;

use borch_data::{ChainDataset, IterableDataset, Sample, SampleIter, Source};
use borch_tensor::Result;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyIterator};

use crate::data::{PyCoreDataset, dataset_of, pass_step, sample_of};
use crate::errors::{callback_error, err, guard, type_error};
use crate::thread_bound::ThreadBound;

/// An iterable dataset written in Python: `iter(object)` each pass, `len(object)` for `len`.
struct PyIterable {
    object: Py<PyAny>,
}

impl IterableDataset for PyIterable {
    fn iter(&self) -> Result<SampleIter> {
        let iterator = Python::attach(|py| self.object.bind(py).try_iter().map(Bound::unbind))
            .map_err(callback_error)?;
        Ok(Box::new(PySamples(iterator)))
    }

    fn len(&self) -> Result<usize> {
        Python::attach(|py| self.object.bind(py).len()).map_err(callback_error)
    }
}

/// One pass of a Python iterable: each `next` a sample.
struct PySamples(Py<PyIterator>);

impl Iterator for PySamples {
    type Item = Result<Sample>;

    fn next(&mut self) -> Option<Result<Sample>> {
        Python::attach(|py| {
            let mut it = self.0.bind(py).clone();
            it.next().map(|item| item.and_then(|v| sample_of(&v)))
        })
        .map(|r| r.map_err(callback_error))
    }
}

/// What a DataLoader or ChainDataset reads: a core dataset or a `{getItem, length}` dict
/// (map-style), a core `ChainDataset`, or any other Python iterable as an iterable dataset.
pub(crate) fn source_of(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(d) = v.cast::<PyChainDataset>() {
        return Ok(Source::Iterable(d.borrow().0.get()?.clone()));
    }
    if v.is_instance_of::<PyCoreDataset>() || v.is_instance_of::<PyDict>() {
        return dataset_of(name, v).map(Source::Map);
    }
    if v.hasattr("__iter__")? {
        return Ok(Source::Iterable(Rc::new(PyIterable {
            object: v.clone().unbind(),
        })));
    }
    dataset_of(name, v).map(Source::Map)
}

/// `ChainDataset(datasets)`: iterable datasets one after another.
#[pyclass(name = "ChainDataset", module = "borch._native")]
pub struct PyChainDataset(ThreadBound<Rc<ChainDataset>>);

/// `ChainDataset(datasets)` (each a core dataset, a `{getItem, length}` dict or an iterable).
#[pyfunction]
pub fn new_chain_dataset(datasets: &Bound<'_, PyAny>) -> PyResult<PyChainDataset> {
    let parts = datasets
        .try_iter()
        .map_err(|_| type_error("ChainDataset(): datasets must be an iterable of datasets"))?
        .map(|d| source_of("ChainDataset", &d?))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyChainDataset(ThreadBound::new(
        "ChainDataset",
        Rc::new(ChainDataset::new(parts)),
    )))
}

#[pymethods]
impl PyChainDataset {
    /// `len(chain)`: the datasets' lengths summed.
    #[getter]
    fn length(&self) -> PyResult<usize> {
        let chain = self.0.get()?;
        guard(|| IterableDataset::len(chain.as_ref()).map_err(err))
    }

    /// One pass (`iter(chain)`).
    fn iter(&self) -> PyResult<PyDatasetPass> {
        let chain = self.0.get()?;
        let it = guard(|| IterableDataset::iter(chain.as_ref()).map_err(err))?;
        Ok(PyDatasetPass(ThreadBound::new(
            "DatasetPass",
            RefCell::new(it),
        )))
    }
}

/// One pass of an iterable dataset: `next()` is `{done, value}` (borch-ts's iterator step).
#[pyclass(name = "DatasetPass", module = "borch._native")]
pub struct PyDatasetPass(ThreadBound<RefCell<SampleIter>>);

#[pymethods]
impl PyDatasetPass {
    fn next(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        pass_step(py, self.0.get()?, "dataset")
    }
}
