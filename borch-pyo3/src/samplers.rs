//! torch.utils.data's samplers, `random_split`, `default_collate` and `torch.Generator`
//! (borch-data and the core's generator), answering borch-ts's names (`length`, `iter()`, a
//! pass's `next()` as `{done, value}`, `manualSeed`): with the same seed a pass yields torch's
//! indices, as borch-ts's does.

use std::cell::RefCell;
use std::rc::Rc;

use borch_data::{
    BatchSampler, RandomSampler, Sampler, SamplerIter, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
};
use borch_tensor::{BorchError, Generator};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{raw_arguments, type_name};
use crate::data::{PyCoreDataset, dataset_of, sample_of, sample_py};
use crate::errors::{err, guard, type_error};
use crate::thread_bound::ThreadBound;

/// `torch.Generator()`: a CPU Mersenne Twister of its own, seeded as torch's.
#[pyclass(name = "Generator", module = "borch._native")]
pub struct PyGenerator(pub(crate) Generator);

#[pyfunction]
pub fn new_generator() -> PyGenerator {
    PyGenerator(Generator::new())
}

#[pymethods]
impl PyGenerator {
    /// torch's `manual_seed(seed)`: returns the generator.
    #[pyo3(name = "manualSeed")]
    fn manual_seed(&self, seed: i64) -> PyGenerator {
        PyGenerator(self.0.manual_seed(seed as u64).clone())
    }

    #[pyo3(name = "initialSeed")]
    fn initial_seed(&self) -> u64 {
        self.0.initial_seed()
    }
}

/// A `generator=` keyword: a Generator or None.
pub fn generator_of(name: &str, v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Generator>> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v
            .cast::<PyGenerator>()
            .map(|g| Some(g.borrow().0.clone()))
            .map_err(|_| {
                type_error(format!(
                    "{name}(): generator must be a torch.Generator, not {}",
                    type_name(v)
                ))
            }),
    }
}

/// The keyword `key` of a trailing keywords dict, refusing the ones `name` does not take.
fn keywords<'py>(
    name: &str,
    given: Vec<(String, Bound<'py, PyAny>)>,
    takes: &[&str],
) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
    let mut out = vec![None; takes.len()];
    for (k, v) in given {
        let Some(i) = takes.iter().position(|t| *t == k) else {
            return Err(type_error(format!(
                "{name}.__init__() got an unexpected keyword argument '{k}'"
            )));
        };
        out[i] = Some(v);
    }
    Ok(out)
}

fn positive(name: &str, v: i64) -> PyResult<usize> {
    usize::try_from(v).map_err(|_| {
        err(BorchError::Value(format!(
            "{name} should be a positive integer value, but got {name}={v}"
        )))
    })
}

/// A sampler: of indices, or of batches of indices (`BatchSampler`).
#[pyclass(name = "Sampler", module = "borch._native")]
pub struct PySampler(ThreadBound<Indices>);

enum Indices {
    Single(Rc<dyn Sampler>),
    Batches(Rc<dyn Sampler<Vec<usize>>>),
}

