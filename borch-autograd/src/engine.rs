//! The graph walk: topological order from the outputs, one derivative per recorded node,
//! gradients summed per tensor, leaves' `.grad` accumulated, saved values freed unless retained.

use std::collections::{HashMap, HashSet};

use borch_tensor::{BorchError, Operand, Result, Tensor, fmt_size};

use crate::derivatives::derivative;
use crate::grad_mode::set_grad_enabled;

/// `.backward()` on tensors, as in torch.
pub trait Backward {
    /// torch's `loss.backward()` for a one-element tensor.
    fn backward(&self) -> Result<()>;
    /// torch's `t.backward(gradient, retain_graph=…)`.
    fn backward_with(&self, gradient: Option<&Tensor>, retain_graph: bool) -> Result<()>;
}

impl Backward for Tensor {
    fn backward(&self) -> Result<()> {
        backward(self, None, false)
    }
    fn backward_with(&self, gradient: Option<&Tensor>, retain_graph: bool) -> Result<()> {
        backward(self, gradient, retain_graph)
    }
}

/// torch's `torch.autograd.backward(tensor, grad_tensors, retain_graph)`: accumulate into the
/// `.grad` of every leaf (and of tensors that `retain_grad()`).
pub fn backward(root: &Tensor, gradient: Option<&Tensor>, retain_graph: bool) -> Result<()> {
    walk(
        std::slice::from_ref(root),
        &[gradient.cloned()],
        retain_graph,
        false,
        None,
    )?;
    Ok(())
}

/// torch's `torch.autograd.backward(tensors, grad_tensors, retain_graph, create_graph)` for
/// several roots at once (their gradients meet in shared inputs before the walk goes on).
pub fn backward_all(
    roots: &[Tensor],
    gradients: &[Option<Tensor>],
    retain_graph: bool,
    create_graph: bool,
) -> Result<()> {
    walk(roots, gradients, retain_graph, create_graph, None)?;
    Ok(())
}

/// torch's `torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
/// allow_unused)`: the gradients of `outputs` with respect to `inputs`, without touching `.grad`.
pub fn grad(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    for t in inputs {
        if !t.requires_grad() {
            return Err(BorchError::Runtime(
                "One of the differentiated Tensors does not require grad".into(),
            ));
        }
    }
    let captured = walk(
        outputs,
        grad_outputs,
        retain_graph.unwrap_or(create_graph),
        create_graph,
        Some(inputs),
    )?;
    inputs
        .iter()
        .enumerate()
        .map(|(i, t)| match captured.get(&t.id()) {
            Some(g) => Ok(Some(g.clone())),
            None if allow_unused => Ok(None),
            None => Err(BorchError::Runtime(format!(
                "The differentiated Tensor at index {i} appears to not have been used in the \
                 graph. Set allow_unused=True if this is the desired behavior."
            ))),
        })
        .collect()
}

fn root_gradient(root: &Tensor, given: Option<&Tensor>, index: usize) -> Result<Tensor> {
    root.check_live()?;
    if let Some(g) = given {
        g.check_live()?;
    }
    if !root.requires_grad() {
        return Err(BorchError::Runtime(format!(
            "element {index} of tensors does not require grad and does not have a grad_fn"
        )));
    }
    match given {
        Some(g) if g.shape() != root.shape() => Err(BorchError::Runtime(format!(
            "Mismatch in shape: grad_output[{index}] has a shape of {} and output[{index}] has a \
             shape of {}.",
            fmt_size(g.shape()),
            fmt_size(root.shape())
        ))),
        Some(g) => Ok(g.detach()),
        None if root.numel() != 1 => Err(BorchError::Runtime(
            "grad can be implicitly created only for scalar outputs".into(),
        )),
        None => root.ones_like(),
    }
}

/// Tensors reachable from `roots` through recorded nodes, each after every tensor computed
/// from it (reverse post-order, iteratively so deep graphs do not exhaust the stack).
fn topological(roots: &[Tensor]) -> Vec<Tensor> {
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    let mut stack: Vec<(Tensor, bool)> = roots.iter().rev().map(|r| (r.clone(), false)).collect();
    while let Some((t, expanded)) = stack.pop() {
        if expanded {
            post.push(t);
            continue;
        }
        if !seen.insert(t.id()) {
            continue;
        }
        stack.push((t.clone(), true));
        if let Some(node) = t.grad_fn() {
            for input in node.inputs.iter().rev() {
                if let Operand::Tensor(i) = input
                    && i.requires_grad()
                    && !seen.contains(&i.id())
                {
                    stack.push((i.clone(), false));
                }
            }
        }
    }
    post.reverse();
    post
}

fn accumulate(map: &mut HashMap<u64, Tensor>, id: u64, g: Tensor) -> Result<()> {
    let total = match map.remove(&id) {
        Some(old) => old.add(&g)?,
        None => g,
    };
    map.insert(id, total);
    Ok(())
}

fn accumulate_into_grad(t: &Tensor, g: &Tensor, create_graph: bool) -> Result<()> {
    let g = if create_graph { g.clone() } else { g.detach() };
    let total = match t.grad() {
        Some(old) => old.add(&g)?,
        None => g,
    };
    // The leaf's `.grad` lives as long as the leaf: a parameter kept alive keeps its gradient
    // alive past the scope of the training step that computed it.
    borch_tensor::keep_like(&total, t);
    t.set_grad(Some(total));
    Ok(())
}

fn walk(
    roots: &[Tensor],
    root_grads: &[Option<Tensor>],
    retain_graph: bool,
    create_graph: bool,
    capture: Option<&[Tensor]>,
) -> Result<HashMap<u64, Tensor>> {
    let mut grads = HashMap::new();
    for (i, root) in roots.iter().enumerate() {
        let g = root_gradient(root, root_grads.get(i).and_then(Option::as_ref), i)?;
        accumulate(&mut grads, root.id(), g)?;
    }
    let wanted: Option<HashSet<u64>> = capture.map(|ts| ts.iter().map(Tensor::id).collect());
    let mut captured = HashMap::new();
    set_grad_enabled(create_graph, || -> Result<()> {
        for t in topological(roots) {
            let Some(mut g) = grads.remove(&t.id()) else {
                continue;
            };
            for hook in t.hooks() {
                if let Some(replaced) = hook(&g)? {
                    g = replaced;
                }
            }
            if let Some(w) = &wanted
                && w.contains(&t.id())
            {
                captured.insert(t.id(), g.clone());
            }
            let Some(node) = t.grad_fn() else {
                if wanted.is_none() {
                    accumulate_into_grad(&t, &g, create_graph)?;
                }
                continue;
            };
            if wanted.is_none() && t.retains_grad() {
                accumulate_into_grad(&t, &g, create_graph)?;
            }
            let input_grads = derivative(&node, &g)?;
            if !retain_graph {
                node.free_saved();
            }
            for (input, ig) in node.inputs.iter().zip(input_grads) {
                if let (Operand::Tensor(i), Some(ig)) = (input, ig)
                    && i.requires_grad()
                {
                    accumulate(&mut grads, i.id(), ig)?;
                }
            }
        }
        Ok(())
    })?;
    Ok(captured)
}
