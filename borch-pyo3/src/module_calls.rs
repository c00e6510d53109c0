//! The calls that take or make modules beyond their classes: `nn.utils.fusion`'s functions (the
//! core's module-function catalog; borch-js's `callWithModules`), `torch.onnx.export`
//! (borch-onnx), `torch.save` / `torch.load` of state dicts and borch's one-file training
//! checkpoints (`borch_nn::serialization`, docs/checkpoints.md).

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{raw_arguments, to_py, type_name, value};
use crate::errors::{err, guard, type_error};
use crate::modules::{PyModule, state_dict_from, state_dict_py, with_modules};
use crate::optim::{PyOptimizer, PyScheduler};
use crate::tensor::PyTensor;

/// torch's functions that take modules (`nn.utils.fusion.fuse_conv_bn_eval(conv, bn)`,
/// `fuse_for_eval(model)`), from the core's catalog (`borch_nn::api::module_functions`; borch-js's
/// `callWithModules`): the modules are lent to the core (mutably for a function that changes its
/// module in place); a module it makes comes back owned by a new Python object.
#[pyfunction]
#[pyo3(signature = (path, name, *args))]
pub fn call_with_modules(
    py: Python<'_>,
    path: &str,
    name: &str,
    args: &Bound<'_, PyTuple>,
) -> PyResult<Py<PyAny>> {
    use borch_nn::api::module_functions::{self as core, Output};
    let Some(ns) = core::namespace(path) else {
        return Err(type_error(format!("borch has no namespace '{path}'")));
    };
    let f = core::find((ns.functions)(), ns.module, name).map_err(err)?;
    let (positional, keywords) = raw_arguments(args)?;
    let (modules, positional, keywords) =
        core::split_arguments(f, positional, keywords).map_err(err)?;
    let mut nodes = Vec::new();
    for m in modules {
        nodes.push(match m {
            Some(m) if !m.is_none() => Some(
                m.cast::<PyModule>()
                    .map(|m| m.borrow().share())
                    .map_err(|_| {
                        type_error(format!(
                            "{name}(): a module argument must be a Module (nn.Conv2d, …), not {}",
                            type_name(&m)
                        ))
                    })??,
            ),
            _ => None,
        });
    }
    let positional = positional.iter().map(value).collect::<PyResult<Vec<_>>>()?;
    let keywords = keywords
        .into_iter()
        .map(|(k, v)| Ok((k, value(&v)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let output = if f.in_place() {
        match nodes.into_iter().next().flatten() {
            Some(node) => {
                node.with_mut(|m| core::call_in_place(f, Some(m), positional, keywords))?
            }
            None => core::call_in_place(f, None, positional, keywords),
        }
    } else {
        with_modules(&nodes, Vec::new(), |ms| {
            Ok(core::call_reading(f, ms, positional, keywords))
        })?
    };
    match output.map_err(err)? {
        Output::Module(m) => PyModule::own(m).into_py_any(py),
        Output::Value(v) => to_py(py, v),
        Output::StateDict(sd) => state_dict_py(py, sd),
    }
}

/// `(borch-ts name, torch name)` of the functions of a module-function namespace
/// (`nn.utils.fusion`).
#[pyfunction]
pub fn module_function_names(path: &str) -> Vec<(String, &'static str)> {
    borch_nn::api::module_functions::namespace(path)
        .map(|ns| {
            (ns.functions)()
                .iter()
                .map(|f| (crate::names::camel(f.name), f.name))
                .collect()
        })
        .unwrap_or_default()
}

/// `torch.onnx.export`'s bytes: borch-onnx's export of `model`'s eval forward traced on `sample`
/// (a Tensor or a list of Tensors); `options` holds torch's keywords (`input_names`,
/// `output_names`, `dynamic_axes` as torch's dict — `{"input": {0: "batch"}}` or `{"input":
/// [0]}` —, `opset_version`).
#[pyfunction]
#[pyo3(signature = (model, sample, options=None))]
pub fn export_onnx(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    sample: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let model = model.cast::<PyModule>().map_err(|_| {
        type_error(format!(
            "export(): model must be a Module, not {}",
            type_name(model)
        ))
    })?;
    let mut keywords = Vec::new();
    for (k, v) in options
        .map(|o| o.iter().collect::<Vec<_>>())
        .unwrap_or_default()
    {
        let key: String = k.extract()?;
        let v = match v.cast::<PyDict>() {
            // torch's dict form of dynamic_axes as the core's [name, [[axis, symbol], …]] pairs.
            Ok(d) if key == "dynamic_axes" => {
                let mut pairs = Vec::new();
                for (name, axes) in d.iter() {
                    let axes = match axes.cast::<PyDict>() {
                        Ok(a) => borch_tensor::api::Value::List(
                            a.iter()
                                .map(|(axis, symbol)| {
                                    Ok(borch_tensor::api::Value::List(vec![
                                        value(&axis)?,
                                        value(&symbol)?,
                                    ]))
                                })
                                .collect::<PyResult<_>>()?,
                        ),
                        Err(_) => value(&axes)?,
                    };
                    pairs.push(borch_tensor::api::Value::List(vec![value(&name)?, axes]));
                }
                borch_tensor::api::Value::List(pairs)
            }
            _ => value(&v)?,
        };
        keywords.push((key, v));
    }
    let positional = vec![value(sample)?];
    let traced = model
        .borrow()
        .with(|m| borch_onnx::trace_values(m, positional, keywords))?;
    let bytes = guard(|| pollster::block_on(traced.to_bytes()).map_err(err))?;
    pyo3::types::PyBytes::new(py, &bytes).into_py_any(py)
}

/// torch's `torch.save(state_dict, f)`'s bytes: the state dict as safetensors
/// (`borch_nn::serialization`, docs/checkpoints.md), read back from the device.
#[pyfunction]
pub fn save(py: Python<'_>, state_dict: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let sd = state_dict_from(state_dict)?;
    let bytes = guard(|| {
        pollster::block_on(borch_nn::serialization::save(&sd, &Default::default())).map_err(err)
    })?;
    pyo3::types::PyBytes::new(py, &bytes).into_py_any(py)
}

/// torch's `torch.load(f)` of safetensors bytes: a dict, name → Tensor.
#[pyfunction]
pub fn load(py: Python<'_>, data: &[u8]) -> PyResult<Py<PyAny>> {
    let sd = guard(|| borch_nn::serialization::load(data).map_err(err))?;
    let out = PyDict::new(py);
    for (k, t) in sd {
        out.set_item(k, PyTensor(t))?;
    }
    out.into_py_any(py)
}

fn busy(what: &str) -> PyErr {
    err(borch_tensor::BorchError::Runtime(format!(
        "this {what} is in use by a call that has not returned"
    )))
}

/// A checkpoint's model, optimizer and scheduler, borrowed for the call.
type Parts<'a> = (
    PyRef<'a, PyModule>,
    PyRef<'a, PyOptimizer>,
    Option<PyRef<'a, PyScheduler>>,
);

fn checkpoint_parts<'a>(
    name: &str,
    model: &'a Bound<'_, PyAny>,
    optimizer: &'a Bound<'_, PyAny>,
    scheduler: Option<&'a Bound<'_, PyAny>>,
) -> PyResult<Parts<'a>> {
    let model = model
        .cast::<PyModule>()
        .map_err(|_| {
            type_error(format!(
                "{name}(): the model must be an nn.Module, not {}",
                type_name(model)
            ))
        })?
        .borrow();
    let optimizer = optimizer
        .cast::<PyOptimizer>()
        .map_err(|_| {
            type_error(format!(
                "{name}(): the optimizer must be an optimizer, not {}",
                type_name(optimizer)
            ))
        })?
        .borrow();
    let scheduler = match scheduler {
        Some(s) if !s.is_none() => Some(
            s.cast::<PyScheduler>()
                .map_err(|_| {
                    type_error(format!(
                        "{name}(): the scheduler must be a learning-rate scheduler or None, not {}",
                        type_name(s)
                    ))
                })?
                .borrow(),
        ),
        _ => None,
    };
    Ok((model, optimizer, scheduler))
}

