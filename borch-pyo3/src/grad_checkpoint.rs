//! torch.utils.checkpoint's `checkpoint(function, *args, use_reentrant=False)`: the core's
//! `checkpoint_with_options` around a Python callable, which the core calls in the forward and
//! again in the backward's recompute. An exception the callable raises is kept
//! (`errors::callback_error`) and raised as itself where the call into the core returns
//! (`checkpoint(...)` or `loss.backward()`), as borch-js rethrows a JavaScript function's throw.

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use borch_tensor::{BorchError, Result, Tensor};

use crate::convert::{raw_arguments, type_name, value};
use crate::errors::{callback_error, err};
use crate::tensor::PyTensor;

/// The Python callable, as the core's checkpoint holds it (called with the GIL taken).
struct Callback(Py<PyAny>);

impl Callback {
    fn call(&self, inputs: &[Tensor]) -> Result<Tensor> {
        Python::attach(|py| {
            let args = inputs
                .iter()
                .map(|t| Bound::new(py, PyTensor(t.clone())))
                .collect::<PyResult<Vec<_>>>()?;
            let out = self.0.bind(py).call1(PyTuple::new(py, args)?)?;
            match out.cast::<PyTensor>() {
                Ok(t) => Ok(Ok(t.borrow().0.clone())),
                Err(_) => Ok(Err(BorchError::Type(format!(
                    "checkpoint(): the function must return one Tensor, not {}",
                    type_name(&out)
                )))),
            }
        })
        .map_err(callback_error)?
    }
}

/// `checkpoint(function, *inputs, {use_reentrant, ...})`: the function's output, recomputed in
/// the backward.
#[pyfunction]
#[pyo3(signature = (function, *args))]
pub fn checkpoint(
    py: Python<'_>,
    function: Py<PyAny>,
    args: &Bound<'_, PyTuple>,
) -> PyResult<Py<PyAny>> {
    let (positional, keywords) = raw_arguments(args)?;
    let inputs = positional.iter().map(value).collect::<PyResult<Vec<_>>>()?;
    let options = keywords
        .into_iter()
        .map(|(k, v)| Ok((k, value(&v)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let f = Callback(function);
    let out = borch_autograd::checkpoint_with_options(move |ts| f.call(ts), inputs, options)
        .map_err(err)?;
    PyTensor(out).into_py_any(py)
}
