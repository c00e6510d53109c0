//! The buffer pool: storage buffers of dropped tensors kept for reuse, by size class.
//!
//! Policy (docs/design.md, "Memory"):
//! - A buffer returns to the pool when its last tensor goes, stamped with the device's submit
//!   count at that moment (its *epoch*). Commands recorded before then may still use it until the
//!   open batch is submitted; after that submit it is *clean*.
//! - Kernel outputs reuse any pooled buffer of their size class (their commands follow the old
//!   ones in the same queue). Uploads (`queue.write_buffer`, which runs before the open batch) reuse
//!   only clean buffers, so a loop that uploads each step keeps `pooled()` flat.
//! - Bounded: a buffer unused for `TRIM_AFTER_SUBMITS` submits is destroyed, and the pool never
//!   holds more than its byte cap (`DEFAULT_POOL_BYTES` unless set with
//!   `Device::set_pool_limit`): past the cap the oldest buffers go first.
//! - Destroying frees the memory at once (in a browser dropping a GPUBuffer waits for the garbage
//!   collector); only clean buffers are destroyed, others are dropped and freed by wgpu after use.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use crate::counters::Counters;

pub(crate) const STORAGE_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// A pooled buffer unused for this many submits is destroyed.
pub const TRIM_AFTER_SUBMITS: u64 = 64;
/// The pool's default byte cap.
#[cfg(target_arch = "wasm32")]
pub const DEFAULT_POOL_BYTES: u64 = 512 << 20;
/// Natively 2 GiB: a ResNet-18 training step at batch 64 frees ~650 MiB of activations at its
/// end, and a cap below that would make every step recreate the buffers evicted at the last.
#[cfg(not(target_arch = "wasm32"))]
pub const DEFAULT_POOL_BYTES: u64 = 2 << 30;

/// Sizes are rounded up to a power of two below 1 MiB and to an eighth of the power of two above,
/// so that reuse is likely and waste stays under 12.5% for large tensors.
pub(crate) fn bucket(bytes: u64) -> u64 {
    let bytes = bytes.max(16);
    let pow = bytes.checked_next_power_of_two().unwrap_or(u64::MAX);
    if pow <= 1 << 20 {
        return pow;
    }
    let step = pow / 16;
    bytes.div_ceil(step).saturating_mul(step)
}

struct Idle {
    buffer: wgpu::Buffer,
    epoch: u64,
}

/// Free buffers by size class, oldest first in each class.
pub(crate) struct Pool {
    free: HashMap<u64, VecDeque<Idle>>,
    buffers: u64,
    bytes: u64,
    cap: u64,
    last_trim: u64,
}

impl Default for Pool {
    fn default() -> Self {
        Pool {
            free: HashMap::new(),
            buffers: 0,
            bytes: 0,
            cap: DEFAULT_POOL_BYTES,
            last_trim: 0,
        }
    }
}

impl Pool {
    fn taken(&mut self, size: u64, idle: Option<Idle>) -> Option<wgpu::Buffer> {
        let idle = idle?;
        self.buffers -= 1;
        self.bytes -= size;
        Some(idle.buffer)
    }

    /// Any free buffer of `size` (the newest: likeliest still in cache), for a kernel to write.
    pub fn take(&mut self, size: u64) -> Option<wgpu::Buffer> {
        let idle = self.free.get_mut(&size).and_then(VecDeque::pop_back);
        self.taken(size, idle)
    }

    /// A free buffer of `size` that no unsubmitted command uses, for `queue.write_buffer`.
    pub fn take_clean(&mut self, size: u64, submits: u64) -> Option<wgpu::Buffer> {
        let class = self.free.get_mut(&size)?;
        let idle = match class.front() {
            Some(first) if first.epoch < submits => class.pop_front(),
            _ => None,
        };
        self.taken(size, idle)
    }

    /// The free buffer `wanted` itself (a trace's buffer, see `trace.rs`), when it is in the
    /// pool: any, or with `clean_before` only one released before that submit count.
    pub fn take_exact(
        &mut self,
        size: u64,
        wanted: &wgpu::Buffer,
        clean_before: Option<u64>,
    ) -> Option<wgpu::Buffer> {
        let class = self.free.get_mut(&size)?;
        let at = class.iter().rposition(|i| &i.buffer == wanted)?;
        if clean_before.is_some_and(|submits| class[at].epoch >= submits) {
            return None;
        }
        let idle = class.remove(at);
        self.taken(size, idle)
    }

    /// Keep `buffer` (of `size` bytes, released at submit count `epoch`) for reuse, evicting the
    /// oldest buffers past the cap.
    pub fn put(&mut self, size: u64, buffer: wgpu::Buffer, epoch: u64) {
        self.free
            .entry(size)
            .or_default()
            .push_back(Idle { buffer, epoch });
        self.buffers += 1;
        self.bytes += size;
        while self.bytes > self.cap {
            if !self.evict_oldest(epoch) {
                break;
            }
        }
    }

    fn evict_oldest(&mut self, submits: u64) -> bool {
        let oldest = self
            .free
            .iter()
            .filter_map(|(&size, class)| class.front().map(|i| (i.epoch, size)))
            .min();
        let Some((_, size)) = oldest else {
            return false;
        };
        if let Some(idle) = self.free.get_mut(&size).and_then(VecDeque::pop_front) {
            self.buffers -= 1;
            self.bytes -= size;
            release(idle, submits);
        }
        true
    }

    /// Destroy buffers unused for `TRIM_AFTER_SUBMITS` submits (checked every 16 submits).
    pub fn trim(&mut self, submits: u64) {
        if submits < self.last_trim + 16 {
            return;
        }
        self.last_trim = submits;
        for (&size, class) in &mut self.free {
            while class
                .front()
                .is_some_and(|i| i.epoch + TRIM_AFTER_SUBMITS <= submits)
            {
                if let Some(idle) = class.pop_front() {
                    self.buffers -= 1;
                    self.bytes -= size;
                    idle.buffer.destroy();
                }
            }
        }
        self.free.retain(|_, class| !class.is_empty());
    }

    pub fn set_cap(&mut self, cap: u64, submits: u64) {
        self.cap = cap;
        while self.bytes > self.cap && self.evict_oldest(submits) {}
    }

    /// Buffers and bytes held.
    pub fn stats(&self) -> (u64, u64) {
        (self.buffers, self.bytes)
    }

    /// Destroy every buffer (the caller has submitted all pending work first).
    pub fn clear(&mut self) {
        for idle in self.free.drain().flat_map(|(_, v)| v) {
            idle.buffer.destroy();
        }
        self.buffers = 0;
        self.bytes = 0;
    }
}

/// A clean buffer is destroyed now; one an unsubmitted command may use is only dropped (wgpu
/// keeps it until that command is done).
fn release(idle: Idle, submits: u64) {
    if idle.epoch < submits {
        idle.buffer.destroy();
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
        counters.add_live_bytes(size);
        PooledBuffer {
            buffer: Some(buffer),
            size,
            pool,
            counters,
        }
    }

    /// The wgpu buffer.
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
        if let Some(buffer) = self.buffer.take()
            && let Ok(mut pool) = self.pool.lock()
        {
            pool.put(self.size, buffer, Counters::get(&self.counters.submits));
        }
    }
}

impl std::fmt::Debug for PooledBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PooledBuffer({} bytes)", self.size)
    }
}