/// A `sampler=` argument: a sampler of indices.
pub fn sampler_of(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Rc<dyn Sampler>> {
    if let Ok(s) = v.cast::<PySampler>()
        && let Indices::Single(s) = s.borrow().0.get()?
    {
        return Ok(s.clone());
    }
    Err(type_error(format!(
        "{name}(): sampler must be a Sampler (SequentialSampler, RandomSampler, …), not {}",
        type_name(v)
    )))
}

/// A `batch_sampler=` argument: a sampler of batches.
pub fn batch_sampler_of(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Rc<dyn Sampler<Vec<usize>>>> {
    if let Ok(s) = v.cast::<PySampler>()
        && let Indices::Batches(s) = s.borrow().0.get()?
    {
        return Ok(s.clone());
    }
    Err(type_error(format!(
        "{name}(): batch_sampler must be a BatchSampler, not {}",
        type_name(v)
    )))
}

impl PySampler {
    fn new(indices: Indices) -> PySampler {
        PySampler(ThreadBound::new("sampler", indices))
    }
}

#[pymethods]
impl PySampler {
    /// `len(sampler)`.
    #[getter]
    fn length(&self) -> PyResult<usize> {
        Ok(match self.0.get()? {
            Indices::Single(s) => s.len(),
            Indices::Batches(s) => s.len(),
        })
    }

    /// One pass (torch's `iter(sampler)`).
    fn iter(&self) -> PyResult<PySamplerPass> {
        let pass = match self.0.get()? {
            Indices::Single(s) => Pass::Single(s.iter()),
            Indices::Batches(s) => Pass::Batches(s.iter()),
        };
        Ok(PySamplerPass(ThreadBound::new(
            "sampler pass",
            RefCell::new(pass),
        )))
    }
}

enum Pass {
    Single(SamplerIter<usize>),
    Batches(SamplerIter<Vec<usize>>),
}

/// One pass of a sampler: `next()` is `{done, value}`.
#[pyclass(name = "SamplerPass", module = "borch._native")]
pub struct PySamplerPass(ThreadBound<RefCell<Pass>>);

#[pymethods]
impl PySamplerPass {
    fn next(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut pass = self.0.get()?.try_borrow_mut().map_err(|_| {
            err(BorchError::Runtime(
                "this sampler pass is already running".into(),
            ))
        })?;
        let value = match &mut *pass {
            Pass::Single(it) => it
                .next()
                .transpose()
                .map_err(err)?
                .map(|i| i.into_py_any(py)),
            Pass::Batches(it) => it
                .next()
                .transpose()
                .map_err(err)?
                .map(|b| b.into_py_any(py)),
        }
        .transpose()?;
        let out = PyDict::new(py);
        out.set_item("done", value.is_none())?;
        out.set_item("value", value)?;
        out.into_py_any(py)
    }
}

/// `SequentialSampler(data_source)`.
#[pyfunction]
pub fn new_sequential_sampler(data_source: &Bound<'_, PyAny>) -> PyResult<PySampler> {
    let n = dataset_of("SequentialSampler", data_source)?.len();
    Ok(PySampler::new(Indices::Single(Rc::new(
        SequentialSampler::new(n),
    ))))
}

/// `RandomSampler(data_source, {replacement, num_samples, generator})`.
#[pyfunction]
#[pyo3(signature = (*args))]
pub fn new_random_sampler(args: &Bound<'_, PyTuple>) -> PyResult<PySampler> {
    const NAME: &str = "RandomSampler";
    let (items, given) = raw_arguments(args)?;
    let [source] = items.as_slice() else {
        return Err(type_error(
            "RandomSampler(): takes one data_source, then keywords",
        ));
    };
    let n = dataset_of(NAME, source)?.len();
    let [replacement, num_samples, g] = <[_; 3]>::try_from(keywords(
        NAME,
        given,
        &["replacement", "num_samples", "generator"],
    )?)
    .unwrap_or_else(|_| [None, None, None]);
    let replacement = replacement.map_or(Ok(false), |r| r.extract::<bool>())?;
    let num_samples = match num_samples {
        Some(k) if !k.is_none() => Some(positive("num_samples", k.extract()?)?),
        _ => None,
    };
    let g = generator_of(NAME, g.as_ref())?;
    let s = RandomSampler::new(n, replacement, num_samples, g).map_err(err)?;
    Ok(PySampler::new(Indices::Single(Rc::new(s))))
}

/// `SubsetRandomSampler(indices, {generator})`.
#[pyfunction]
#[pyo3(signature = (indices, options=None))]
pub fn new_subset_random_sampler(
    indices: Vec<usize>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PySampler> {
    let g = options
        .map(|o| o.get_item("generator"))
        .transpose()?
        .flatten();
    let g = generator_of("SubsetRandomSampler", g.as_ref())?;
    let s = SubsetRandomSampler::new(indices, g);
    Ok(PySampler::new(Indices::Single(Rc::new(s))))
}

/// `WeightedRandomSampler(weights, num_samples, {replacement, generator})`.
#[pyfunction]
#[pyo3(signature = (weights, num_samples, options=None))]
pub fn new_weighted_random_sampler(
    weights: Vec<f64>,
    num_samples: i64,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PySampler> {
    let get = |k: &str| {
        options
            .map(|o| o.get_item(k))
            .transpose()
            .map(Option::flatten)
    };
    let replacement = get("replacement")?.map_or(Ok(true), |r| r.extract::<bool>())?;
    let g = generator_of("WeightedRandomSampler", get("generator")?.as_ref())?;
    let k = positive("num_samples", num_samples)?;
    let s = WeightedRandomSampler::new(weights, k, replacement, g).map_err(err)?;
    Ok(PySampler::new(Indices::Single(Rc::new(s))))
}

/// `BatchSampler(sampler, batch_size, drop_last)`.
#[pyfunction]
pub fn new_batch_sampler(
    sampler: &Bound<'_, PyAny>,
    batch_size: i64,
    drop_last: bool,
) -> PyResult<PySampler> {
    let inner = sampler_of("BatchSampler", sampler)?;
    let s =
        BatchSampler::new(inner, positive("batch_size", batch_size)?, drop_last).map_err(err)?;
    Ok(PySampler::new(Indices::Batches(Rc::new(s))))
}

/// `random_split(dataset, lengths, {generator})`: lengths or fractions; a list of Subsets.
#[pyfunction]
#[pyo3(signature = (dataset, lengths, options=None))]
pub fn random_split(
    dataset: &Bound<'_, PyAny>,
    lengths: Vec<f64>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<PyCoreDataset>> {
    let d = dataset_of("random_split", dataset)?;
    let g = options
        .map(|o| o.get_item("generator"))
        .transpose()?
        .flatten();
    let g = generator_of("random_split", g.as_ref())?;
    let parts = guard(|| borch_data::random_split(d, &lengths, g.as_ref()).map_err(err))?;
    Ok(parts.into_iter().map(crate::data::subset).collect())
}

/// `default_collate(batch)`.
#[pyfunction]
pub fn default_collate(py: Python<'_>, batch: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let samples = batch
        .try_iter()?
        .map(|s| sample_of(&s?))
        .collect::<PyResult<Vec<_>>>()?;
    sample_py(
        py,
        guard(|| borch_data::default_collate(samples).map_err(err))?,
    )
}
