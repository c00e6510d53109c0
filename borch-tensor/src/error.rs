use borch_device::DeviceError;
use thiserror::Error;

/// The one error type of borch. Each variant names the Python exception torch raises for the same
/// mistake, so the bindings can raise the same class; messages reuse torch's English.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum BorchError {
    /// torch's `RuntimeError`: shapes that do not fit, values out of a domain.
    #[error("{0}")]
    Runtime(String),
    /// torch's `IndexError`: a dim or index out of range.
    #[error("{0}")]
    Index(String),
    /// Python's `KeyError`: a name that is not in a dict-like container (`module_dict["x"]`).
    #[error("{0}")]
    Key(String),
    /// torch's `TypeError`: an argument of the wrong kind.
    #[error("{0}")]
    Type(String),
    /// torch's `ValueError`.
    #[error("{0}")]
    Value(String),
    /// torch's `NotImplementedError`, also for torch behaviour borch does not have yet.
    #[error("{0}")]
    NotImplemented(String),
    /// A tensor used after its scope released it.
    #[error("{0}")]
    Released(String),
    /// An error of the device below (no adapter, a GPU error, a failed readback).
    #[error(transparent)]
    Device(#[from] DeviceError),
}

/// The exception class a binding should raise for an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `RuntimeError`.
    Runtime,
    /// `IndexError`.
    Index,
    /// `KeyError`.
    Key,
    /// `TypeError`.
    Type,
    /// `ValueError`.
    Value,
    /// `NotImplementedError`.
    NotImplemented,
    /// A tensor used after its scope released it.
    Released,
    /// An error of the device.
    Device,
}

impl ErrorKind {
    /// The name of the exception torch raises (`"RuntimeError"`, …; borch's own `ReleasedError`
    /// and `DeviceError`): what the bindings raise or name in a thrown error's `kind`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Runtime => "RuntimeError",
            ErrorKind::Index => "IndexError",
            ErrorKind::Key => "KeyError",
            ErrorKind::Type => "TypeError",
            ErrorKind::Value => "ValueError",
            ErrorKind::NotImplemented => "NotImplementedError",
            ErrorKind::Released => "ReleasedError",
            ErrorKind::Device => "DeviceError",
        }
    }
}

impl BorchError {
    /// The exception class of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            BorchError::Runtime(_) => ErrorKind::Runtime,
            BorchError::Index(_) => ErrorKind::Index,
            BorchError::Key(_) => ErrorKind::Key,
            BorchError::Type(_) => ErrorKind::Type,
            BorchError::Value(_) => ErrorKind::Value,
            BorchError::NotImplemented(_) => ErrorKind::NotImplemented,
            BorchError::Released(_) => ErrorKind::Released,
            BorchError::Device(_) => ErrorKind::Device,
        }
    }
}

/// borch's result: `BorchError` by default.
pub type Result<T, E = BorchError> = std::result::Result<T, E>;

pub(crate) fn runtime<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Runtime(msg.into()))
}
pub(crate) fn index_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Index(msg.into()))
}
pub(crate) fn type_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Type(msg.into()))
}
pub(crate) fn not_impl<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::NotImplemented(msg.into()))
}
