//! Core errors as one Python exception class, `NativeError(kind, message)`: `kind` names the
//! exception torch raises (`RuntimeError`, `IndexError`, …, as borch-js's `kind`), which the
//! Python bridge (`borch._native_bridge.reraise`) raises in its place. A Rust panic (a bug in
//! borch) is caught at the boundary and becomes a `NativeError` of kind `RuntimeError`; the
//! module stays usable.

use std::panic::{AssertUnwindSafe, catch_unwind};

use borch_tensor::{BorchError, ErrorKind};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(
    _native,
    NativeError,
    PyException,
    "An error of borch's core: args are (kind, message), kind the name of torch's exception."
);

/// The name of the exception torch raises for `kind` (borch-js's `kind_name`).
pub fn kind_name(kind: ErrorKind) -> &'static str {
    kind.name()
}

thread_local! {
    /// The exception a Python callback (a dataset's `__getitem__`, a `collate_fn`) raised inside a
    /// core call, raised again as it was when the core's error reaches Python.
    static RAISED: std::cell::RefCell<Option<PyErr>> = const { std::cell::RefCell::new(None) };
}

/// A Python callback's exception as a core error; the exception itself is kept for [`err`].
pub fn callback_error(e: PyErr) -> BorchError {
    let message = format!("a Python callback raised: {e}");
    RAISED.with(|r| *r.borrow_mut() = Some(e));
    BorchError::Runtime(message)
}

/// The exception a Python callback raised since it was last taken, if any.
pub fn take_raised() -> Option<PyErr> {
    RAISED.with(|r| r.borrow_mut().take())
}

/// The Python exception for a core error (a Python callback's own exception, when one caused it).
pub fn err(e: BorchError) -> PyErr {
    if let Some(raised) = RAISED.with(|r| r.borrow_mut().take()) {
        return raised;
    }
    NativeError::new_err((kind_name(e.kind()), e.to_string()))
}

/// A TypeError for an argument that cannot even reach the core.
pub fn type_error(message: impl Into<String>) -> PyErr {
    err(BorchError::Type(message.into()))
}

/// A core result as a binding result.
pub fn py<T>(r: borch_tensor::Result<T>) -> PyResult<T> {
    r.map_err(err)
}

/// Run `f`, turning a panic into a `NativeError` instead of letting it cross into Python.
pub fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic without a message".to_string());
            Err(NativeError::new_err((
                "RuntimeError",
                format!("borch panicked (a bug in borch; the module stays usable): {what}"),
            )))
        }
    }
}

/// A panic inside the boundary, for the test that checks it comes out as a Python exception
/// and leaves the module usable (tests/pynative/test_native.py).
#[pyfunction]
pub fn _panic_for_test(message: &str) -> PyResult<()> {
    guard(|| panic!("{message}"))
}
