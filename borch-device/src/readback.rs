use crate::error::{DeviceError, DeviceResult};

/// Wait until `staging` is mapped for reading, then copy its bytes out.
pub(crate) async fn map_and_read(
    device: &wgpu::Device,
    staging: wgpu::Buffer,
    len: u64,
) -> DeviceResult<Vec<u8>> {
    let (sender, receiver) = futures_channel::oneshot::channel();
    staging.map_async(wgpu::MapMode::Read, 0..len, move |result| {
        let _ = sender.send(result);
    });
    #[cfg(not(target_arch = "wasm32"))]
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| DeviceError::Readback(e.to_string()))?;
    #[cfg(target_arch = "wasm32")]
    let _ = device;
    receiver
        .await
        .map_err(|_| DeviceError::Readback("the map callback was dropped".into()))?
        .map_err(|e| DeviceError::Readback(e.to_string()))?;
    let bytes = staging
        .get_mapped_range(0..len)
        .map_err(|e| DeviceError::Readback(e.to_string()))?
        .to_vec();
    staging.unmap();
    // Freed now: in a browser a dropped GPUBuffer lives until the garbage collector runs.
    staging.destroy();
    Ok(bytes)
}
