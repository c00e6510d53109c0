//! `Tensor`: the handle the Python layer's `Tensor` holds as `_js`, answering borch-ts's names:
//! `shape`, `dtype`, `requiresGrad`, `grad`, `isLeaf`, `item()`, `toArray()`, `repr()`,
//! `backward()`, and every method of the op catalog by its borch-ts name (`t.logSoftmax`), each a
//! forward into `borch_tensor::api::call`. Reads block until the device has answered (torch's
//! reads are synchronous; borch-ts's return promises).

use borch_tensor::Tensor;
use borch_tensor::api::{self, Entry, Value};
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::convert::{self, arguments, to_py};
use crate::errors::{guard, py};
use crate::names;

/// A tensor handle (borch-ts's `Tensor`).
#[pyclass(name = "Tensor", module = "borch._native")]
pub struct PyTensor(pub Tensor);

/// A catalog method bound to its tensor (`t.logSoftmax`), called with borch-ts's arguments.
#[pyclass(name = "Method", module = "borch._native")]
pub struct Method {
    tensor: Tensor,
    entry: &'static Entry,
}

#[pymethods]
impl Method {
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        guard(|| {
            let (mut positional, keywords) = arguments(args)?;
            positional.insert(0, Value::Tensor(self.tensor.clone()));
            run_entry(py, self.entry, positional, keywords)
        })
    }

    #[getter]
    fn __name__(&self) -> &'static str {
        self.entry.name
    }
}

/// A catalog method not bound to a tensor (`TensorMethod(t, *args)` is `t.name(*args)`): what the
/// Python layer keeps per method name, so that a call looks nothing up
/// (`_bridge_native.tensor_method`).
#[pyclass(name = "TensorMethod", module = "borch._native", frozen)]
pub struct TensorMethod {
    entry: &'static Entry,
}

impl TensorMethod {
    /// The catalog entry it calls.
    pub(crate) fn entry(&self) -> &'static Entry {
        self.entry
    }
}

#[pymethods]
impl TensorMethod {
    /// `args[0]` is the tensor; then borch-ts's arguments (a trailing dict: the keywords).
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        guard(|| {
            let (positional, keywords) = arguments(args)?;
            run_entry(py, self.entry, positional, keywords)
        })
    }

    #[getter]
    fn __name__(&self) -> &'static str {
        self.entry.name
    }
}

/// The catalog method `entry` called as a method on `positional` (the tensor first).
fn run_entry(
    py: Python<'_>,
    entry: &'static Entry,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> PyResult<Py<PyAny>> {
    to_py(
        py,
        crate::errors::py(api::call_entry(entry, true, positional, keywords))?,
    )
}

/// The catalog's tensor method of borch-ts name `name` (`logSoftmax`), or None.
#[pyfunction]
pub fn tensor_method(name: &str) -> Option<TensorMethod> {
    names::method(name).map(|entry| TensorMethod { entry })
}

#[pymethods]
impl PyTensor {
    /// The size of each dim.
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.0.shape().to_vec()
    }

    /// `"float32"`, `"int64"` or `"bool"`.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.0.dtype().name()
    }

    #[getter(requiresGrad)]
    fn requires_grad(&self) -> bool {
        self.0.requires_grad()
    }

    /// torch's `t.requires_grad = flag` (a bool, as torch requires).
    #[setter(requiresGrad)]
    fn set_requires_grad(&self, flag: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let flag = flag
            .and_then(|f| f.cast::<pyo3::types::PyBool>().ok().map(|b| b.is_true()))
            .ok_or_else(|| {
                crate::errors::err(borch_tensor::BorchError::Runtime(
                    "requires_grad must be a bool".into(),
                ))
            })?;
        py(self.0.set_requires_grad(flag).map(|_| ()))
    }

    /// The accumulated gradient, or None.
    #[getter]
    fn grad(&self) -> Option<PyTensor> {
        self.0.grad().map(PyTensor)
    }

    /// Set or clear `.grad` (`p.grad = None`).
    #[setter]
    fn set_grad(&self, grad: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let grad = match grad.map(convert::value).transpose()? {
            None | Some(Value::None) => None,
            Some(Value::Tensor(t)) => Some(t),
            Some(other) => {
                return Err(crate::errors::type_error(format!(
                    "assigned grad expected to be a Tensor or None but got grad of type {}",
                    other.type_name()
                )));
            }
        };
        py(self.0.assign_grad(grad))
    }

    #[getter(isLeaf)]
    fn is_leaf(&self) -> bool {
        self.0.is_leaf()
    }

    /// The one element (a float, an int or a bool), read back.
    fn item(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| convert::scalar(py, crate::errors::py(pollster::block_on(self.0.item()))?))
    }

    /// The elements as nested lists (torch's `tolist()`), read back.
    #[pyo3(name = "toArray")]
    fn to_array(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard(|| {
            let data = crate::errors::py(pollster::block_on(self.0.to_host()))?;
            convert::nested(py, &data, self.0.shape())
        })
    }

    /// torch's `repr(t)`, formatted by the core.
    fn repr(&self) -> PyResult<String> {
        guard(|| py(pollster::block_on(self.0.repr())))
    }

    /// torch's `backward(gradient=None, retain_graph=False)`.
    #[pyo3(signature = (gradient=None, retain_graph=None))]
    fn backward(
        &self,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        guard(|| {
            let gradient = match gradient.map(convert::value).transpose()? {
                None | Some(Value::None) => None,
                Some(Value::Tensor(t)) => Some(t),
                Some(other) => {
                    return Err(crate::errors::type_error(format!(
                        "backward(): argument 'gradient' must be Tensor, not {}",
                        other.type_name()
                    )));
                }
            };
            let retain = match retain_graph.map(convert::value).transpose()? {
                None | Some(Value::None) => false,
                Some(Value::Bool(b)) => b,
                Some(other) => {
                    return Err(crate::errors::type_error(format!(
                        "backward(): argument 'retain_graph' must be bool, not {}",
                        other.type_name()
                    )));
                }
            };
            py(borch_autograd::backward(&self.0, gradient.as_ref(), retain))
        })
    }

    /// A method of the op catalog by its borch-ts name (`logSoftmax`), bound to this tensor.
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        match names::method(name) {
            Some(entry) => Method {
                tensor: self.0.clone(),
                entry,
            }
            .into_py_any(py),
            None => Err(PyAttributeError::new_err(format!(
                "'Tensor' object has no attribute '{name}'"
            ))),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<borch._native.Tensor {:?} {}>",
            self.0.shape(),
            self.0.dtype().name()
        )
    }
}
