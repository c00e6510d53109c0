use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::counters::Counters;

/// Free buffers keyed by their bucketed size.
#[derive(Default)]
pub(crate) struct Pool {
    free: HashMap<u64, Vec<wgpu::Buffer>>,
}

pub(crate) const STORAGE_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// Sizes are rounded up to a power of two below 1 MiB and to an eighth of the power of two above,
/// so that reuse is likely and waste stays under 12.5% for large tensors.
pub(crate) fn bucket(bytes: u64) -> u64 {
    let bytes = bytes.max(16);
    let pow = bytes.next_power_of_two();
    if pow <= 1 << 20 {
        return pow;
    }
    let step = pow / 16;
    bytes.div_ceil(step) * step
}

impl Pool {
    pub fn take(&mut self, size: u64) -> Option<wgpu::Buffer> {
        self.free.get_mut(&size).and_then(Vec::pop)
    }
    pub fn put(&mut self, size: u64, buffer: wgpu::Buffer) {
        self.free.entry(size).or_default().push(buffer);
    }
    pub fn clear(&mut self) {
        for buffer in self.free.drain().flat_map(|(_, v)| v) {
            buffer.destroy();
        }
    }
}

/// A storage buffer owned by a tensor; dropping it returns the buffer to the pool.
pub struct PooledBuffer {
    buffer: Option<wgpu::Buffer>,
    size: u64,
    pool: Arc<Mutex<Pool>>,
    counters: Arc<Counters>,
}

impl PooledBuffer {
    pub(crate) fn new(
        buffer: wgpu::Buffer,
        size: u64,
        pool: Arc<Mutex<Pool>>,
        counters: Arc<Counters>,
    ) -> Self {
        Counters::add(&counters.live_buffers, 1);
        Counters::add(&counters.live_bytes, size);
        PooledBuffer {
            buffer: Some(buffer),
            size,
            pool,
            counters,
        }
    }

    pub fn buffer(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("buffer present until drop")
    }

    /// Bytes reserved (the bucketed size, at least what was asked for).
    pub fn size(&self) -> u64 {
        self.size
    }
}

impl Drop for PooledBuffer {
    fn drop(&mut self) {
        Counters::sub(&self.counters.live_buffers, 1);
        Counters::sub(&self.counters.live_bytes, self.size);
        if let Some(buffer) = self.buffer.take() {
            Counters::add(&self.counters.pooled_buffers, 1);
            Counters::add(&self.counters.pooled_bytes, self.size);
            if let Ok(mut pool) = self.pool.lock() {
                pool.put(self.size, buffer);
            }
        }
    }
}

impl std::fmt::Debug for PooledBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PooledBuffer({} bytes)", self.size)
    }
}
