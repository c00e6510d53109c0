//! Element and byte counts of shapes the user asks for, in checked 64-bit arithmetic (`usize` is
//! 32 bits on wasm32, where a plain product of `[65536, 65537]` wraps to 65536). Every tensor
//! borch makes, a view included, holds at most `MAX_NUMEL` elements, so products of an existing
//! tensor's dims never overflow; shapes that do not exist yet are checked here first.

use borch_device::{Device, DeviceError};

use crate::dtype::DType;
use crate::error::{BorchError, Result};
use crate::layout::fmt_list;

/// The most elements one tensor may have: kernels index elements with 32-bit signed integers.
pub const MAX_NUMEL: u64 = i32::MAX as u64;

/// The exact element count of `shape`, saturating at `u128::MAX` (never wraps).
pub fn exact_numel(shape: &[usize]) -> u128 {
    shape
        .iter()
        .fold(1u128, |acc, &d| acc.saturating_mul(d as u128))
}

fn count(n: u128) -> String {
    if n == u128::MAX {
        format!("more than {}", u128::MAX)
    } else {
        n.to_string()
    }
}

/// The element count of a view of `shape` (no allocation), refused above `MAX_NUMEL`.
pub fn view_numel(op: &str, shape: &[usize]) -> Result<usize> {
    let n = exact_numel(shape);
    if n > u128::from(MAX_NUMEL) {
        return Err(BorchError::NotImplemented(format!(
            "{op}: a tensor of shape {} would have {} elements; borch's tensors hold at most \
             {MAX_NUMEL} elements (its kernels index with 32-bit integers)",
            fmt_list(shape),
            count(n)
        )));
    }
    Ok(n as usize)
}

/// The element count of a new tensor of `shape` on `device`, checked before anything is allocated
/// on the host or the device: its bytes must fit one buffer of the adapter (the error names the
/// real size and the limit).
pub fn alloc_numel(device: &Device, shape: &[usize]) -> Result<usize> {
    let n = exact_numel(shape);
    let bytes = n.saturating_mul(DType::SIZE_BYTES as u128);
    if bytes > i64::MAX as u128 {
        return Err(BorchError::Runtime(format!(
            "Storage size calculation overflowed with sizes={}",
            fmt_list(shape)
        )));
    }
    device.check_buffer_size(bytes as u64)?;
    if n > u128::from(MAX_NUMEL) {
        return Err(BorchError::Device(DeviceError::BufferTooLarge {
            requested: bytes as u64,
            limit: MAX_NUMEL * DType::SIZE_BYTES as u64,
        }));
    }
    Ok(n as usize)
}

/// The length of a new 1-d tensor of `n` elements (a count computed in floating point, as
/// `arange`'s), checked as `alloc_numel` checks a shape.
pub fn alloc_len(n: f64) -> Result<usize> {
    if n > MAX_NUMEL as f64 {
        let device = crate::tensor::device()?;
        let bytes = n * DType::SIZE_BYTES as f64;
        return Err(BorchError::Device(DeviceError::BufferTooLarge {
            requested: bytes as u64,
            limit: device.max_buffer_bytes(),
        }));
    }
    new_numel(&[n as usize])
}

/// `alloc_numel` on the default device.
pub fn new_numel(shape: &[usize]) -> Result<usize> {
    alloc_numel(&crate::tensor::device()?, shape)
}

/// Bytes of `numel` elements, in 64 bits.
pub fn bytes_of(numel: usize) -> u64 {
    numel as u64 * DType::SIZE_BYTES as u64
}
