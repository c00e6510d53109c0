//! The graph walk: topological order from the outputs, one derivative per recorded node,
//! gradients summed per tensor, leaves' `.grad` accumulated, saved values freed unless retained.

use std::collections::{HashMap, HashSet};

use std::sync::Arc;

use borch_tensor::{BorchError, Node, Operand, Result, Tensor, fmt_size};

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

/// One vertex of the graph: a tensor with the history it had when it was used. A leaf is keyed
/// by its tensor; a computed value by its node, so a tensor written in place later (which gets a
/// new node) still receives the gradient of the uses before the write at its old node.
#[derive(Clone)]
struct Vertex {
    tensor: Tensor,
    node: Option<Arc<Node>>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Leaf(u64),
    Node(usize),
}

impl Vertex {
    fn of(t: &Tensor) -> Vertex {
        Vertex {
            tensor: t.clone(),
            node: t.grad_fn(),
        }
    }
    fn key(&self) -> Key {
        match &self.node {
            Some(n) => Key::Node(Arc::as_ptr(n) as usize),
            None => Key::Leaf(self.tensor.id()),
        }
    }
    /// Whether this is the tensor's current history (its hooks, `.grad` and `retain_grad`
    /// apply), not one an in-place op has since replaced.
    fn current(&self) -> bool {
        match (&self.node, self.tensor.grad_fn()) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, &b),
            _ => false,
        }
    }
    /// The vertices this one's gradient flows to.
    fn inputs(&self) -> Vec<(usize, Vertex)> {
        let Some(node) = &self.node else {
            return Vec::new();
        };
        node.inputs
            .iter()
            .enumerate()
            .filter_map(|(k, input)| match input {
                Operand::Tensor(t) => {
                    let n = node.input_nodes.get(k).cloned().flatten();
                    (n.is_some() || t.requires_grad()).then(|| {
                        (
                            k,
                            Vertex {
                                tensor: t.clone(),
                                node: n,
                            },
                        )
                    })
                }
                Operand::Scalar(_) => None,
            })
            .collect()
    }
}

/// Vertices reachable from `roots`, each after every vertex computed from it (reverse
/// post-order, iteratively so deep graphs do not exhaust the stack).
fn topological(roots: &[Tensor]) -> Vec<Vertex> {
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    let mut stack: Vec<(Vertex, bool)> =
        roots.iter().rev().map(|r| (Vertex::of(r), false)).collect();
    while let Some((v, expanded)) = stack.pop() {
        if expanded {
            post.push(v);
            continue;
        }
        if !seen.insert(v.key()) {
            continue;
        }
        stack.push((v.clone(), true));
        for (_, i) in v.inputs().into_iter().rev() {
            if !seen.contains(&i.key()) {
                stack.push((i, false));
            }
        }
    }
    post.reverse();
    post
}

fn accumulate(map: &mut HashMap<Key, Tensor>, id: Key, g: Tensor) -> Result<()> {
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
        accumulate(&mut grads, Vertex::of(root).key(), g)?;
    }
    let wanted: Option<HashSet<u64>> = capture.map(|ts| ts.iter().map(Tensor::id).collect());
    let mut captured = HashMap::new();
    set_grad_enabled(create_graph, || -> Result<()> {
        for v in topological(roots) {
            let Some(mut g) = grads.remove(&v.key()) else {
                continue;
            };
            let t = &v.tensor;
            let current = v.current();
            if current {
                for hook in t.hooks() {
                    if let Some(replaced) = hook(&g)? {
                        g = replaced;
                    }
                }
            }
            if current
                && let Some(w) = &wanted
                && w.contains(&t.id())
            {
                captured.insert(t.id(), g.clone());
            }
            let Some(node) = &v.node else {
                if wanted.is_none() {
                    accumulate_into_grad(t, &g, create_graph)?;
                }
                continue;
            };
            if current && wanted.is_none() && t.retains_grad() {
                accumulate_into_grad(t, &g, create_graph)?;
            }
            let input_grads = derivative(node, &g)?;
            if !retain_graph {
                node.free_saved();
            }
            let targets = v.inputs();
            for (k, ig) in input_grads.into_iter().enumerate() {
                if let (Some(ig), Some((_, to))) = (ig, targets.iter().find(|(i, _)| *i == k)) {
                    accumulate(&mut grads, to.key(), ig)?;
                }
            }
        }
        Ok(())
    })?;
    Ok(captured)
}
