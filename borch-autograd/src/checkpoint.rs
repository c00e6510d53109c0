//! torch's `torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=False,
//! preserve_rng_state=True)` for a Rust closure: the forward runs without recording (its
//! intermediate values are freed), and the backward runs `function` again with recording on and
//! differentiates that. The generator's state is saved before the forward and restored for the
//! recompute (so dropout draws the same mask), then put back. `params` names the tensors the
//! closure captures that need gradients (a module's parameters): their gradients accumulate
//! into `.grad` as for any leaf.

use std::sync::Mutex;

use borch_tensor::random::GeneratorState;
use borch_tensor::{Result, Scope, Tensor, default_generator};

use crate::engine::grad;
use crate::function::{Ctx, Function, apply};
use crate::grad_mode::enable_grad;

pub(crate) struct Checkpointed<F> {
    pub(crate) function: F,
    pub(crate) inputs: usize,
    pub(crate) requires_grad: Vec<bool>,
    pub(crate) params: Vec<Tensor>,
    pub(crate) rng: GeneratorState,
    /// The forward's output when it was computed before [`apply`] (by
    /// [`crate::checkpoint_capturing`], which records one run to find the captured tensors).
    pub(crate) precomputed: Mutex<Option<Tensor>>,
}

impl<F> Function for Checkpointed<F>
where
    F: Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "CheckpointFunctionBackward"
    }

    fn forward(&self, ctx: &mut Ctx, all: &[Tensor]) -> Result<Tensor> {
        let inputs: Vec<&Tensor> = all[..self.inputs].iter().collect();
        ctx.save_for_backward(&inputs);
        let ready = self
            .precomputed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        match ready {
            Some(output) => Ok(output),
            None => (self.function)(&all[..self.inputs]),
        }
    }

    /// The recompute and its derivative run in a memory scope: what they make (the recomputed
    /// graph, and the tensors a binding's callback made and still holds handles to) goes back to
    /// the pool when the gradients are out; only those are kept.
    fn backward(&self, ctx: &Ctx, grad_output: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let scope = Scope::enter();
        let grads = self.recompute_backward(ctx, grad_output)?;
        Ok(grads
            .into_iter()
            .map(|g| g.map(|g| scope.keep(&g)))
            .collect())
    }
}

impl<F> Checkpointed<F>
where
    F: Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    fn recompute_backward(&self, ctx: &Ctx, grad_output: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let generator = default_generator();
        let now = generator.get_state();
        generator.set_state(&self.rng);
        let leaves = ctx
            .saved_tensors()
            .iter()
            .zip(&self.requires_grad)
            .map(|(t, &wanted)| {
                let leaf = t.detach();
                if wanted {
                    leaf.set_requires_grad(true)?;
                }
                Ok(leaf)
            })
            .collect::<Result<Vec<Tensor>>>();
        let recomputed = leaves.and_then(|l| enable_grad(|| (self.function)(&l)).map(|y| (l, y)));
        generator.set_state(&now);
        let (leaves, output) = recomputed?;
        let mut out = vec![None; self.inputs + self.params.len()];
        let mut targets = Vec::new();
        let mut slots = Vec::new();
        for (i, leaf) in leaves.iter().enumerate() {
            if self.requires_grad[i] {
                targets.push(leaf.clone());
                slots.push(i);
            }
        }
        for (j, p) in self.params.iter().enumerate() {
            if p.requires_grad() {
                targets.push(p.clone());
                slots.push(self.inputs + j);
            }
        }
        if targets.is_empty() || !output.requires_grad() {
            return Ok(out);
        }
        let grads = enable_grad(|| {
            grad(
                &[output],
                &targets,
                &[Some(grad_output.clone())],
                Some(false),
                false,
                true,
            )
        })?;
        for (slot, g) in slots.into_iter().zip(grads) {
            out[slot] = g;
        }
        Ok(out)
    }
}

/// `torch.utils.checkpoint.checkpoint(function, *inputs, use_reentrant=False)`: `function`'s
/// output, its graph not kept; `params` are the tensors `function` captures (a module's
/// parameters) that need gradients.
pub fn checkpoint<F>(function: F, inputs: &[Tensor], params: &[Tensor]) -> Result<Tensor>
where
    F: Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    let rng = default_generator().get_state();
    let f = Checkpointed {
        function,
        inputs: inputs.len(),
        requires_grad: inputs.iter().map(Tensor::requires_grad).collect(),
        params: params.to_vec(),
        rng,
        precomputed: Mutex::new(None),
    };
    let all: Vec<Tensor> = inputs.iter().chain(params).cloned().collect();
    apply(f, &all)
}
