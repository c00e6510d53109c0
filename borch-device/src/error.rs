use thiserror::Error;

/// What can go wrong below the tensor layer.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum DeviceError {
    /// No adapter matched the options (the reason follows).
    #[error("no WebGPU adapter was found{0}")]
    NoAdapter(String),
    /// The adapter refused to open a device.
    #[error("the WebGPU device could not be created: {0}")]
    RequestDevice(String),
    /// A validation or out-of-memory error the GPU raised.
    #[error("the GPU reported an error: {0}")]
    Gpu(String),
    /// Mapping a buffer for reading failed.
    #[error("reading a buffer back from the GPU failed: {0}")]
    Readback(String),
    /// A buffer larger than the adapter's per-buffer limit.
    #[error(
        "a buffer of {requested} bytes exceeds this adapter's limit of {limit} bytes per buffer"
    )]
    BufferTooLarge {
        /// Bytes asked for.
        requested: u64,
        /// The adapter's limit.
        limit: u64,
    },
    /// The default device was used before `init` (in a browser, where it cannot block).
    #[error("the default device is not initialised: call borch's init() first{0}")]
    NotInitialised(&'static str),
}

/// The result of a device operation.
pub type DeviceResult<T> = Result<T, DeviceError>;
