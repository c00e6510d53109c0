//! User-defined differentiable functions (torch's `autograd.Function`).

use std::sync::{Arc, Mutex};

use borch_tensor::{BackwardFn, Result, Tensor, record_custom};

use crate::grad_mode::no_grad;

/// What `forward` saves for `backward` (torch's `ctx`).
#[derive(Default)]
pub struct Ctx {
    saved: Vec<Tensor>,
}

impl Ctx {
    /// torch's `ctx.save_for_backward(*tensors)`.
    pub fn save_for_backward(&mut self, tensors: &[&Tensor]) {
        self.saved = tensors.iter().map(|t| t.detach()).collect();
    }
    /// torch's `ctx.saved_tensors`.
    pub fn saved_tensors(&self) -> &[Tensor] {
        &self.saved
    }
}

/// A differentiable function: `forward` computes the output (recording nothing), `backward`
/// returns one gradient per input (`None` where an input needs none).
pub trait Function: Send + Sync + 'static {
    /// The name the node reports (torch's `grad_fn` name).
    fn name(&self) -> &str;
    /// The output for `inputs`; save what `backward` needs in `ctx`.
    fn forward(&self, ctx: &mut Ctx, inputs: &[Tensor]) -> Result<Tensor>;
    /// One gradient per input for the output's gradient `grad_output`.
    fn backward(&self, ctx: &Ctx, grad_output: &Tensor) -> Result<Vec<Option<Tensor>>>;
}

struct Recorded<F: Function> {
    function: F,
    ctx: Mutex<Ctx>,
}

impl<F: Function> BackwardFn for Recorded<F> {
    fn name(&self) -> &str {
        self.function.name()
    }
    fn backward(&self, grad_output: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let ctx = self.ctx.lock().unwrap_or_else(|p| p.into_inner());
        self.function.backward(&ctx, grad_output)
    }
}

/// torch's `Function.apply(*inputs)`: run `forward` without recording, then record the function
/// itself as the output's node.
pub fn apply<F: Function>(function: F, inputs: &[Tensor]) -> Result<Tensor> {
    let mut ctx = Ctx::default();
    let output = no_grad(|| function.forward(&mut ctx, inputs))?;
    let recorded = Arc::new(Recorded {
        function,
        ctx: Mutex::new(ctx),
    });
    Ok(record_custom(recorded, inputs, output))
}
