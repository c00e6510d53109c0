//! torch's `torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=False)` for a
//! function that does not say which tensors it captures (a JavaScript or Python callback around
//! a module): what the bindings call. torch finds the captured tensors with saved-tensor hooks;
//! here the forward runs once recording, the leaves of its graph that need gradients (other than
//! the inputs) are the captured tensors, and the recorded graph is dropped at once, its values
//! released by a memory scope even where a binding's handles still point at them (so the forward
//! holds one checkpointed segment's values at a time, as the recompute in backward does). The output is that run's, detached and recorded as one checkpoint node whose backward
//! recomputes ([`crate::checkpoint`]'s). The keyword options are torch's, bound by the core's
//! binder ([`OPTIONS`]).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use borch_tensor::api::{self, Args, Call, Entry, Form, Returns, Value, parse_params};
use borch_tensor::{BorchError, Operand, Result, Scope, Tensor, default_generator};

use crate::checkpoint::Checkpointed;
use crate::function::apply;
use crate::grad_mode::{enable_grad, is_grad_enabled};

/// torch's keyword options of `checkpoint` (borch takes what its one variant can honour; see
/// [`checkpoint_with_options`]).
pub const OPTIONS: &str = "use_reentrant: Bool = None, preserve_rng_state: Bool = True, \
                           determinism_check: Str = 'default', debug: Bool = False, \
                           early_stop: Bool = True";

fn unused(_: &Args) -> Result<Value> {
    Ok(Value::None)
}

fn options_entry() -> &'static Entry {
    static ENTRY: OnceLock<Entry> = OnceLock::new();
    ENTRY.get_or_init(|| Entry {
        name: "checkpoint",
        form: Form::Function,
        params: parse_params(OPTIONS),
        returns: Returns::Tensor,
        call: Call::Fn(unused),
    })
}

/// The leaves of `output`'s graph that need gradients, other than `inputs` (by id), once each.
fn captured(output: &Tensor, inputs: &[Tensor]) -> Vec<Tensor> {
    let mut skip: HashSet<u64> = inputs.iter().map(Tensor::id).collect();
    let mut found = Vec::new();
    let Some(root) = output.grad_fn() else {
        if output.requires_grad() && skip.insert(output.id()) {
            found.push(output.clone());
        }
        return found;
    };
    let mut seen = HashSet::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if !seen.insert(std::sync::Arc::as_ptr(&node) as usize) {
            continue;
        }
        for (k, input) in node.inputs.iter().enumerate() {
            let Operand::Tensor(t) = input else { continue };
            match node.input_nodes.get(k).cloned().flatten() {
                Some(n) => stack.push(n),
                None if t.requires_grad() && skip.insert(t.id()) => found.push(t.clone()),
                None => {}
            }
        }
    }
    found
}

/// [`crate::checkpoint`] for a `function` whose captured tensors are not listed: they are found
/// from one recorded run (see the module's documentation). Without grad mode, `function` just
/// runs.
pub fn checkpoint_capturing<F>(function: F, inputs: &[Tensor]) -> Result<Tensor>
where
    F: Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    if !is_grad_enabled() {
        return function(inputs);
    }
    let rng = default_generator().get_state();
    let leaves = inputs
        .iter()
        .map(|t| {
            let leaf = t.detach();
            if t.requires_grad() {
                leaf.set_requires_grad(true)?;
            }
            Ok(leaf)
        })
        .collect::<Result<Vec<Tensor>>>()?;
    // What the recorded run makes goes back to the pool when it is done (also what a binding's
    // callback made and holds handles to): only the output, and captured tensors made inside
    // (a lazy module's first weights), are kept.
    let scope = Scope::enter();
    let recorded = enable_grad(|| function(&leaves))?;
    let params: Vec<Tensor> = captured(&recorded, &leaves)
        .iter()
        .map(|p| scope.keep(p))
        .collect();
    let output = scope.keep(&recorded.detach());
    drop(recorded);
    drop(scope);
    drop(leaves);
    let f = Checkpointed {
        function,
        inputs: inputs.len(),
        requires_grad: inputs.iter().map(Tensor::requires_grad).collect(),
        params: params.clone(),
        rng,
        precomputed: Mutex::new(Some(output)),
    };
    let all: Vec<Tensor> = inputs.iter().chain(&params).cloned().collect();
    apply(f, &all)
}

/// `checkpoint(function, *inputs, **options)` as torch 2.x takes it: `inputs` tensors (borch's
/// checkpoint passes tensors only; anything else is a TypeError naming it), `options` bound to
/// [`OPTIONS`]. borch has torch's non-reentrant variant only, so `use_reentrant=True` is refused,
/// and so is leaving it out: torch then warns and runs the reentrant variant (its documentation
/// says to pass it explicitly and that leaving it out will become an error). The generator's
/// state is always preserved for the recompute (`preserve_rng_state=False` is refused), borch
/// runs no determinism check beyond recomputing with the same state (`determinism_check` takes
/// torch's `'default'` and `'none'`), `debug=True` is refused, and `early_stop` (a speed option
/// of torch's recompute) changes nothing here.
pub fn checkpoint_with_options<F>(
    function: F,
    inputs: Vec<Value>,
    options: Vec<(String, Value)>,
) -> Result<Tensor>
where
    F: Fn(&[Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    let inputs = inputs
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Tensor(t) => Ok(t),
            other => Err(BorchError::Type(format!(
                "checkpoint(): argument {} must be a Tensor (borch's checkpoint passes tensors \
                 only), not {}",
                i + 2,
                other.type_name()
            ))),
        })
        .collect::<Result<Vec<Tensor>>>()?;
    let a = api::bind(options_entry(), vec![], options)?;
    match a.get(0) {
        Value::None => {
            return Err(BorchError::NotImplemented(
                "checkpoint(): pass use_reentrant=False explicitly: borch has torch's \
                 non-reentrant checkpoint only, and torch without use_reentrant runs the \
                 reentrant one (with a warning that leaving it out will become an error)"
                    .into(),
            ));
        }
        _ if a.bool(0)? => {
            return Err(BorchError::NotImplemented(
                "checkpoint(use_reentrant=True): borch has torch's non-reentrant checkpoint \
                 only (torch recommends it): pass use_reentrant=False"
                    .into(),
            ));
        }
        _ => {}
    }
    if !a.bool(1)? {
        return Err(BorchError::NotImplemented(
            "checkpoint(preserve_rng_state=False): borch always restores the generator's state \
             for the recompute"
                .into(),
        ));
    }
    let check = a.str(2)?;
    if check != "default" && check != "none" {
        return Err(BorchError::Value(format!(
            "determinism_check should be one of ['default', 'none'], but got {check}"
        )));
    }
    if a.bool(3)? {
        return Err(BorchError::NotImplemented(
            "checkpoint(debug=True): borch has no recompute trace".into(),
        ));
    }
    a.bool(4)?;
    checkpoint_capturing(function, &inputs)
}
