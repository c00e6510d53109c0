//! Index errors found on the GPU. Kernels that read indices from a tensor cannot stop the call
//! that launched them (the indices are on the device, and reading them back would need an
//! `await`). So such a kernel clamps a bad index into range, keeps going, and records the first
//! bad index in a small per-device flag buffer; the next readback on that device (`to_host`,
//! `to_vec`, `item`) reads the flag and returns torch's error for it instead of data. This is
//! how torch on CUDA reports a device-side assert: later, at a synchronisation point. The error
//! names the op that failed (the code a kernel reports carries it), so the read that reports it
//! is never blamed.

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
    /// The ops that launched reporting kernels since the last check; a reported code is
    /// `fault | (position + 1) << 4`.
    ops: Vec<&'static str>,
}

/// What a kernel reports for `fault`, given the code base `flag_for` returned.
pub(crate) fn code(base: u32, fault: Fault) -> u32 {
    base | fault as u32
}

static FLAGS: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn lock() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    FLAGS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The flag buffer of `device` and the code base for `op`, to bind to a kernel that may report;
/// the next readback checks it.
pub(crate) fn flag_for(device: &Device, op: &'static str) -> Result<(Tensor, u32)> {
    let mut flags = lock();
    if let Some(e) = flags.iter_mut().find(|e| e.device.same(device)) {
        e.pending = true;
        let position = match e.ops.iter().position(|&o| o == op) {
            Some(p) => p,
            None => {
                e.ops.push(op);
                e.ops.len() - 1
            }
        };
        return Ok((e.flag.clone(), (position as u32 + 1) << 4));
    }
    // Cached across calls, so no scope may release it.
    let flag = crate::scope::keep_alive(&Tensor::uninit(device, &[4], DType::Int64)?);
    flag.fill_(0)?;
    flags.push(Entry {
        device: device.clone(),
        flag: flag.clone(),
        pending: true,
        ops: vec![op],
    });
    Ok((flag, 1 << 4))
}

/// A flag to check with the ops that may have reported into it.
pub(crate) struct Pending {
    pub flag: Tensor,
    ops: Vec<&'static str>,
}

/// The flag of `device` when an index kernel ran since the last check (and mark it checked).
pub(crate) fn take_pending(device: &Device) -> Option<Pending> {
    let mut flags = lock();
    match flags.iter_mut().find(|e| e.device.same(device)) {
        Some(e) if e.pending => {
            e.pending = false;
            Some(Pending {
                flag: e.flag.clone(),
                ops: std::mem::take(&mut e.ops),
            })
        }
        _ => None,
    }
}

/// Return (and clear) the first index error reported on `device` since the last check. Costs
/// one extra readback, and only when an index kernel ran since the last check.
pub(crate) async fn take_error(device: &Device) -> Result<()> {
    let Some(pending) = take_pending(device) else {
        return Ok(());
    };
    let bytes = device.read(&pending.flag.buffer()?, 0, FLAG_BYTES).await?;
    error_from(&pending, &bytes)
}

/// Bytes of a flag buffer.
pub(crate) const FLAG_BYTES: u64 = 16;

/// torch's error for the flag's contents `bytes` as read back, clearing the flag if it is set,
/// naming the op that reported.
pub(crate) fn error_from(pending: &Pending, bytes: &[u8]) -> Result<()> {
    let w: Vec<i32> = bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if w.len() < 4 || w[0] == 0 {
        return Ok(());
    }
    pending.flag.fill_(0)?;
    let (index, size, dim) = (w[1], w[2], w[3]);
    let op = usize::try_from((w[0] >> 4) - 1)
        .ok()
        .and_then(|i| pending.ops.get(i))
        .copied()
        .unwrap_or("an index op");
    let torch = match w[0] & 15 {
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
    };
    let note = format!(
        " (raised by {op}(); index errors are found on the GPU and reported at the next read)"
    );
    Err(match torch {
        BorchError::Index(m) => BorchError::Index(m + &note),
        BorchError::Runtime(m) => BorchError::Runtime(m + &note),
        other => other,
    })
}

/// Check `device` for a pending index error now (it is also checked by every readback).
pub async fn check_index_errors(device: &Device) -> Result<()> {
    take_error(device).await
}
