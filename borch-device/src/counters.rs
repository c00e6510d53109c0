use std::sync::atomic::{AtomicU64, Ordering};

/// Monotonic and live counters of one device; reads are cheap and never sync the GPU.
#[derive(Default)]
pub(crate) struct Counters {
    pub dispatches: AtomicU64,
    pub submits: AtomicU64,
    pub bind_groups_created: AtomicU64,
    pub live_buffers: AtomicU64,
    pub live_bytes: AtomicU64,
    /// The most `live_bytes` has been since the device opened or the last reset.
    pub peak_bytes: AtomicU64,
}

impl Counters {
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
    pub fn sub(counter: &AtomicU64, n: u64) {
        counter.fetch_sub(n, Ordering::Relaxed);
    }
    /// Count `n` more live bytes, raising the peak when it is passed.
    pub fn add_live_bytes(&self, n: u64) {
        let now = self.live_bytes.fetch_add(n, Ordering::Relaxed) + n;
        self.peak_bytes.fetch_max(now, Ordering::Relaxed);
    }
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

/// Buffers in use by tensors (the pool excluded): "is it leaking".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryStats {
    /// Buffers alive.
    pub buffers: u64,
    /// Their bytes (bucketed sizes).
    pub bytes: u64,
}

/// Buffers held by the pool for reuse: "how much is held".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Buffers held.
    pub buffers: u64,
    /// Their bytes.
    pub bytes: u64,
}
