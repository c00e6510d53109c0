use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::adapter::{AdapterInfo, DeviceOptions, PowerPreference, backends_from};
use crate::batch::Batch;
use crate::counters::{Counters, MemoryStats, PoolStats};
use crate::error::{DeviceError, DeviceResult};
use crate::kernel::{Binding, Kernel, bind_group};
use crate::pool::{Pool, PooledBuffer, STORAGE_USAGE, bucket};
use crate::readback::map_and_read;
use crate::trace::{Active, BufferKind, Other, Trace, TraceOutcome};

/// Dispatches recorded before the open batch is submitted without a readback (the default of
/// `Device::set_max_dispatches_per_submit`).
pub const MAX_DISPATCHES_PER_SUBMIT: u64 = 4096;

/// A compiled kernel and its bind group layout (fetched once, not per dispatch).
pub(crate) struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

/// One WebGPU device with its pool, pipeline cache, open batch and counters. Cheap to clone.
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    max_per_submit: std::sync::atomic::AtomicU64,
    pub(crate) profiler: crate::profile::Profiler,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: AdapterInfo,
    limits: wgpu::Limits,
    pool: Arc<Mutex<Pool>>,
    counters: Arc<Counters>,
    pipelines: Mutex<HashMap<String, Arc<Pipeline>>>,
    batch: Mutex<Batch>,
    gpu_error: Arc<Mutex<Option<String>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Device {
    /// Choose an adapter and open a device with the adapter's own limits.
    pub async fn new(options: &DeviceOptions) -> DeviceResult<Device> {
        crate::runtime_dir::ensure();
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        desc.backends = backends_from(options);
        let instance = wgpu::Instance::new(desc);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: match options.power_preference {
                    PowerPreference::HighPerformance => wgpu::PowerPreference::HighPerformance,
                    PowerPreference::LowPower => wgpu::PowerPreference::LowPower,
                },
                force_fallback_adapter: options.force_fallback_adapter,
                ..Default::default()
            })
            .await
            .map_err(|e| DeviceError::NoAdapter(format!(": {e}")))?;
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("borch"),
                required_limits: limits.clone(),
                // For `set_profiling`'s per-dispatch GPU times; nothing else writes timestamps.
                required_features: if cfg!(target_arch = "wasm32") {
                    wgpu::Features::empty()
                } else {
                    adapter.features() & wgpu::Features::TIMESTAMP_QUERY
                },
                ..Default::default()
            })
            .await
            .map_err(|e| DeviceError::RequestDevice(e.to_string()))?;
        let gpu_error = Arc::new(Mutex::new(None));
        let sink = gpu_error.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut slot = lock(&sink);
            if slot.is_none() {
                *slot = Some(e.to_string());
            }
        }));
        Ok(Device {
            inner: Arc::new(Inner {
                max_per_submit: MAX_DISPATCHES_PER_SUBMIT.into(),
                profiler: Default::default(),
                info: AdapterInfo::from_wgpu(&adapter.get_info()),
                device,
                queue,
                limits,
                pool: Arc::default(),
                counters: Arc::default(),
                pipelines: Mutex::default(),
                batch: Mutex::default(),
                gpu_error,
            }),
        })
    }

    /// The adapter this device was opened on, described for people.
    pub fn adapter_info(&self) -> &AdapterInfo {
        &self.inner.info
    }

    /// The device's limits (the adapter's own, requested in full).
    pub fn limits(&self) -> &wgpu::Limits {
        &self.inner.limits
    }

    /// The underlying wgpu device.
    pub fn wgpu_device(&self) -> &wgpu::Device {
        &self.inner.device
    }

    /// Whether two handles refer to the same device.
    pub fn same(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The largest storage buffer one tensor may have on this adapter.
    pub fn max_buffer_bytes(&self) -> u64 {
        let l = &self.inner.limits;
        l.max_buffer_size.min(l.max_storage_buffer_binding_size) & !3
    }

    /// Refuse a buffer of `bytes` bytes larger than the adapter allows, naming both.
    pub fn check_buffer_size(&self, bytes: u64) -> DeviceResult<()> {
        let limit = self.max_buffer_bytes();
        if bytes > limit {
            return Err(DeviceError::BufferTooLarge {
                requested: bytes,
                limit,
            });
        }
        Ok(())
    }

    /// A storage buffer of at least `bytes` bytes, from the pool when one fits. Its contents are
    /// unspecified: kernels write every element they own.
    pub fn alloc(&self, bytes: u64) -> DeviceResult<PooledBuffer> {
        self.check_buffer_size(bytes)?;
        let size = bucket(bytes).min(self.max_buffer_bytes());
        let mut batch = lock(&self.inner.batch);
        let expected = batch
            .trace
            .as_mut()
            .and_then(|t| t.expected_buffer(BufferKind::Alloc, size));
        let reused = {
            let mut pool = lock(&self.inner.pool);
            expected
                .and_then(|b| pool.take_exact(size, &b, None))
                .or_else(|| pool.take(size))
        };
        let buffer = reused.unwrap_or_else(|| self.create_storage(size, false));
        if let Some(t) = &mut batch.trace {
            t.handed_out(BufferKind::Alloc, size, &buffer);
        }
        Ok(self.wrap(buffer, size))
    }

    /// A storage buffer holding `bytes`: a pooled buffer no unsubmitted command uses, written
    /// with `queue.write_buffer` (which lands before the open batch runs), or a new one created
    /// mapped. Bytes past `bytes.len()` are unspecified, as for `alloc`.
    pub fn upload(&self, bytes: &[u8]) -> DeviceResult<PooledBuffer> {
        self.check_buffer_size(bytes.len() as u64)?;
        let size = bucket(bytes.len() as u64).min(self.max_buffer_bytes());
        let submits = Counters::get(&self.inner.counters.submits);
        let mut batch = lock(&self.inner.batch);
        let expected = batch
            .trace
            .as_mut()
            .and_then(|t| t.expected_buffer(BufferKind::Upload, size));
        let buffer = self.upload_buffer(bytes, size, submits, expected)?;
        if let Some(t) = &mut batch.trace {
            t.handed_out(BufferKind::Upload, size, &buffer);
        }
        Ok(self.wrap(buffer, size))
    }

    /// The buffer for an upload: the trace's `expected` one or another clean pooled buffer,
    /// written with `queue.write_buffer`, or a new one written mapped.
    fn upload_buffer(
        &self,
        bytes: &[u8],
        size: u64,
        submits: u64,
        expected: Option<wgpu::Buffer>,
    ) -> DeviceResult<wgpu::Buffer> {
        let reused = {
            let mut pool = lock(&self.inner.pool);
            expected
                .and_then(|b| pool.take_exact(size, &b, Some(submits)))
                .or_else(|| pool.take_clean(size, submits))
        };
        if let Some(buffer) = reused {
            if bytes.len().is_multiple_of(4) {
                self.inner.queue.write_buffer(&buffer, 0, bytes);
                return Ok(buffer);
            }
            lock(&self.inner.pool).put(size, buffer, submits);
        }
        let buffer = self.create_storage(size, true);
        {
            let mut view = buffer
                .get_mapped_range_mut(..)
                .map_err(|e| DeviceError::Gpu(e.to_string()))?;
            view.slice(..bytes.len()).copy_from_slice(bytes);
        }
        buffer.unmap();
        Ok(buffer)
    }

    fn create_storage(&self, size: u64, mapped_at_creation: bool) -> wgpu::Buffer {
        self.inner.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("borch tensor"),
            size,
            usage: STORAGE_USAGE,
            mapped_at_creation,
        })
    }

    /// Cap the bytes the buffer pool keeps (oldest buffers go first past it); the default is
    /// `DEFAULT_POOL_BYTES`. `0` keeps nothing.
    pub fn set_pool_limit(&self, bytes: u64) {
        let submits = Counters::get(&self.inner.counters.submits);
        lock(&self.inner.pool).set_cap(bytes, submits);
    }

    fn wrap(&self, buffer: wgpu::Buffer, size: u64) -> PooledBuffer {
        PooledBuffer::new(
            buffer,
            size,
            self.inner.pool.clone(),
            self.inner.counters.clone(),
        )
    }

    fn pipeline(&self, kernel: &Kernel<'_>) -> Arc<Pipeline> {
        if let Some(p) = lock(&self.inner.pipelines).get(kernel.key) {
            return p.clone();
        }
        let source = (kernel.source)();
        let desc = wgpu::ShaderModuleDescriptor {
            label: Some(kernel.key),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        };
        let module = if kernel.bounds_checked {
            self.inner.device.create_shader_module(desc)
        } else {
            // SAFETY: kernels are marked unchecked only where their indices are proven in range
            // by construction and by a test; see `Kernel::bounds_checked`.
            unsafe {
                self.inner
                    .device
                    .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
            }
        };
        let pipeline =
            self.inner
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(kernel.key),
                    layout: None,
                    module: &module,
                    entry_point: Some("main"),
                    compilation_options: Default::default(),
                    cache: None,
                });
        let layout = pipeline.get_bind_group_layout(0);
        let pipeline = Arc::new(Pipeline { pipeline, layout });
        lock(&self.inner.pipelines).insert(kernel.key.to_string(), pipeline.clone());
        pipeline
    }

    /// Record one dispatch of `kernel` into the open batch; nothing is submitted.
    pub fn dispatch(
        &self,
        kernel: &Kernel<'_>,
        buffers: &[Binding<'_>],
        params: &[u32],
        workgroups: [u32; 3],
    ) -> DeviceResult<()> {
        let max = self.inner.limits.max_compute_workgroups_per_dimension;
        if workgroups.iter().any(|&w| w > max) {
            return Err(DeviceError::Gpu(format!(
                "dispatch of {workgroups:?} workgroups exceeds the limit of {max} per dimension"
            )));
        }
        if workgroups.contains(&0) {
            return Ok(());
        }
        let device = &self.inner.device;
        let mut guard = lock(&self.inner.batch);
        let batch = &mut *guard;
        let mut created = 0;
        let replayed = batch.trace.as_mut().and_then(|t| {
            t.replay_dispatch(
                device,
                kernel.key,
                workgroups,
                params,
                buffers,
                &mut created,
            )
        });
        let (pipeline, group) = match replayed {
            Some(hit) => hit,
            None => {
                let pipeline = self.pipeline(kernel);
                let align = u64::from(self.inner.limits.min_storage_buffer_offset_alignment);
                let traced = batch
                    .trace
                    .as_mut()
                    .and_then(|t| t.record_params(device, params, align));
                let group = match (traced, &mut batch.trace) {
                    (Some(slot), Some(t)) => {
                        let (chunk, offset, size) = slot;
                        let at = (t.chunk_buffer(chunk), offset, size);
                        let group = bind_group(device, &pipeline.layout, at, buffers);
                        t.record_dispatch(
                            kernel.key,
                            &pipeline,
                            workgroups,
                            params.len(),
                            slot,
                            buffers,
                            &group,
                        );
                        group
                    }
                    _ => {
                        let (chunk, offset, size) = crate::batch::push_params(
                            &mut batch.chunks,
                            &mut batch.spare,
                            device,
                            params,
                            align,
                        );
                        let at = (&batch.chunks[chunk].buffer, offset, size);
                        bind_group(device, &pipeline.layout, at, buffers)
                    }
                };
                created += 1;
                (pipeline, group)
            }
        };
        Counters::add(&self.inner.counters.bind_groups_created, created);
        if self.inner.profiler.is_on() {
            let stamps = lock(&self.inner.profiler.timestamps);
            batch.timed_pass(device, stamps.as_ref().map(|t| &t.set));
        }
        let same_pipeline = batch
            .pass_pipeline
            .as_ref()
            .is_some_and(|p| Arc::ptr_eq(p, &pipeline));
        let pass = batch.pass(device);
        if !same_pipeline {
            pass.set_pipeline(&pipeline.pipeline);
        }
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(workgroups[0], workgroups[1], workgroups[2]);
        if !same_pipeline {
            batch.pass_pipeline = Some(pipeline);
        }
        batch.dispatches += 1;
        Counters::add(&self.inner.counters.dispatches, 1);
        if self.inner.profiler.is_on() {
            return self.profile_dispatch(guard, kernel.key, workgroups);
        }
        // A loop that never reads back would otherwise grow one encoder (and the pool) forever.
        if batch.dispatches
            >= self
                .inner
                .max_per_submit
                .load(std::sync::atomic::Ordering::Relaxed)
        {
            self.submit_locked(batch);
        }
        Ok(())
    }

    /// Record a buffer-to-buffer copy (byte offsets and length multiples of 4).
    pub fn copy(
        &self,
        src: &wgpu::Buffer,
        src_offset: u64,
        dst: &wgpu::Buffer,
        dst_offset: u64,
        len: u64,
    ) {
        if len == 0 {
            return;
        }
        let mut batch = lock(&self.inner.batch);
        if let Some(t) = &mut batch.trace {
            t.other(Other::Copy(len));
        }
        batch
            .encoder(&self.inner.device)
            .copy_buffer_to_buffer(src, src_offset, dst, dst_offset, len);
    }

    fn take_gpu_error(&self) -> DeviceResult<()> {
        match lock(&self.inner.gpu_error).take() {
            Some(message) => Err(DeviceError::Gpu(message)),
            None => Ok(()),
        }
    }

    fn submit_locked(&self, batch: &mut Batch) {
        if let Some(commands) = batch.finish(&self.inner.queue) {
            self.inner.queue.submit([commands]);
            Counters::add(&self.inner.counters.submits, 1);
            lock(&self.inner.pool).trim(Counters::get(&self.inner.counters.submits));
        }
    }

    /// Submit the open batch whenever it reaches `n` dispatches (at least 1), so the GPU starts
    /// on a long sequence while the rest is recorded; the default is
    /// `MAX_DISPATCHES_PER_SUBMIT`.
    pub fn set_max_dispatches_per_submit(&self, n: u64) {
        self.inner
            .max_per_submit
            .store(n.max(1), std::sync::atomic::Ordering::Relaxed);
    }

    /// Submit everything recorded so far (no wait). A training step can be one submit.
    pub fn flush(&self) -> DeviceResult<()> {
        self.submit_locked(&mut lock(&self.inner.batch));
        self.take_gpu_error()
    }

    /// Submit the batch and wait until the GPU has finished it (native only; in a browser the
    /// wait happens at the next readback).
    pub fn synchronize(&self) -> DeviceResult<()> {
        self.flush()?;
        #[cfg(not(target_arch = "wasm32"))]
        self.inner
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| DeviceError::Gpu(e.to_string()))?;
        self.take_gpu_error()
    }

    /// Copy `len` bytes at `offset` of `src` back to the host, submitting the batch first.
    pub async fn read(&self, src: &wgpu::Buffer, offset: u64, len: u64) -> DeviceResult<Vec<u8>> {
        let mut out = self.read_many(&[(src, offset, len)]).await?;
        Ok(out.pop().unwrap_or_default())
    }

    /// Copy several `(buffer, offset, len)` ranges back to the host with one submit and one
    /// wait (so a readback that also checks a flag buffer costs a single submit).
    pub async fn read_many(
        &self,
        ranges: &[(&wgpu::Buffer, u64, u64)],
    ) -> DeviceResult<Vec<Vec<u8>>> {
        let mut starts = Vec::with_capacity(ranges.len());
        let mut total = 0u64;
        for &(_, _, len) in ranges {
            starts.push(total);
            total += len.next_multiple_of(4);
        }
        if total == 0 {
            return Ok(vec![Vec::new(); ranges.len()]);
        }
        let staging = self.inner.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("borch readback"),
            size: total,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        {
            let mut batch = lock(&self.inner.batch);
            if let Some(t) = &mut batch.trace {
                t.other(Other::Readback(ranges.len()));
            }
            let encoder = batch.encoder(&self.inner.device);
            for (&(src, offset, len), &start) in ranges.iter().zip(&starts) {
                if len > 0 {
                    let padded = len.next_multiple_of(4);
                    encoder.copy_buffer_to_buffer(src, offset, &staging, start, padded);
                }
            }
            self.submit_locked(&mut batch);
        }
        self.take_gpu_error()?;
        let bytes = map_and_read(&self.inner.device, staging, total).await?;
        self.take_gpu_error()?;
        Ok(ranges
            .iter()
            .zip(&starts)
            .map(|(&(_, _, len), &start)| bytes[start as usize..(start + len) as usize].to_vec())
            .collect())
    }

    /// Total dispatches recorded on this device.
    pub fn dispatches(&self) -> u64 {
        Counters::get(&self.inner.counters.dispatches)
    }

    /// Bind groups created so far (a replay that binds the recorded buffers creates none).
    pub fn bind_groups_created(&self) -> u64 {
        Counters::get(&self.inner.counters.bind_groups_created)
    }

    /// Start recording or replaying `trace` (recording when it holds no complete recording):
    /// every alloc, upload, dispatch, copy and readback until `end_trace` is matched against it
    /// (see `trace.rs`). Refused while another trace is active. One thread should issue work on
    /// the device while a trace is active.
    pub fn begin_trace(&self, trace: Trace) -> DeviceResult<()> {
        let mut batch = lock(&self.inner.batch);
        if batch.trace.is_some() {
            return Err(DeviceError::Gpu(
                "a trace is already being recorded or replayed on this device (compiled \
                 functions do not nest)"
                    .into(),
            ));
        }
        // The last call's commands still read the slots this call rewrites: submit them first.
        if trace.written_at == Some(Counters::get(&self.inner.counters.submits)) {
            self.submit_locked(&mut batch);
        }
        batch.trace = Some(Active::begin(trace));
        Ok(())
    }

    /// Whether a trace is active.
    pub fn is_tracing(&self) -> bool {
        lock(&self.inner.batch).trace.is_some()
    }

    /// End the active trace and hand it back with how the call went (`None` when no trace is
    /// active). Nothing is submitted: the trace's parameters are written now (`write_buffer`
    /// lands before the next submit), and the next call of the same trace submits first if the
    /// commands are still pending.
    pub fn end_trace(&self) -> DeviceResult<Option<(Trace, TraceOutcome)>> {
        let mut batch = lock(&self.inner.batch);
        let Some(mut active) = batch.trace.take() else {
            return Ok(None);
        };
        let submits = Counters::get(&self.inner.counters.submits);
        let written = active.write_params(&self.inner.queue);
        let ended = active.end();
        let (mut trace, outcome) = ended;
        if written && batch.encoder.is_some() {
            trace.written_at = Some(submits);
        }
        let ended = Some((trace, outcome));
        drop(batch);
        self.take_gpu_error()?;
        Ok(ended)
    }

    /// Total submits to the queue.
    pub fn submits(&self) -> u64 {
        Counters::get(&self.inner.counters.submits)
    }

    /// Buffers held by live tensors, the pool excluded.
    pub fn memory(&self) -> MemoryStats {
        let c = &self.inner.counters;
        MemoryStats {
            buffers: Counters::get(&c.live_buffers),
            bytes: Counters::get(&c.live_bytes),
        }
    }

    /// torch's `cuda.max_memory_allocated()`: the most bytes live tensors held at once (the
    /// pool excluded; sizes are the bucketed sizes reserved) since the device opened or the last
    /// `reset_peak_memory_stats`.
    pub fn max_memory_allocated(&self) -> u64 {
        Counters::get(&self.inner.counters.peak_bytes)
    }

    /// torch's `cuda.reset_peak_memory_stats()`: the peak restarts from the bytes live now.
    pub fn reset_peak_memory_stats(&self) {
        let c = &self.inner.counters;
        c.peak_bytes.store(
            Counters::get(&c.live_bytes),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// Buffers kept by the pool for reuse.
    pub fn pooled(&self) -> PoolStats {
        let (buffers, bytes) = lock(&self.inner.pool).stats();
        PoolStats { buffers, bytes }
    }

    /// Release every pooled buffer (after submitting pending work that may use them).
    pub fn empty_cache(&self) -> DeviceResult<()> {
        self.flush()?;
        lock(&self.inner.pool).clear();
        Ok(())
    }

    /// Pipelines compiled so far.
    pub fn pipelines_cached(&self) -> usize {
        lock(&self.inner.pipelines).len()
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({})", self.inner.info)
    }
}
