//! The module-level calls borch-ts exports, by torch's names: the catalogs' functions
//! (`torch.*`, `nn.functional.*`, `autograd.*`), grad mode, memory scopes, the generator's seed
//! and the device's counters. The Python bridge (`borch/_native_bridge.py`) gives them borch-ts's
//! names; nothing here computes.

use borch_tensor::Scope;
use borch_tensor::api::Value;
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{arguments, to_py};
use crate::errors::{guard, type_error};
use crate::names;
use crate::tensor::PyTensor;
use crate::thread_bound::ThreadBound;

/// `torch.<name>(*args)` of the op catalog (`borch_tensor::api`).
#[pyfunction]
#[pyo3(signature = (name, *args))]
pub fn call_function(py: Python<'_>, name: &str, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
    guard(|| {
        let (positional, keywords) = arguments(args)?;
        to_py(
            py,
            crate::errors::py(borch_tensor::api::call(name, false, positional, keywords))?,
        )
    })
}

/// `nn.functional.<name>(*args)` of `borch_nn::api`.
#[pyfunction]
#[pyo3(signature = (name, *args))]
pub fn call_functional(
    py: Python<'_>,
    name: &str,
    args: &Bound<'_, PyTuple>,
) -> PyResult<Py<PyAny>> {
    guard(|| {
        let (positional, keywords) = arguments(args)?;
        to_py(
            py,
            crate::errors::py(borch_nn::api::call(name, positional, keywords))?,
        )
    })
}

/// `<path>.<name>(*args)` of one of torch's other function namespaces (`autograd.grad`,
/// `nn.utils.clip_grad_norm_`, `nn.Transformer.generate_square_subsequent_mask`).
#[pyfunction]
#[pyo3(signature = (path, name, *args))]
pub fn call_in(
    py: Python<'_>,
    path: &str,
    name: &str,
    args: &Bound<'_, PyTuple>,
) -> PyResult<Py<PyAny>> {
    guard(|| {
        let Some((module, entries)) = names::namespace(path) else {
            return Err(type_error(format!("borch has no namespace '{path}'")));
        };
        let (positional, keywords) = arguments(args)?;
        let out = borch_tensor::api::call_in(entries, module, name, false, positional, keywords);
        to_py(py, crate::errors::py(out)?)
    })
}

/// `(borch-ts name, torch name)` of the functions of `path` (`torch`, `nn.functional`,
/// `nn.utils`, `autograd`, `nn.Transformer`).
#[pyfunction]
pub fn function_names(path: &str) -> Vec<(String, &'static str)> {
    names::functions(path)
}

/// torch's `set_grad_enabled(mode)` as a switch: returns the previous mode.
#[pyfunction]
pub fn set_grad_enabled(mode: &Bound<'_, PyAny>) -> PyResult<bool> {
    match crate::convert::value(mode)? {
        Value::Bool(b) => Ok(borch_tensor::set_grad_enabled(b)),
        other => Err(type_error(format!(
            "set_grad_enabled(): argument 'mode' must be bool, not {}",
            other.type_name()
        ))),
    }
}

/// An open memory scope (`with torch.scope() as s:`), ended by `exit()`.
#[pyclass(name = "Scope", module = "borch._native")]
pub struct PyScope(ThreadBound<Option<Scope>>);

#[pymethods]
impl PyScope {
    /// Hand `t` to the enclosing scope; returns it.
    fn keep(&self, t: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
        let t = tensor_argument("keep", t)?;
        Ok(PyTensor(match self.0.get()? {
            Some(s) => s.keep(&t),
            None => t,
        }))
    }

    /// End the scope; later calls do nothing.
    fn exit(&mut self) -> PyResult<()> {
        drop(self.0.get_mut()?.take());
        Ok(())
    }
}

/// Open a memory scope.
#[pyfunction]
pub fn enter_scope() -> PyScope {
    PyScope(ThreadBound::new("scope", Some(Scope::enter())))
}

/// Exempt `t` from every scope; returns it.
#[pyfunction]
pub fn keep_alive(t: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    Ok(PyTensor(borch_tensor::keep_alive(&tensor_argument(
        "keep_alive",
        t,
    )?)))
}

fn tensor_argument(name: &str, t: &Bound<'_, PyAny>) -> PyResult<borch_tensor::Tensor> {
    match crate::convert::value(t)? {
        Value::Tensor(t) => Ok(t),
        other => Err(type_error(format!(
            "{name}(): argument 't' (position 1) must be Tensor, not {}",
            other.type_name()
        ))),
    }
}

