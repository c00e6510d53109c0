use std::sync::Arc;

use crate::trace::Active;

/// Parameters of every dispatch recorded since the last submit, written just before the submit.
/// A fresh write lands before the submitted commands run, and the chunks are reused only after
/// their submit, so no pending command ever sees a later dispatch's parameters.
pub(crate) struct ParamChunk {
    pub buffer: wgpu::Buffer,
    pub bytes: Vec<u8>,
}

pub(crate) const PARAM_CHUNK_BYTES: u64 = 256 * 1024;

/// Bytes one dispatch's parameters take in a chunk (at least 16, a multiple of 16).
pub(crate) fn param_bytes(words: usize) -> u64 {
    ((words.max(1) * 4) as u64).next_multiple_of(16)
}

fn new_chunk(device: &wgpu::Device, size: u64) -> ParamChunk {
    ParamChunk {
        buffer: device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("borch params"),
            size: PARAM_CHUNK_BYTES.max(size),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }),
        bytes: Vec::new(),
    }
}

/// Write `params` at `offset` of `bytes` (which already holds the slot's `size` bytes).
pub(crate) fn write_slot(bytes: &mut [u8], offset: u64, params: &[u32]) {
    let start = offset as usize;
    for (dst, p) in bytes[start..].chunks_exact_mut(4).zip(params) {
        dst.copy_from_slice(&p.to_le_bytes());
    }
}

/// Place `params` in the last of `chunks` (a new or `spare` chunk when it does not fit); returns
/// the chunk index, byte offset and slot size.
pub(crate) fn push_params(
    chunks: &mut Vec<ParamChunk>,
    spare: &mut Vec<ParamChunk>,
    device: &wgpu::Device,
    params: &[u32],
    align: u64,
) -> (usize, u64, u64) {
    let size = param_bytes(params.len());
    let fits =
        |c: &ParamChunk| (c.bytes.len() as u64).next_multiple_of(align) + size <= c.buffer.size();
    if !chunks.last().is_some_and(fits) {
        let chunk = spare.pop().unwrap_or_else(|| new_chunk(device, size));
        chunks.push(chunk);
    }
    let index = chunks.len() - 1;
    let chunk = &mut chunks[index];
    let offset = (chunk.bytes.len() as u64).next_multiple_of(align);
    chunk.bytes.resize((offset + size) as usize, 0);
    write_slot(&mut chunk.bytes, offset, params);
    (index, offset, size)
}

/// The open command encoder, the compute pass kept open across consecutive dispatches, the
/// parameter chunks its dispatches point into, and the trace being recorded or replayed.
#[derive(Default)]
pub(crate) struct Batch {
    /// Open while dispatches follow each other; ended before a copy or the finish. (Declared
    /// before the encoder so that it drops first.)
    pub pass: Option<wgpu::ComputePass<'static>>,
    pub encoder: Option<wgpu::CommandEncoder>,
    /// The pipeline last set on `pass` (set again only when it changes).
    pub pass_pipeline: Option<Arc<crate::device::Pipeline>>,
    pub chunks: Vec<ParamChunk>,
    pub spare: Vec<ParamChunk>,
    pub dispatches: u64,
    pub trace: Option<Active>,
}

impl Batch {
    /// The encoder, with no pass open on it (for copies).
    pub fn encoder(&mut self, device: &wgpu::Device) -> &mut wgpu::CommandEncoder {
        self.end_pass();
        self.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("borch batch"),
            })
        })
    }

    /// The open compute pass, begun on the encoder when none is.
    pub fn pass(&mut self, device: &wgpu::Device) -> &mut wgpu::ComputePass<'static> {
        if self.pass.is_none() {
            let encoder = self.encoder(device);
            let pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: None,
                })
                .forget_lifetime();
            self.pass = Some(pass);
        }
        self.pass.as_mut().expect("pass just opened")
    }

    /// Open a new compute pass that writes timestamps 0 and 1 of `set` at its start and end
    /// (with no set, leave the open pass): for profiling, one dispatch a pass.
    pub fn timed_pass(&mut self, device: &wgpu::Device, set: Option<&wgpu::QuerySet>) {
        let Some(set) = set else {
            return;
        };
        let encoder = self.encoder(device);
        let pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("borch profiled dispatch"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            })
            .forget_lifetime();
        self.pass = Some(pass);
    }

    pub fn end_pass(&mut self) {
        self.pass = None;
        self.pass_pipeline = None;
    }

    /// Finish the encoder after writing the parameters (the batch's and the active trace's);
    /// `None` when nothing was recorded.
    pub fn finish(&mut self, queue: &wgpu::Queue) -> Option<wgpu::CommandBuffer> {
        self.end_pass();
        let encoder = self.encoder.take()?;
        for chunk in &self.chunks {
            if !chunk.bytes.is_empty() {
                queue.write_buffer(&chunk.buffer, 0, &chunk.bytes);
            }
        }
        if let Some(active) = &mut self.trace {
            active.write_params(queue);
        }
        for mut chunk in self.chunks.drain(..) {
            if chunk.buffer.size() == PARAM_CHUNK_BYTES {
                chunk.bytes.clear();
                self.spare.push(chunk);
            }
        }
        self.dispatches = 0;
        Some(encoder.finish())
    }
}