/// borch's `save_checkpoint(model, optimizer, scheduler, epoch, f)`'s bytes: the model, the
/// optimizer (torch's layout), the scheduler (or None), the epoch and torch's RNG state in one
/// safetensors file.
#[pyfunction]
#[pyo3(signature = (model, optimizer, scheduler, epoch))]
pub fn save_checkpoint(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    optimizer: &Bound<'_, PyAny>,
    scheduler: Option<&Bound<'_, PyAny>>,
    epoch: i64,
) -> PyResult<Py<PyAny>> {
    let (model, optimizer, scheduler) =
        checkpoint_parts("save_checkpoint", model, optimizer, scheduler)?;
    let o = optimizer
        .0
        .get()?
        .try_borrow()
        .map_err(|_| busy("optimizer"))?;
    let s = match &scheduler {
        Some(s) => Some(s.inner.get()?.try_borrow().map_err(|_| busy("scheduler"))?),
        None => None,
    };
    let bytes = model.with(|m| {
        pollster::block_on(borch_nn::serialization::save_checkpoint(
            m,
            &**o,
            s.as_deref(),
            epoch,
        ))
    })?;
    pyo3::types::PyBytes::new(py, &bytes).into_py_any(py)
}

/// borch's `load_checkpoint(f, model, optimizer, scheduler=None)`: everything restored in place;
/// returns the epoch saved.
#[pyfunction]
#[pyo3(signature = (data, model, optimizer, scheduler=None))]
pub fn load_checkpoint(
    data: &[u8],
    model: &Bound<'_, PyAny>,
    optimizer: &Bound<'_, PyAny>,
    scheduler: Option<&Bound<'_, PyAny>>,
) -> PyResult<i64> {
    let (model, optimizer, scheduler) =
        checkpoint_parts("load_checkpoint", model, optimizer, scheduler)?;
    let mut o = optimizer
        .0
        .get()?
        .try_borrow_mut()
        .map_err(|_| busy("optimizer"))?;
    let mut s = match &scheduler {
        Some(s) => Some(
            s.inner
                .get()?
                .try_borrow_mut()
                .map_err(|_| busy("scheduler"))?,
        ),
        None => None,
    };
    let resumed = model
        .with(|m| borch_nn::serialization::load_checkpoint(data, m, &mut **o, s.as_deref_mut()))?;
    Ok(resumed.epoch)
}