/// torch's `manual_seed(seed)` (negative seeds wrap as torch's).
#[pyfunction]
pub fn manual_seed(seed: &Bound<'_, PyAny>) -> PyResult<()> {
    match crate::convert::value(seed)? {
        Value::Int(i) => {
            borch_tensor::manual_seed(i as u64);
            Ok(())
        }
        other => Err(type_error(format!(
            "manual_seed(): the seed must be an int, not {}",
            other.type_name()
        ))),
    }
}

fn device() -> PyResult<borch_tensor::Device> {
    borch_tensor::default_device().map_err(|e| crate::errors::err(e.into()))
}

fn pair(py: Python<'_>, buffers: u64, bytes: u64) -> PyResult<Py<PyAny>> {
    let d = PyDict::new(py);
    d.set_item("buffers", buffers)?;
    d.set_item("bytes", bytes)?;
    d.into_py_any(py)
}

/// Live tensors' buffers (excluding the pool): `{buffers, bytes}`.
#[pyfunction]
pub fn memory(py: Python<'_>) -> PyResult<Py<PyAny>> {
    let m = device()?.memory();
    pair(py, m.buffers as u64, m.bytes as u64)
}

/// Buffers kept by the pool for reuse: `{buffers, bytes}`.
#[pyfunction]
pub fn pooled(py: Python<'_>) -> PyResult<Py<PyAny>> {
    let p = device()?.pooled();
    pair(py, p.buffers as u64, p.bytes as u64)
}

/// Release every pooled buffer.
#[pyfunction]
pub fn empty_cache() -> PyResult<()> {
    device()?
        .empty_cache()
        .map_err(|e| crate::errors::err(e.into()))
}

/// Dispatches recorded on the default device so far.
#[pyfunction]
pub fn dispatches() -> PyResult<u64> {
    Ok(device()?.dispatches())
}

/// Submits to the default device's queue so far.
#[pyfunction]
pub fn submits() -> PyResult<u64> {
    Ok(device()?.submits())
}

/// The default adapter, described as every report line names it
/// (`mesa llvmpipe (LLVM 15.0.6, 256 bits), Vulkan, software`).
#[pyfunction]
pub fn adapter() -> PyResult<String> {
    Ok(device()?.adapter_info().to_string())
}

/// Whether the default adapter is a software one (lavapipe, SwiftShader, WARP).
#[pyfunction]
pub fn adapter_is_software() -> PyResult<bool> {
    Ok(device()?.adapter_info().is_software)
}

/// `compiled(fn)` (torch.compile's target): the core's record-and-replay
/// (`borch_tensor::Traces`) around a Python function, as borch-js's around a JavaScript one.
#[pyclass(name = "Compiled", module = "borch._native")]
pub struct PyCompiled {
    f: Py<PyAny>,
    traces: ThreadBound<std::cell::RefCell<borch_tensor::Traces>>,
}

/// Wrap `f` (called with the native arguments, returning native values) for record and replay.
#[pyfunction]
pub fn compiled(f: Py<PyAny>) -> PyCompiled {
    PyCompiled {
        f,
        traces: ThreadBound::new(
            "compiled function",
            std::cell::RefCell::new(borch_tensor::Traces::new()),
        ),
    }
}

#[pymethods]
impl PyCompiled {
    /// The first call per input shapes records the device work, later ones replay it.
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let (positional, _) = arguments(args)?;
        let Ok(mut traces) = self.traces.get()?.try_borrow_mut() else {
            return self.f.call1(py, args.clone());
        };
        let inputs = borch_tensor::tensors_of(&positional);
        crate::errors::py(traces.run_any(&inputs, || self.f.call1(py, args.clone())))?
    }

    fn replays(&self) -> PyResult<u64> {
        Ok(self.traces.get()?.try_borrow().map_or(0, |t| t.replays()))
    }

    fn recordings(&self) -> PyResult<u64> {
        Ok(self
            .traces
            .get()?
            .try_borrow()
            .map_or(0, |t| t.recordings()))
    }

    fn divergences(&self) -> PyResult<u64> {
        Ok(self
            .traces
            .get()?
            .try_borrow()
            .map_or(0, |t| t.divergences()))
    }
}
