use std::sync::OnceLock;

use crate::adapter::DeviceOptions;
use crate::device::Device;
#[cfg(target_arch = "wasm32")]
use crate::error::DeviceError;
use crate::error::DeviceResult;

static DEFAULT: OnceLock<Device> = OnceLock::new();

/// Open the default device with `options`; later calls return the device opened first.
pub async fn init(options: &DeviceOptions) -> DeviceResult<Device> {
    if let Some(d) = DEFAULT.get() {
        return Ok(d.clone());
    }
    let device = Device::new(options).await?;
    Ok(DEFAULT.get_or_init(|| device).clone())
}

/// Whether the default device has been opened.
pub fn is_initialized() -> bool {
    DEFAULT.get().is_some()
}

/// The default device. Native targets open it on first use (blocking); in a browser `init` must
/// have been awaited first.
pub fn default_device() -> DeviceResult<Device> {
    if let Some(d) = DEFAULT.get() {
        return Ok(d.clone());
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        pollster::block_on(init(&DeviceOptions::default()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        Err(DeviceError::NotInitialised(
            " (in a browser the device opens asynchronously)",
        ))
    }
}
