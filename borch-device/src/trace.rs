//! Record and replay (docs/design.md, "Device", "Record and replay").
//!
//! A [`Trace`] is the list of events one call of a function made on the device: buffers handed
//! out (alloc, upload), dispatches (kernel key, workgroups, parameter count, the buffers bound and
//! the bind group made for them), copies and readbacks. The first call *records*: dispatches put
//! their parameters in the trace's own parameter chunks, so the bind groups made then stay valid
//! for later calls. A later call runs the same host code and *replays*: event k of the call is
//! matched against recorded event k — an alloc or upload of the same size gets the recorded
//! buffer back from the pool when it is free there; a dispatch of the same kernel, workgroups and
//! parameter count writes its parameters into the recorded slot and reuses the recorded bind
//! group when its buffers are exactly the recorded ones. Every event is still encoded at once,
//! exactly as an eager one, so a replay computes what eager computes; what it saves is the
//! pipeline lookup, bind group creation and pool search. Any mismatch (kernel, workgroups,
//! parameter count, size, kind, or more or fewer events) ends the replay on the spot: the
//! recording is cut there and the rest of the call runs eagerly *and is recorded*, so the next
//! call replays the new sequence (an optimizer whose first step creates its state replays from
//! the third step on). Parameter slots cut off stay allocated; when they outweigh the live ones
//! the next call records from scratch.

use std::sync::Arc;

use crate::batch::{ParamChunk, push_params, write_slot};
use crate::device::Pipeline;
use crate::kernel::Binding;

/// Which kind of buffer event.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum BufferKind {
    Alloc,
    Upload,
}

/// Events matched by kind and size only (they are always encoded as eager ones).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Other {
    Copy(u64),
    Readback(usize),
}

pub(crate) struct DispatchEvent {
    key: String,
    pipeline: Arc<Pipeline>,
    workgroups: [u32; 3],
    words: usize,
    chunk: usize,
    offset: u64,
    size: u64,
    buffers: Vec<wgpu::Buffer>,
    bind_group: wgpu::BindGroup,
}

enum Event {
    Buffer {
        kind: BufferKind,
        size: u64,
        buffer: wgpu::Buffer,
    },
    Dispatch(Box<DispatchEvent>),
    Other(Other),
}

/// The events of one recorded call and the parameter chunks its bind groups point into.
#[derive(Default)]
pub struct Trace {
    events: Vec<Event>,
    chunks: Vec<ParamChunk>,
    recorded: bool,
    /// Parameter bytes of dispatches cut off by divergences (slots nothing uses any more).
    dead: u64,
    /// The submit count when the last call's parameters were written, its commands still in the
    /// open batch: the next call submits them before it rewrites the slots.
    pub(crate) written_at: Option<u64>,
}

impl Trace {
    /// An empty trace: the first call with it records.
    pub fn new() -> Trace {
        Trace::default()
    }

    /// Whether a complete recording exists (the next call replays it).
    pub fn is_recorded(&self) -> bool {
        self.recorded
    }

    /// Events recorded.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether no event has been recorded.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

/// How a traced call went.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TraceOutcome {
    /// The call was recorded; the next call replays it.
    Recorded,
    /// Every event matched the recording.
    Replayed,
    /// Event `at` did not match (or the call made fewer or more events): from there on the call
    /// ran eagerly and was recorded; the next call replays the new sequence.
    Diverged {
        /// The index of the first event that did not match.
        at: usize,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Record,
    Replay,
}

/// The trace of the call in progress (held in the batch).
pub(crate) struct Active {
    trace: Trace,
    mode: Mode,
    cursor: usize,
    diverged_at: Option<usize>,
    dirty: bool,
    spare: Vec<ParamChunk>,
}

impl Active {
    pub fn begin(mut trace: Trace) -> Active {
        let mode = if trace.recorded {
            Mode::Replay
        } else {
            Mode::Record
        };
        let mut spare = Vec::new();
        if mode == Mode::Record {
            trace.events.clear();
            trace.dead = 0;
            for mut chunk in trace.chunks.drain(..) {
                chunk.bytes.clear();
                spare.push(chunk);
            }
        }
        Active {
            trace,
            mode,
            cursor: 0,
            diverged_at: None,
            dirty: false,
            spare,
        }
    }

    pub fn end(mut self) -> (Trace, TraceOutcome) {
        if self.mode == Mode::Replay && self.cursor < self.trace.events.len() {
            self.diverge();
        }
        let outcome = match self.diverged_at {
            Some(at) => TraceOutcome::Diverged { at },
            None if self.mode == Mode::Record => TraceOutcome::Recorded,
            None => TraceOutcome::Replayed,
        };
        let live: u64 = self
            .trace
            .events
            .iter()
            .map(|e| match e {
                Event::Dispatch(d) => d.size,
                _ => 0,
            })
            .sum();
        // Record from scratch next time when most parameter bytes are dead slots.
        self.trace.recorded = self.trace.dead <= live.max(1 << 16);
        (self.trace, outcome)
    }

    /// Cut the recording at the cursor and record the rest of the call.
    fn diverge(&mut self) {
        self.mode = Mode::Record;
        self.diverged_at = Some(self.cursor);
        for e in self.trace.events.drain(self.cursor..) {
            if let Event::Dispatch(d) = e {
                self.trace.dead += d.size;
            }
        }
    }

