use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::device::Device;
use crate::error::{DeviceError, DeviceResult};

/// Wall time per kernel while profiling: each dispatch is submitted on its own and waited for,
/// so a kernel's time is its GPU time plus one submit and one wait (measure an empty one with
/// `Device::profile_overhead` to read the rest). A measuring aid for benchmarks; it serialises
/// the GPU, so never time a step while it is on.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelTime {
    /// The kernel's pipeline key (its name and specialisation) and its grid of workgroups.
    pub key: String,
    /// Dispatches of it while profiling.
    pub count: u64,
    /// Their summed wall time (submit to finished).
    pub total: Duration,
}

/// Whether dispatches are being profiled, and the times so far.
#[derive(Default)]
pub(crate) struct Profiler {
    on: AtomicBool,
    times: Mutex<HashMap<String, (u64, Duration)>>,
}

impl Profiler {
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    fn add(&self, key: &str, elapsed: Duration) {
        let mut times = self.times.lock().unwrap_or_else(|p| p.into_inner());
        let slot = match times.get_mut(key) {
            Some(slot) => slot,
            None => times.entry(key.to_string()).or_default(),
        };
        slot.0 += 1;
        slot.1 += elapsed;
    }

    fn take(&self) -> Vec<KernelTime> {
        let mut times = self.times.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<KernelTime> = times
            .drain()
            .map(|(key, (count, total))| KernelTime { key, count, total })
            .collect();
        out.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.key.cmp(&b.key)));
        out
    }
}

impl Device {
    /// Time every following dispatch on its own (see [`KernelTime`]); off again with `false`.
    /// Native only: a browser cannot wait for the GPU.
    pub fn set_profiling(&self, on: bool) -> DeviceResult<()> {
        if cfg!(target_arch = "wasm32") && on {
            return Err(DeviceError::Gpu(
                "kernel profiling waits for the GPU after each dispatch, which a browser cannot do"
                    .into(),
            ));
        }
        self.synchronize()?;
        self.inner.profiler.on.store(on, Ordering::Relaxed);
        Ok(())
    }

    /// The kernels timed since profiling began or the last take, the most expensive first.
    pub fn take_profile(&self) -> Vec<KernelTime> {
        self.inner.profiler.take()
    }

    /// The wall time of one empty submit and wait: what each profiled dispatch adds to its
    /// kernel's own time.
    pub fn profile_overhead(&self) -> DeviceResult<Duration> {
        self.synchronize()?;
        let start = Instant::now();
        let encoder = self
            .inner
            .device
            .create_command_encoder(&Default::default());
        self.inner.queue.submit([encoder.finish()]);
        self.synchronize()?;
        Ok(start.elapsed())
    }

    /// Submit the batch holding just this dispatch (without the pool's trim, which counts
    /// submits: profiling must not free the buffers a normal step reuses) and time it.
    pub(crate) fn profile_dispatch(
        &self,
        mut batch: std::sync::MutexGuard<'_, crate::batch::Batch>,
        key: &str,
        workgroups: [u32; 3],
    ) -> DeviceResult<()> {
        let start = Instant::now();
        if let Some(commands) = batch.finish(&self.inner.queue) {
            self.inner.queue.submit([commands]);
        }
        drop(batch);
        self.synchronize()?;
        let [x, y, z] = workgroups;
        self.inner
            .profiler
            .add(&format!("{key} grid {x}x{y}x{z}"), start.elapsed());
        Ok(())
    }
}
