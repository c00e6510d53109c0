//! `compiled(f)`: record a function's device work once per input signature, then replay it
//! (docs/design.md, "Device", "Record and replay"). The host code runs on every call, so
//! autograd, optimizer logic and changing scalars stay correct; the device matches each event
//! against the recording and reuses its buffers and bind groups. Results equal eager bit for bit:
//! every replayed dispatch is encoded exactly as the eager one would be.

use std::collections::HashMap;

use borch_device::{Device, Trace, TraceOutcome, default_device};

use crate::api::Value;
use crate::autograd::is_grad_enabled;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// What a trace is keyed by: each input's shape, dtype and requires_grad, and the grad mode.
type Signature = (Vec<(Vec<usize>, DType, bool)>, bool);

fn signature(inputs: &[Tensor]) -> Signature {
    let each = inputs
        .iter()
        .map(|t| (t.shape().to_vec(), t.dtype(), t.requires_grad()))
        .collect();
    (each, is_grad_enabled())
}

/// The traces of one compiled function, by input signature, and its counters.
#[derive(Default)]
pub struct Traces {
    traces: HashMap<Signature, Trace>,
    replays: u64,
    recordings: u64,
    divergences: u64,
    last: Option<TraceOutcome>,
}

impl Traces {
    /// No traces yet: the first call of each signature records.
    pub fn new() -> Traces {
        Traces::default()
    }

    /// Run `f` (whose tensors are `inputs`) recording or replaying the trace of the inputs'
    /// signature. A call inside another compiled call runs eagerly (traces do not nest); a call
    /// that fails drops its trace.
    pub fn run<R>(&mut self, inputs: &[Tensor], f: impl FnOnce() -> Result<R>) -> Result<R> {
        self.run_any(inputs, f)?
    }

    /// `run` for a function with an error type of its own (a binding's callback): the outer
    /// `Result` is the trace's, the inner one `f`'s.
    pub fn run_any<R, E>(
        &mut self,
        inputs: &[Tensor],
        f: impl FnOnce() -> std::result::Result<R, E>,
    ) -> Result<std::result::Result<R, E>> {
        let device = match inputs.first() {
            Some(t) => t.device().clone(),
            None => default_device()?,
        };
        if device.is_tracing() {
            return Ok(f());
        }
        let key = signature(inputs);
        let trace = self.traces.remove(&key).unwrap_or_default();
        device.begin_trace(trace)?;
        let result = f();
        let ended = end(&device)?;
        if let (true, Some((trace, outcome))) = (result.is_ok(), ended) {
            match outcome {
                TraceOutcome::Recorded => self.recordings += 1,
                TraceOutcome::Replayed => self.replays += 1,
                TraceOutcome::Diverged { .. } => self.divergences += 1,
            }
            self.last = Some(outcome);
            self.traces.insert(key, trace);
        }
        Ok(result)
    }

    /// Calls that replayed a recording completely.
    pub fn replays(&self) -> u64 {
        self.replays
    }

    /// Calls that recorded a trace (the first per input signature, and the one after a
    /// divergence).
    pub fn recordings(&self) -> u64 {
        self.recordings
    }

    /// Calls whose device work stopped matching their recording (the rest of such a call ran
    /// eagerly; the next call records again).
    pub fn divergences(&self) -> u64 {
        self.divergences
    }

    /// How the last call went.
    pub fn last_outcome(&self) -> Option<TraceOutcome> {
        self.last
    }

    /// Input signatures with a trace.
    pub fn signatures(&self) -> usize {
        self.traces.len()
    }
}

/// The tensors among a binding's arguments (lists searched too), which key the trace.
pub fn tensors_of(values: &[Value]) -> Vec<Tensor> {
    let mut out = Vec::new();
    for v in values {
        match v {
            Value::Tensor(t) => out.push(t.clone()),
            Value::List(items) => out.extend(tensors_of(items)),
            _ => {}
        }
    }
    out
}

fn end(device: &Device) -> Result<Option<(Trace, TraceOutcome)>> {
    Ok(device.end_trace()?)
}

/// A function over tensors whose device work is recorded on the first call per input signature
/// and replayed on later calls (upstream's `compiled(fn)`; torch's `torch.compile` maps to it).
pub struct Compiled<F> {
    f: F,
    traces: Traces,
}

/// Wrap `f` so that its calls record and replay (see `Compiled`).
pub fn compiled<F, R>(f: F) -> Compiled<F>
where
    F: FnMut(&[Tensor]) -> Result<R>,
{
    Compiled {
        f,
        traces: Traces::new(),
    }
}

impl<F> Compiled<F> {
    /// Call the function on `inputs`.
    pub fn call<R>(&mut self, inputs: &[Tensor]) -> Result<R>
    where
        F: FnMut(&[Tensor]) -> Result<R>,
    {
        let f = &mut self.f;
        self.traces.run(inputs, || f(inputs))
    }

    /// The traces, one per input signature.
    pub fn traces(&self) -> &Traces {
        &self.traces
    }

    /// Calls that replayed a recording.
    pub fn replays(&self) -> u64 {
        self.traces.replays()
    }

    /// Calls that recorded (first calls of a signature, and calls after a divergence).
    pub fn recordings(&self) -> u64 {
        self.traces.recordings()
    }

    /// Calls that diverged from their recording and ran eagerly from there.
    pub fn divergences(&self) -> u64 {
        self.traces.divergences()
    }
}
