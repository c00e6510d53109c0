//! `optim` and `optim.lr_scheduler`: `Optimizer`, `ParamGroup` and `LRScheduler`, built by name
//! through the core's catalogs (`borch_optim::catalog`, `borch_optim::lr_scheduler::catalog`),
//! answering borch-ts's names (`step`, `zeroGrad`, `stateDict`, `paramGroups`, `getLastLr`, …).
//! Every update and every schedule is the core's.

use std::cell::{RefCell, RefMut};
use std::collections::BTreeMap;
use std::rc::Rc;

use borch_optim::lr_scheduler::{SchedulerArgs, SharedScheduler};
use borch_optim::{
    GroupState, Optimizer, Options, ParamState, Params, StateDict, StateValue, Value, catalog,
};
use borch_tensor::{BorchError, Tensor};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::convert::{raw_arguments, type_name};
use crate::errors::{err, guard, type_error};
use crate::tensor::PyTensor;
use crate::thread_bound::ThreadBound;

type Shared = Rc<RefCell<Box<dyn Optimizer>>>;

fn busy(what: &str) -> PyErr {
    err(BorchError::Runtime(format!(
        "this {what} is in use by a call that has not returned"
    )))
}

fn borrow(shared: &Shared) -> PyResult<RefMut<'_, Box<dyn Optimizer>>> {
    shared.try_borrow_mut().map_err(|_| busy("optimizer"))
}

