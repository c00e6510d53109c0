use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::device::Device;
use crate::error::{DeviceError, DeviceResult};

/// Time per kernel while profiling: each dispatch is submitted on its own and waited for. The
/// wall time is the kernel's GPU time plus one submit and one wait (`Device::profile_overhead`
/// measures an empty one); where the adapter has timestamp queries, `gpu` is the time the GPU
/// spent in the dispatch's own compute pass, which has no such overhead. A measuring aid for
/// benchmarks; it serialises the GPU, so never time a step while it is on.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelTime {
    /// The kernel's pipeline key (its name and specialisation) and its grid of workgroups.
    pub key: String,
    /// Dispatches of it while profiling.
    pub count: u64,
    /// Their summed wall time (submit to finished).
    pub total: Duration,
    /// Their summed GPU time between the pass's timestamps (`None` without timestamp queries).
    pub gpu: Option<Duration>,
}

/// The query set a profiled dispatch's pass writes its begin and end timestamps into, and
/// the buffers they are resolved and read back through.
pub(crate) struct Timestamps {
    pub set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Nanoseconds per timestamp tick.
    period: f64,
}

impl Timestamps {
    fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Timestamps> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let buffer = |usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("borch profile timestamps"),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(Timestamps {
            set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("borch profile"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC),
            readback: buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
            period: f64::from(queue.get_timestamp_period()),
        })
    }

    /// Copy the pass's two timestamps to the readback buffer (recorded after the pass ends).
    fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.set, 0..2, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 16);
    }

    /// The GPU time between the two timestamps (after the submit that resolved them finished).
    fn read(&self, device: &wgpu::Device) -> DeviceResult<Duration> {
        let slice = self.readback.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| DeviceError::Readback(e.to_string()))?;
        let ticks = {
            let bytes = slice
                .get_mapped_range()
                .map_err(|e| DeviceError::Readback(e.to_string()))?;
            let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or([0; 8]));
            word(8).saturating_sub(word(0))
        };
        self.readback.unmap();
        Ok(Duration::from_nanos((ticks as f64 * self.period) as u64))
    }
}

/// One kernel's dispatches so far: their count, summed wall time and summed GPU time.
type Tally = (u64, Duration, Option<Duration>);

/// Whether dispatches are being profiled, and the times so far.
#[derive(Default)]
pub(crate) struct Profiler {
    on: AtomicBool,
    times: Mutex<HashMap<String, Tally>>,
    pub timestamps: Mutex<Option<Timestamps>>,
}

impl Profiler {
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    fn add(&self, key: &str, elapsed: Duration, gpu: Option<Duration>) {
        let mut times = self.times.lock().unwrap_or_else(|p| p.into_inner());
        let slot = match times.get_mut(key) {
            Some(slot) => slot,
            None => times.entry(key.to_string()).or_default(),
        };
        slot.0 += 1;
        slot.1 += elapsed;
        slot.2 = gpu.map(|g| slot.2.unwrap_or_default() + g);
    }

    fn take(&self) -> Vec<KernelTime> {
        let mut times = self.times.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<KernelTime> = times
            .drain()
            .map(|(key, (count, total, gpu))| KernelTime {
                key,
                count,
                total,
                gpu,
            })
            .collect();
        let cost = |k: &KernelTime| k.gpu.unwrap_or(k.total);
        out.sort_by(|a, b| cost(b).cmp(&cost(a)).then_with(|| a.key.cmp(&b.key)));
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
        let profiler = &self.inner.profiler;
        let mut timestamps = profiler
            .timestamps
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if on && timestamps.is_none() {
            *timestamps = Timestamps::new(&self.inner.device, &self.inner.queue);
        }
        profiler.on.store(on, Ordering::Relaxed);
        Ok(())
    }

    /// The kernels timed since profiling began or the last take, the most expensive first
    /// (by GPU time where there is one).
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

    /// Submit the batch holding just this dispatch, in a pass of its own with timestamps where
    /// the adapter has them (without the pool's trim, which counts submits: profiling must not
    /// free the buffers a normal step reuses) and time it.
    pub(crate) fn profile_dispatch(
        &self,
        mut batch: std::sync::MutexGuard<'_, crate::batch::Batch>,
        key: &str,
        workgroups: [u32; 3],
    ) -> DeviceResult<()> {
        let timestamps = self
            .inner
            .profiler
            .timestamps
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(stamps) = timestamps.as_ref() {
            stamps.resolve(batch.encoder(&self.inner.device));
        }
        let start = Instant::now();
        if let Some(commands) = batch.finish(&self.inner.queue) {
            self.inner.queue.submit([commands]);
        }
        drop(batch);
        self.synchronize()?;
        let wall = start.elapsed();
        let gpu = match timestamps.as_ref() {
            Some(stamps) => Some(stamps.read(&self.inner.device)?),
            None => None,
        };
        let [x, y, z] = workgroups;
        self.inner
            .profiler
            .add(&format!("{key} grid {x}x{y}x{z}"), wall, gpu);
        Ok(())
    }
}