    /// The buffer recorded for this alloc or upload (replaying, when the event matches).
    pub fn expected_buffer(&mut self, kind: BufferKind, size: u64) -> Option<wgpu::Buffer> {
        if self.mode != Mode::Replay {
            return None;
        }
        match self.trace.events.get(self.cursor) {
            Some(Event::Buffer {
                kind: k,
                size: s,
                buffer,
            }) if *k == kind && *s == size => Some(buffer.clone()),
            _ => {
                self.diverge();
                None
            }
        }
    }

    /// The buffer an alloc or upload handed out: recorded, or (replaying) remembered for the
    /// next call when it is not the recorded one.
    pub fn handed_out(&mut self, kind: BufferKind, size: u64, buffer: &wgpu::Buffer) {
        match self.mode {
            Mode::Record => self.trace.events.push(Event::Buffer {
                kind,
                size,
                buffer: buffer.clone(),
            }),
            Mode::Replay => {
                if let Some(Event::Buffer { buffer: b, .. }) =
                    self.trace.events.get_mut(self.cursor)
                    && b != buffer
                {
                    *b = buffer.clone();
                }
                self.cursor += 1;
            }
        }
    }

    /// A copy or readback.
    pub fn other(&mut self, event: Other) {
        match self.mode {
            Mode::Record => self.trace.events.push(Event::Other(event)),
            Mode::Replay => match self.trace.events.get(self.cursor) {
                Some(Event::Other(e)) if *e == event => self.cursor += 1,
                _ => {
                    self.diverge();
                    self.trace.events.push(Event::Other(event));
                }
            },
        }
    }

    /// Replaying: the pipeline and bind group for this dispatch when it matches the recorded
    /// one (its parameters written into the recorded slot; a new bind group made, and kept for
    /// the next call, when the buffers differ). `None` otherwise (then the dispatch is eager).
    pub fn replay_dispatch(
        &mut self,
        device: &wgpu::Device,
        key: &str,
        workgroups: [u32; 3],
        params: &[u32],
        buffers: &[Binding<'_>],
        created: &mut u64,
    ) -> Option<(Arc<Pipeline>, wgpu::BindGroup)> {
        if self.mode != Mode::Replay {
            return None;
        }
        let matched = match self.trace.events.get(self.cursor) {
            Some(Event::Dispatch(e)) => {
                e.key == key && e.workgroups == workgroups && e.words == params.len()
            }
            _ => false,
        };
        if !matched {
            self.diverge();
            return None;
        }
        let Some(Event::Dispatch(e)) = self.trace.events.get_mut(self.cursor) else {
            return None;
        };
        self.cursor += 1;
        let chunk = &mut self.trace.chunks[e.chunk];
        write_slot(&mut chunk.bytes, e.offset, params);
        self.dirty = true;
        let same = e.buffers.len() == buffers.len()
            && e.buffers.iter().zip(buffers).all(|(a, b)| a == b.buffer);
        if !same {
            let slot = (&chunk.buffer, e.offset, e.size);
            e.bind_group = crate::kernel::bind_group(device, &e.pipeline.layout, slot, buffers);
            *created += 1;
            e.buffers = buffers.iter().map(|b| b.buffer.clone()).collect();
        }
        Some((e.pipeline.clone(), e.bind_group.clone()))
    }

    /// Recording: a slot for this dispatch's parameters in the trace's chunks (chunk, offset,
    /// size). `None` when not recording (the batch's chunks take them).
    pub fn record_params(
        &mut self,
        device: &wgpu::Device,
        params: &[u32],
        align: u64,
    ) -> Option<(usize, u64, u64)> {
        if self.mode != Mode::Record {
            return None;
        }
        self.dirty = true;
        Some(push_params(
            &mut self.trace.chunks,
            &mut self.spare,
            device,
            params,
            align,
        ))
    }

    pub fn chunk_buffer(&self, chunk: usize) -> &wgpu::Buffer {
        &self.trace.chunks[chunk].buffer
    }

    /// Recording: the dispatch just encoded.
    #[allow(clippy::too_many_arguments)]
    pub fn record_dispatch(
        &mut self,
        key: &str,
        pipeline: &Arc<Pipeline>,
        workgroups: [u32; 3],
        words: usize,
        (chunk, offset, size): (usize, u64, u64),
        buffers: &[Binding<'_>],
        bind_group: &wgpu::BindGroup,
    ) {
        self.trace
            .events
            .push(Event::Dispatch(Box::new(DispatchEvent {
                key: key.to_string(),
                pipeline: pipeline.clone(),
                workgroups,
                words,
                chunk,
                offset,
                size,
                buffers: buffers.iter().map(|b| b.buffer.clone()).collect(),
                bind_group: bind_group.clone(),
            })));
    }

    /// Write the trace's parameter chunks before a submit; whether there was anything to write.
    pub fn write_params(&mut self, queue: &wgpu::Queue) -> bool {
        if !self.dirty {
            return false;
        }
        for chunk in &self.trace.chunks {
            if !chunk.bytes.is_empty() {
                queue.write_buffer(&chunk.buffer, 0, &chunk.bytes);
            }
        }
        self.dirty = false;
        true
    }
}