/// An option value (a number, bool, str, list or dict) as the catalog's.
pub fn option_value(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if v.is_none() {
        return Ok(Value::None);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(Value::Int(v.extract()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Value::Str(v.extract()?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        return v
            .try_iter()?
            .map(|i| option_value(&i?))
            .collect::<PyResult<_>>()
            .map(Value::List);
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return dict_from(d).map(Value::Dict);
    }
    Err(type_error(format!(
        "an optimizer option must be a number, bool, str or list, not {}",
        type_name(v)
    )))
}

fn dict_from(d: &Bound<'_, PyDict>) -> PyResult<BTreeMap<String, Value>> {
    d.iter()
        .map(|(k, v)| Ok((k.extract::<String>()?, option_value(&v)?)))
        .collect()
}

/// A catalog value as Python (lists as lists, dicts as dicts, keys as given).
pub fn value_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    match v {
        Value::Float(x) => x.into_py_any(py),
        Value::Int(i) => i.into_py_any(py),
        Value::Bool(b) => b.into_py_any(py),
        Value::Str(s) => s.into_py_any(py),
        Value::List(items) => {
            let items = items
                .iter()
                .map(|i| value_py(py, i))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_py_any(py)
        }
        Value::Dict(d) => dict_py(py, d),
        Value::None => Ok(py.None()),
    }
}

fn dict_py(py: Python<'_>, d: &BTreeMap<String, Value>) -> PyResult<Py<PyAny>> {
    let out = PyDict::new(py);
    for (k, v) in d {
        out.set_item(k, value_py(py, v)?)?;
    }
    out.into_py_any(py)
}

fn tensor_list(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    v.try_iter()
        .map_err(|_| type_error(format!("{name}(): params must be a list of Tensors")))?
        .map(|t| {
            let t = t?;
            t.cast::<PyTensor>()
                .map(|t| t.borrow().0.clone())
                .map_err(|_| {
                    type_error(format!(
                        "{name}(): params must be Tensors or param-group dicts, not {}",
                        type_name(&t)
                    ))
                })
        })
        .collect()
}

/// An optimizer (borch-ts's `Optimizer`).
#[pyclass(name = "Optimizer", module = "borch._native")]
pub struct PyOptimizer(pub(crate) ThreadBound<Shared>);

impl PyOptimizer {
    fn with<R>(
        &self,
        f: impl FnOnce(&mut dyn Optimizer) -> borch_tensor::Result<R>,
    ) -> PyResult<R> {
        guard(|| f(&mut **borrow(self.0.get()?)?).map_err(err))
    }
}

/// torch's `optim.<name>(params, **options)`: `params` a list of Tensors or of param-group dicts.
#[pyfunction]
#[pyo3(signature = (name, params, options=None))]
pub fn new_optimizer(
    name: &str,
    params: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyOptimizer> {
    let entry = catalog::find(name).map_err(err)?;
    let items: Vec<Bound<'_, PyAny>> = params
        .try_iter()
        .map_err(|_| {
            type_error(format!(
                "{}(): params must be a list of Tensors",
                entry.name
            ))
        })?
        .collect::<PyResult<_>>()?;
    let params = if items.first().is_some_and(|g| g.is_instance_of::<PyDict>()) {
        let mut groups = Vec::new();
        for g in &items {
            let g = g
                .cast::<PyDict>()
                .map_err(|_| type_error(format!("{}(): param groups must be dicts", entry.name)))?;
            let Some(ps) = g.get_item("params")? else {
                return Err(err(BorchError::Value(
                    "parameter group didn't specify a value of required optimization parameter \
                     params"
                        .into(),
                )));
            };
            let mut opts = dict_from(g)?;
            opts.remove("params");
            groups.push((tensor_list(entry.name, &ps)?, opts));
        }
        Params::Groups(groups)
    } else {
        Params::Tensors(tensor_list(entry.name, params)?)
    };
    let options: Options = match options {
        None => Options::new(),
        Some(o) if o.is_none() => Options::new(),
        Some(o) => dict_from(o.cast::<PyDict>().map_err(|_| {
            type_error(format!(
                "{}(): argument 2 must be a dict of options, not {}",
                entry.name,
                type_name(o)
            ))
        })?)?,
    };
    let built = guard(|| entry.build(params, &options).map_err(err))?;
    Ok(PyOptimizer(ThreadBound::new(
        "optimizer",
        Rc::new(RefCell::new(built)),
    )))
}

#[pymethods]
impl PyOptimizer {
    #[getter(optimizerName)]
    fn optimizer_name(&self) -> PyResult<&'static str> {
        self.with(|o| Ok(o.name()))
    }

    fn step(&self) -> PyResult<()> {
        self.with(|o| o.step())
    }

    #[pyo3(name = "zeroGrad", signature = (set_to_none=true))]
    fn zero_grad(&self, set_to_none: bool) -> PyResult<()> {
        self.with(|o| o.zero_grad(set_to_none))
    }

    /// torch's `state_dict()`: `{state: {0: {step, exp_avg, …}}, param_groups: [...]}`.
    #[pyo3(name = "stateDict")]
    fn state_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let sd = self.with(|o| Ok(o.state_dict()))?;
        let state = PyDict::new(py);
        for (index, s) in &sd.state {
            let entry = PyDict::new(py);
            for (k, v) in &s.entries {
                match v {
                    StateValue::Tensor(t) => entry.set_item(k, PyTensor(t.clone()))?,
                    StateValue::Step(n) => entry.set_item(k, *n)?,
                }
            }
            state.set_item(index, entry)?;
        }
        let groups = PyList::empty(py);
        for g in &sd.param_groups {
            let obj = dict_py(py, &g.options)?;
            obj.bind(py).set_item("params", g.params.clone())?;
            groups.append(obj)?;
        }
        let out = PyDict::new(py);
        out.set_item("state", state)?;
        out.set_item("param_groups", groups)?;
        out.into_py_any(py)
    }

    /// torch's `load_state_dict(state_dict)` (copies the state tensors). `_options` is the empty
    /// keywords dict the bridge sends after a dict argument (borch-ts ignores it as well).
    #[pyo3(name = "loadStateDict", signature = (state_dict, _options=None))]
    fn load_state_dict(
        &self,
        state_dict: &Bound<'_, PyAny>,
        _options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let sd = optimizer_state_from(state_dict)?;
        self.with(|o| o.load_state_dict(&sd))
    }

    /// torch's `param_groups`: one live `ParamGroup` per group.
    #[getter(paramGroups)]
    fn param_groups(&self) -> PyResult<Vec<PyParamGroup>> {
        let shared = self.0.get()?;
        let count = borrow(shared)?.num_param_groups();
        Ok((0..count)
            .map(|index| PyParamGroup {
                optimizer: ThreadBound::new("param group", shared.clone()),
                index,
            })
            .collect())
    }
}

fn malformed(what: &str) -> PyErr {
    type_error(format!("load_state_dict(): {what}"))
}

fn optimizer_state_from(obj: &Bound<'_, PyAny>) -> PyResult<StateDict> {
    let d = obj
        .cast::<PyDict>()
        .map_err(|_| malformed("the state dict must be a dict"))?;
    let mut sd = StateDict::default();
    if let Some(state) = d.get_item("state")? {
        let state = state
            .cast::<PyDict>()
            .map_err(|_| malformed("state must be a dict"))?;
        for (index, entry) in state.iter() {
            let index: usize = index
                .extract()
                .or_else(|_| {
                    index
                        .extract::<String>()
                        .map(|s| s.parse().unwrap_or(usize::MAX))
                })
                .map_err(|_| malformed("state keys must be parameter indices"))?;
            let mut s = ParamState::default();
            let entry = entry
                .cast::<PyDict>()
                .map_err(|_| malformed("state entries must be dicts"))?;
            for (k, v) in entry.iter() {
                let v = if let Ok(t) = v.cast::<PyTensor>() {
                    StateValue::Tensor(t.borrow().0.clone())
                } else {
                    StateValue::Step(
                        v.extract::<f64>()
                            .map_err(|_| malformed("state values must be numbers or Tensors"))?,
                    )
                };
                s.entries.insert(k.extract()?, v);
            }
            sd.state.insert(index, s);
        }
    }
    let groups = match d.get_item("param_groups")? {
        Some(g) => Some(g),
        None => d.get_item("paramGroups")?,
    }
    .ok_or_else(|| malformed("param_groups is missing"))?;
    for g in groups.try_iter()? {
        let g = g?;
        let g = g
            .cast::<PyDict>()
            .map_err(|_| malformed("param groups must be dicts"))?;
        let mut options = dict_from(g)?;
        let params = match options.remove("params") {
            Some(Value::List(ids)) => ids
                .iter()
                .map(|i| i.as_f64().map(|i| i as usize))
                .collect::<Option<Vec<_>>>(),
            _ => None,
        }
        .ok_or_else(|| malformed("params must be parameter indices"))?;
        sd.param_groups.push(GroupState { options, params });
    }
    Ok(sd)
}

/// One param group of an optimizer: `get(key)` / `set(key, value)` read and write the group.
#[pyclass(name = "ParamGroup", module = "borch._native")]
pub struct PyParamGroup {
    optimizer: ThreadBound<Shared>,
    index: usize,
}

#[pymethods]
impl PyParamGroup {
    #[getter]
    fn params(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let ts = borrow(self.optimizer.get()?)?
            .group_params(self.index)
            .to_vec();
        PyTuple::new(py, ts.into_iter().map(PyTensor))?.into_py_any(py)
    }

    #[getter]
    fn lr(&self) -> PyResult<f64> {
        Ok(borrow(self.optimizer.get()?)?.lr(self.index))
    }

    fn get(&self, py: Python<'_>, key: &str) -> PyResult<Py<PyAny>> {
        if key == "params" {
            return self.params(py);
        }
        let options = borrow(self.optimizer.get()?)?
            .group_options(self.index)
            .map_err(err)?;
        match options.get(key) {
            Some(v) => value_py(py, v),
            None => Err(err(BorchError::Key(format!("'{key}'")))),
        }
    }

    fn set(&self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = option_value(value)?;
        borrow(self.optimizer.get()?)?
            .set_group_option(self.index, key, value)
            .map_err(err)
    }

    fn keys(&self) -> PyResult<Vec<String>> {
        let options = borrow(self.optimizer.get()?)?
            .group_options(self.index)
            .map_err(err)?;
        Ok(std::iter::once("params".to_string())
            .chain(options.into_keys())
            .collect())
    }
}

/// A learning-rate scheduler (borch-ts's `LRScheduler`).
#[pyclass(name = "LRScheduler", module = "borch._native")]
pub struct PyScheduler {
    optimizer: ThreadBound<Shared>,
    pub(crate) inner: ThreadBound<SharedScheduler>,
}

/// torch's `lr_scheduler.<name>(optimizer, *args, **kwargs)` (keywords as a trailing dict).
#[pyfunction]
#[pyo3(signature = (name, optimizer, *args))]
pub fn new_scheduler(
    name: &str,
    optimizer: &Bound<'_, PyAny>,
    args: &Bound<'_, PyTuple>,
) -> PyResult<PyScheduler> {
    let entry = borch_optim::lr_scheduler::catalog::find(name).map_err(err)?;
    let params = borch_optim::lr_scheduler::parse_signature(entry.signature);
    let (items, keywords) = raw_arguments(args)?;
    if items.len() > params.len() {
        return Err(type_error(format!(
            "{}() takes {} positional arguments but {} were given",
            entry.name,
            params.len() + 1,
            items.len() + 1
        )));
    }
    let mut sorted = SchedulerArgs::default();
    let mut found: Option<Shared> = None;
    let mut take = |p: &borch_optim::lr_scheduler::SchedulerParam,
                    v: &Bound<'_, PyAny>,
                    keyword: bool|
     -> PyResult<()> {
        match p.kind.as_str() {
            "Function" if v.is_none() => {}
            "Function" => {
                // One function, or one per param group (torch's list form).
                let fns: Vec<Bound<'_, PyAny>> =
                    if v.is_instance_of::<pyo3::types::PyList>() || v.is_instance_of::<PyTuple>() {
                        v.try_iter()?.collect::<PyResult<_>>()?
                    } else {
                        vec![v.clone()]
                    };
                for f in fns {
                    sorted.lr_lambdas.push(lr_lambda(f.unbind()));
                }
            }
            "Schedulers" => {
                for child in v.try_iter()? {
                    let child = child?;
                    let child = child.cast::<PyScheduler>().map_err(|_| {
                        type_error(format!(
                            "{}(): argument 2 must be a list of schedulers",
                            entry.name
                        ))
                    })?;
                    let child = child.borrow();
                    if found.is_none() {
                        found = Some(child.optimizer.get()?.clone());
                    }
                    sorted.schedulers.push(child.inner.get()?.clone());
                }
            }
            "Optimizer" if v.is_none() => {}
            "Optimizer" => found = Some(optimizer_arg(entry.name, v)?),
            _ if keyword => {
                sorted.keywords.insert(p.name.clone(), option_value(v)?);
            }
            _ => sorted.positional.push(option_value(v)?),
        }
        Ok(())
    };
    for (p, v) in params.iter().zip(&items) {
        take(p, v, false)?;
    }
    for (key, v) in keywords {
        let norm = |k: &str| k.replace('_', "").to_lowercase();
        let p = params
            .iter()
            .find(|p| norm(&p.name) == norm(&key))
            .ok_or_else(|| {
                type_error(format!(
                    "{}() got an unexpected keyword argument '{key}'",
                    entry.name
                ))
            })?;
        take(p, &v, true)?;
    }
    let shared = match found {
        Some(o) if optimizer.is_none() => o,
        _ => optimizer_arg(entry.name, optimizer)?,
    };
    let scheduler = raised_after(guard(|| {
        let mut o = borrow(&shared)?;
        entry.build(&mut **o, sorted).map_err(err)
    }))?;
    Ok(PyScheduler {
        optimizer: ThreadBound::new("scheduler", shared),
        inner: ThreadBound::new("scheduler", Rc::new(RefCell::new(scheduler))),
    })
}

/// A Python `lr_lambda(epoch)` as the core's: a number it returns is the factor; an exception it
/// raises (or a value that is not a number) is kept and raised when the scheduler's call returns
/// (`raised_after`), the factor meanwhile NaN.
fn lr_lambda(f: Py<PyAny>) -> borch_optim::lr_scheduler::LrLambda {
    Rc::new(move |epoch: i64| {
        Python::attach(|py| f.bind(py).call1((epoch,))?.extract::<f64>())
            .map_err(crate::errors::callback_error)
            .unwrap_or(f64::NAN)
    })
}

/// `r`, or the exception a Python `lr_lambda` raised during it.
fn raised_after<T>(r: PyResult<T>) -> PyResult<T> {
    match crate::errors::take_raised() {
        Some(e) => Err(e),
        None => r,
    }
}

fn optimizer_arg(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Shared> {
    let o = v.cast::<PyOptimizer>().map_err(|_| {
        type_error(format!(
            "{name}(): argument 'optimizer' (position 1) must be an optimizer (optim.SGD, \
             optim.Adam, …), not {}",
            type_name(v)
        ))
    })?;
    Ok(o.borrow().0.get()?.clone())
}

impl PyScheduler {
    fn with<R>(
        &self,
        f: impl FnOnce(&mut borch_optim::lr_scheduler::Scheduler) -> borch_tensor::Result<R>,
    ) -> PyResult<R> {
        let mut s = self
            .inner
            .get()?
            .try_borrow_mut()
            .map_err(|_| busy("scheduler"))?;
        guard(|| f(&mut s).map_err(err))
    }
}

#[pymethods]
impl PyScheduler {
    /// torch's `step()`; ReduceLROnPlateau's `step(metrics)`.
    #[pyo3(signature = (metrics=None))]
    fn step(&self, metrics: Option<f64>) -> PyResult<()> {
        let mut o = borrow(self.optimizer.get()?)?;
        raised_after(self.with(|s| s.step(&mut **o, metrics)))
    }

    #[pyo3(name = "getLastLr")]
    fn get_last_lr(&self) -> PyResult<Vec<f64>> {
        self.with(|s| Ok(s.get_last_lr()))
    }

    #[getter(lastEpoch)]
    fn last_epoch(&self) -> PyResult<i64> {
        self.with(|s| Ok(s.last_epoch()))
    }

    #[getter(schedulerName)]
    fn scheduler_name(&self) -> PyResult<&'static str> {
        self.with(|s| Ok(s.name()))
    }

    #[pyo3(name = "stateDict")]
    fn state_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = self.with(|s| s.state_dict())?;
        dict_py(py, &d)
    }

    #[pyo3(name = "loadStateDict", signature = (state_dict, _options=None))]
    fn load_state_dict(
        &self,
        state_dict: &Bound<'_, PyAny>,
        _options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let d = state_dict
            .cast::<PyDict>()
            .map_err(|_| type_error("LRScheduler.load_state_dict(): argument 1 must be a dict"))?;
        let d = dict_from(d)?;
        self.with(|s| s.load_state_dict(&d))
    }
}

/// The optimizer and scheduler class names of the catalogs.
#[pyfunction]
pub fn optim_names() -> (Vec<&'static str>, Vec<&'static str>) {
    (
        catalog::names(),
        borch_optim::lr_scheduler::catalog::names(),
    )
}
