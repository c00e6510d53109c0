//! Index errors found on the GPU. Kernels that read indices from a tensor cannot stop the call
//! that launched them (the indices are on the device, and reading them back would need an
//! `await`). So such a kernel clamps a bad index into range, keeps going, and records the first
//! bad index in a small per-device flag buffer; the next readback on that device (`to_host`,
//! `to_vec`, `item`) reads the flag and returns torch's error for it instead of data. This is
//! how torch on CUDA reports a device-side assert: later, at a synchronisation point.

use std::sync::Mutex;

use borch_device::Device;

use crate::dtype::DType;
use crate::error::{BorchError, Result};
use crate::tensor::Tensor;

/// What went wrong, as written into the flag by a kernel (word 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Fault {
    /// gather, scatter, scatter_add, index_add.
    OutOfBounds = 1,
    /// index_select.
    IndexSelect = 2,
    /// take.
    Take = 3,
    /// one_hot: a class at or above num_classes.
    ClassTooLarge = 4,
    /// one_hot: a negative class.
    ClassNegative = 5,
}

/// WGSL for a kernel that declares `flag` (`array<atomic<i32>>`): `report(code, index, size,
/// dim)` keeps the first report of a dispatch sequence.
pub(crate) const REPORT: &str = r#"
fn report(code: u32, index: i32, size: i32, dim: i32) {
    loop {
        let r = atomicCompareExchangeWeak(&flag[0], 0, i32(code));
        if (r.exchanged) {
            atomicStore(&flag[1], index);
            atomicStore(&flag[2], size);
            atomicStore(&flag[3], dim);
            return;
        }
        if (r.old_value != 0) { return; }
    }
}
"#;

struct Entry {
    device: Device,
    flag: Tensor,
    pending: bool,
}

static FLAGS: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn lock() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    FLAGS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The flag buffer of `device`, to bind to a kernel that may report; the next readback checks it.
pub(crate) fn flag_for(device: &Device) -> Result<Tensor> {
    let mut flags = lock();
    if let Some(e) = flags.iter_mut().find(|e| e.device.same(device)) {
        e.pending = true;
        return Ok(e.flag.clone());
    }
    // Cached across calls, so no scope may release it.
    let flag = crate::scope::keep_alive(&Tensor::uninit(device, &[4], DType::Int64)?);
    flag.fill_(0)?;
    flags.push(Entry {
        device: device.clone(),
        flag: flag.clone(),
        pending: true,
    });
    Ok(flag)
}

/// Return (and clear) the first index error reported on `device` since the last check. Costs
/// one extra readback, and only when an index kernel ran since the last check.
pub(crate) async fn take_error(device: &Device) -> Result<()> {
    let flag = {
        let mut flags = lock();
        match flags.iter_mut().find(|e| e.device.same(device)) {
            Some(e) if e.pending => {
                e.pending = false;
                e.flag.clone()
            }
            _ => return Ok(()),
        }
    };
    let bytes = device.read(&flag.buffer()?, 0, 16).await?;
    let w: Vec<i32> = bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if w[0] == 0 {
        return Ok(());
    }
    flag.fill_(0)?;
    let (index, size, dim) = (w[1], w[2], w[3]);
    Err(match w[0] {
        x if x == Fault::OutOfBounds as i32 => BorchError::Runtime(format!(
            "index {index} is out of bounds for dimension {dim} with size {size}"
        )),
        x if x == Fault::IndexSelect as i32 => {
            BorchError::Index("index out of range in self".into())
        }
        x if x == Fault::Take as i32 => BorchError::Index(format!(
            "out of range: tried to access index {index} on a tensor of {size} elements."
        )),
        x if x == Fault::ClassTooLarge as i32 => {
            BorchError::Runtime("Class values must be smaller than num_classes.".into())
        }
        _ => BorchError::Runtime("Class values must be non-negative.".into()),
    })
}

/// Check `device` for a pending index error now (it is also checked by every readback).
pub async fn check_index_errors(device: &Device) -> Result<()> {
    take_error(device).await
}
