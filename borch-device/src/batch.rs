/// Parameters of every dispatch recorded since the last submit, written just before the submit.
/// A fresh write lands before the submitted commands run, and the chunks are reused only after
/// their submit, so no pending command ever sees a later dispatch's parameters.
pub(crate) struct ParamChunk {
    pub buffer: wgpu::Buffer,
    pub bytes: Vec<u8>,
}

pub(crate) const PARAM_CHUNK_BYTES: u64 = 256 * 1024;

/// The open command encoder and the parameter chunks its dispatches point into.
#[derive(Default)]
pub(crate) struct Batch {
    pub encoder: Option<wgpu::CommandEncoder>,
    pub chunks: Vec<ParamChunk>,
    pub spare: Vec<ParamChunk>,
    pub dispatches: u64,
}

impl Batch {
    pub fn encoder(&mut self, device: &wgpu::Device) -> &mut wgpu::CommandEncoder {
        self.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("borch batch"),
            })
        })
    }

    /// Place `params` in a chunk; returns the chunk index and byte offset.
    pub fn push_params(
        &mut self,
        device: &wgpu::Device,
        params: &[u32],
        align: u64,
    ) -> (usize, u64, u64) {
        let size = ((params.len().max(1) * 4) as u64).next_multiple_of(16);
        let fits = |c: &ParamChunk| {
            (c.bytes.len() as u64).next_multiple_of(align) + size <= c.buffer.size()
        };
        if !self.chunks.last().is_some_and(fits) {
            let chunk = self.spare.pop().unwrap_or_else(|| ParamChunk {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("borch params"),
                    size: PARAM_CHUNK_BYTES.max(size),
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                bytes: Vec::new(),
            });
            self.chunks.push(chunk);
        }
        let index = self.chunks.len() - 1;
        let chunk = &mut self.chunks[index];
        let offset = (chunk.bytes.len() as u64).next_multiple_of(align);
        chunk.bytes.resize(offset as usize, 0);
        for p in params {
            chunk.bytes.extend_from_slice(&p.to_le_bytes());
        }
        chunk.bytes.resize((offset + size) as usize, 0);
        (index, offset, size)
    }

    /// Finish the encoder after writing the parameters; `None` when nothing was recorded.
    pub fn finish(&mut self, queue: &wgpu::Queue) -> Option<wgpu::CommandBuffer> {
        let encoder = self.encoder.take()?;
        for chunk in &self.chunks {
            if !chunk.bytes.is_empty() {
                queue.write_buffer(&chunk.buffer, 0, &chunk.bytes);
            }
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
