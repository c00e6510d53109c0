//! `compiled(model)`: a module whose forward records its device work once per input signature
//! and replays it later (borch_tensor's `Traces`; docs/design.md, "Record and replay").

use std::sync::{Mutex, MutexGuard};

use borch_tensor::{Result, Tensor, Traces};

use crate::module::Module;

/// A module wrapped by `compiled`: `forward` runs the module's forward through a trace.
pub struct CompiledModule<M> {
    module: M,
    traces: Mutex<Traces>,
}

/// Wrap `module` so that its forward calls record and replay (upstream's `compiled(model)`;
/// torch's `torch.compile(model)` maps to it). The module stays reachable (`module()`), for
/// train/eval, parameters and state dicts.
pub fn compiled<M: Module>(module: M) -> CompiledModule<M> {
    CompiledModule {
        module,
        traces: Mutex::default(),
    }
}

impl<M: Module> CompiledModule<M> {
    fn traces(&self) -> MutexGuard<'_, Traces> {
        self.traces.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The module's forward on one input, recorded or replayed.
    pub fn forward(&self, input: &Tensor) -> Result<Tensor> {
        let inputs = [input.clone()];
        self.traces().run(&inputs, || self.module.forward(input))
    }

    /// The module's forward on several inputs, recorded or replayed.
    pub fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        let owned: Vec<Tensor> = inputs.iter().map(|t| (*t).clone()).collect();
        self.traces()
            .run(&owned, || self.module.forward_args(inputs))
    }

    /// The module that runs.
    pub fn module(&self) -> &M {
        &self.module
    }

    /// The module that runs, to change (a changed module may diverge from its traces).
    pub fn module_mut(&mut self) -> &mut M {
        &mut self.module
    }

    /// Calls that replayed a recording.
    pub fn replays(&self) -> u64 {
        self.traces().replays()
    }

    /// Calls that recorded.
    pub fn recordings(&self) -> u64 {
        self.traces().recordings()
    }

    /// Calls that diverged from their recording.
    pub fn divergences(&self) -> u64 {
        self.traces().divergences()
    }
}
