use thiserror::Error;

/// What can go wrong below the tensor layer.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum DeviceError {
    #[error("no WebGPU adapter was found{0}")]
    NoAdapter(String),
    #[error("the WebGPU device could not be created: {0}")]
    RequestDevice(String),
    #[error("the GPU reported an error: {0}")]
    Gpu(String),
    #[error("reading a buffer back from the GPU failed: {0}")]
    Readback(String),
    #[error(
        "a buffer of {requested} bytes exceeds this adapter's limit of {limit} bytes per buffer"
    )]
    BufferTooLarge { requested: u64, limit: u64 },
    #[error("the default device is not initialised: call borch's init() first{0}")]
    NotInitialised(&'static str),
}

pub type DeviceResult<T> = Result<T, DeviceError>;
