//! `FastMethod`: a catalog tensor method as the Python layer's `Tensor.name` calls it, with no
//! Python between the method and the core. `fast(self, args, kwargs)` unwraps the Python
//! `Tensor` (its `_js`), passes arguments that need no conversion (ints, floats, bools, strings,
//! None, tensors), and wraps a tensor result as the Python layer's `Tensor` the way
//! `_bridge_native.from_js` does (its one slot set, no `__init__`). Anything else (keywords, a
//! list, a non-tensor result, a core error) goes through the Python layer's own functions,
//! installed once by `install_fast_hooks`: the general `call`, `from_js` and `reraise`.

use borch_tensor::api::{self, Entry, Value};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString, PyTuple};
use pyo3::{IntoPyObjectExt, intern};

use crate::convert::{to_py, value};
use crate::errors::{NativeError, guard};
use crate::tensor::{PyTensor, TensorMethod};

/// The Python layer's pieces a fast call falls back on.
struct Hooks {
    /// `_tensor.Tensor`.
    tensor: Py<pyo3::types::PyType>,
    /// `_bridge_native.call(fn, args, kwargs, *first)`.
    call: Py<PyAny>,
    /// `_bridge_native.from_js(result)`.
    from_js: Py<PyAny>,
    /// `_bridge_native.reraise(native_error)`: raises torch's class.
    reraise: Py<PyAny>,
}

static HOOKS: PyOnceLock<Hooks> = PyOnceLock::new();

/// Called by `_bridge_native` once it has defined them.
#[pyfunction]
pub fn install_fast_hooks(
    py: Python<'_>,
    tensor: Bound<'_, pyo3::types::PyType>,
    call: Py<PyAny>,
    from_js: Py<PyAny>,
    reraise: Py<PyAny>,
) -> PyResult<()> {
    let hooks = Hooks {
        tensor: tensor.unbind(),
        call,
        from_js,
        reraise,
    };
    // A second install (the bridge imported again) keeps the first: the classes it names live on.
    let _ = HOOKS.set(py, hooks);
    Ok(())
}

/// The catalog method `op` called as `Tensor.name` (`FastMethod(op)(self, args, kwargs)`).
#[pyclass(name = "FastMethod", module = "borch._native", frozen)]
pub struct FastMethod {
    op: Py<TensorMethod>,
    entry: &'static Entry,
}

#[pymethods]
impl FastMethod {
    #[new]
    fn new(op: Bound<'_, TensorMethod>) -> Self {
        let entry = op.get().entry();
        FastMethod {
            op: op.unbind(),
            entry,
        }
    }

    fn __call__(
        &self,
        py: Python<'_>,
        this: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        kwargs: &Bound<'_, PyDict>,
    ) -> PyResult<Py<PyAny>> {
        let hooks = HOOKS
            .get(py)
            .ok_or_else(|| PyRuntimeError::new_err("borch: fast-call hooks not installed"))?;
        let native = this.getattr(intern!(py, "_js"))?;
        match passed(hooks, &native, args, kwargs)? {
            Some(positional) => run(py, hooks, self.entry, positional),
            None => hooks.call.call1(py, (&self.op, args, kwargs, native)),
        }
    }
}

/// The core values of `native` then `args`, or None where the general call must convert them.
fn passed(
    hooks: &Hooks,
    native: &Bound<'_, PyAny>,
    args: &Bound<'_, PyTuple>,
    kwargs: &Bound<'_, PyDict>,
) -> PyResult<Option<Vec<Value>>> {
    if !kwargs.is_empty() {
        return Ok(None);
    }
    let mut positional = Vec::with_capacity(args.len() + 1);
    positional.push(value(native)?);
    for arg in args.iter_borrowed() {
        let plain = arg.is_exact_instance_of::<PyTensor>()
            || arg.is_none()
            || arg.is_exact_instance_of::<PyBool>()
            || arg.is_exact_instance_of::<PyInt>()
            || arg.is_exact_instance_of::<PyFloat>()
            || arg.is_exact_instance_of::<PyString>();
        if plain {
            positional.push(value(&arg)?);
        } else if arg.is_instance(hooks.tensor.bind(arg.py()))? {
            positional.push(value(&arg.getattr(intern!(arg.py(), "_js"))?)?);
        } else {
            return Ok(None);
        }
    }
    Ok(Some(positional))
}

/// The call and its result as Python's: a tensor wrapped here, other values by `from_js`, a
/// core error raised as torch's class by `reraise`.
fn run(
    py: Python<'_>,
    hooks: &Hooks,
    entry: &'static Entry,
    positional: Vec<Value>,
) -> PyResult<Py<PyAny>> {
    match guard(|| crate::errors::py(api::call_entry(entry, true, positional, Vec::new()))) {
        Ok(Value::Tensor(t)) => wrap(py, hooks, PyTensor(t).into_py_any(py)?),
        Ok(other) => hooks.from_js.call1(py, (to_py(py, other)?,)),
        Err(e) if e.is_instance_of::<NativeError>(py) => {
            // As `except NativeError as e: reraise(e)` leaves it: torch's class raised `from
            // None`, the NativeError kept as its `__context__` (which names borch's kind).
            let raised = match hooks.reraise.call1(py, (e.value(py),)) {
                Err(raised) => raised,
                Ok(_) => return Err(e),
            };
            raised
                .value(py)
                .setattr(intern!(py, "__context__"), e.value(py))?;
            Err(raised)
        }
        Err(e) => Err(e),
    }
}

/// `from_js` of a native tensor: a new Python `Tensor` with its one slot, `_js`, set (no
/// `__init__`, no `__setattr__`: as `object.__new__` and the slot's `__set__` do).
fn wrap(py: Python<'_>, hooks: &Hooks, native: Py<PyAny>) -> PyResult<Py<PyAny>> {
    let tensor = hooks.tensor.bind(py);
    // SAFETY: `tensor` is a heap type whose instances `PyType_GenericNew` allocates as
    // `object.__new__` does; `PyObject_GenericSetAttr` stores through the type's `_js` slot
    // descriptor. Both return NULL / -1 with a Python error set on failure, checked here.
    unsafe {
        let empty = PyTuple::empty(py);
        let object = pyo3::ffi::PyType_GenericNew(
            tensor.as_ptr().cast(),
            empty.as_ptr(),
            std::ptr::null_mut(),
        );
        let object = Bound::from_owned_ptr_or_err(py, object)?;
        let status = pyo3::ffi::PyObject_GenericSetAttr(
            object.as_ptr(),
            intern!(py, "_js").as_ptr(),
            native.as_ptr(),
        );
        if status != 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(object.unbind())
    }
}
