#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod adapter;
mod batch;
mod counters;
mod device;
mod error;
mod global;
mod kernel;
mod pool;
mod profile;
mod readback;
mod runtime_dir;
mod trace;

pub use adapter::{AdapterInfo, DeviceOptions, PowerPreference};
pub use counters::{MemoryStats, PoolStats};
pub use device::{Device, MAX_DISPATCHES_PER_SUBMIT};
pub use error::{DeviceError, DeviceResult};
pub use global::{default_device, init, is_initialized};
pub use kernel::{Binding, Kernel, WORKGROUP_SIZE, grid_for};
pub use pool::{DEFAULT_POOL_BYTES, PooledBuffer, TRIM_AFTER_SUBMITS};
pub use profile::KernelTime;
pub use trace::{Trace, TraceOutcome};
pub use wgpu;
