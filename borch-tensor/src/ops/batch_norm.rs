//! BatchNorm as fused kernels (`kernels/batch_norm.rs`), recorded for autograd as one op that
//! brings its own backward. Training: one dispatch for the batch statistics (the running
//! statistics blended in it), one for the normalisation; eval: one. Backward: one dispatch of
//! per-channel sums (the weight and bias gradients), one for the input gradient. While a
//! backward builds a graph (`create_graph`), the gradients are composed from differentiable
//! ops instead, so higher derivatives keep working.

use std::sync::Arc;

use crate::autograd::{BackwardFn, Node, Op, is_grad_enabled, record};
use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::batch_norm::{self as k, Dims, Running, StatsIn};
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// How running statistics are blended with a batch's: torch's `momentum`, or the cumulative
/// average `1 / num_batches_tracked` (read on the device; `momentum=None` in the modules).
#[derive(Clone, Copy)]
pub enum BatchNormMomentum<'a> {
    /// torch's `momentum`: `running = (1 - m) * running + m * batch`.
    Value(f64),
    /// The cumulative average, with `num_batches_tracked` (already incremented).
    Cumulative(&'a Tensor),
}

/// Whether `batch_norm_fused` takes these operands: float32 `(N, C, …)` with elements, and
/// contiguous float32 running statistics (the composed path takes the rest).
pub fn batch_norm_fusable(input: &Tensor, stats: &[Option<&Tensor>]) -> bool {
    input.dtype() == DType::Float32
        && input.dim() >= 2
        && input.numel() > 0
        && stats
            .iter()
            .flatten()
            .all(|t| t.dtype() == DType::Float32 && t.is_contiguous())
}

fn dims_of(x: &Tensor) -> Dims {
    let s = x.shape();
    [s[0], s[1], s[2..].iter().product()]
}

/// torch's `F.batch_norm` over checked operands (`batch_norm_fusable`; `training` with more
/// than one value per channel; eval with both running statistics): the fused kernels.
/// `count` (the modules' `num_batches_tracked`) is incremented by the normalisation kernel,
/// after the statistics kernel read it for `BatchNormMomentum::Cumulative` (which then blends
/// with `1 / (count + 1)`, the count after this batch).
#[allow(clippy::too_many_arguments)]
pub fn batch_norm_fused(
    input: &Tensor,
    running_mean: Option<&Tensor>,
    running_var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    momentum: BatchNormMomentum<'_>,
    eps: f64,
    count: Option<&Tensor>,
) -> Result<Tensor> {
    let x = input.detach().contiguous()?;
    let dims = dims_of(&x);
    let flat = |t: Option<&Tensor>| t.map(|t| t.detach().contiguous()).transpose();
    let (w, b) = (flat(weight)?, flat(bias)?);
    let (out, saved) = if training {
        let running = match (running_mean, running_var) {
            (Some(mean), Some(var)) => Some(Running {
                mean,
                var,
                momentum: match momentum {
                    BatchNormMomentum::Value(m) => m,
                    BatchNormMomentum::Cumulative(_) => 0.0,
                },
                count: match momentum {
                    BatchNormMomentum::Value(_) => None,
                    BatchNormMomentum::Cumulative(n) => Some(n),
                },
            }),
            _ => None,
        };
        let st = k::stats(&x, dims, eps, running.as_ref(), count.is_some())?;
        if let Some(r) = &running {
            r.mean.bump_version();
            r.var.bump_version();
        }
        let out = k::apply(
            &x,
            dims,
            eps,
            &StatsIn::Batch(&st),
            w.as_ref(),
            b.as_ref(),
            count,
        )?;
        (out, Saved::Batch(st))
    } else {
        let (Some(mean), Some(var)) = (running_mean, running_var) else {
            return runtime("internal: eval batch_norm without running statistics");
        };
        let (mean, var) = (mean.detach(), var.detach());
        let stats = StatsIn::Running {
            mean: &mean,
            var: &var,
        };
        let out = k::apply(&x, dims, eps, &stats, w.as_ref(), b.as_ref(), count)?;
        (out, Saved::Running { mean, var })
    };
    if let Some(n) = count {
        n.bump_version();
    }
    let mut inputs = vec![Operand::Tensor(input.clone())];
    inputs.extend(weight.map(|t| Operand::Tensor(t.clone())));
    inputs.extend(bias.map(|t| Operand::Tensor(t.clone())));
    let backward = BatchNormBackward {
        eps,
        saved,
        weight: weight.is_some(),
        bias: bias.is_some(),
    };
    Ok(record(Op::Custom(Arc::new(backward)), &inputs, out))
}

/// The statistics the forward normalised with.
enum Saved {
    /// `[2C]`: the batch's means, then its inverse standard deviations.
    Batch(Tensor),
    Running {
        mean: Tensor,
        var: Tensor,
    },
}

impl Saved {
    fn stats_in(&self) -> StatsIn<'_> {
        match self {
            Saved::Batch(st) => StatsIn::Batch(st),
            Saved::Running { mean, var } => StatsIn::Running { mean, var },
        }
    }
}

/// The derivative of one fused BatchNorm. Inputs: input, then weight and bias where given.
struct BatchNormBackward {
    eps: f64,
    saved: Saved,
    weight: bool,
    bias: bool,
}

fn needs(node: &Node, i: usize) -> bool {
    matches!(node.inputs.get(i), Some(Operand::Tensor(t)) if t.requires_grad())
}

/// The recorded input `i` itself (with its graph), after the version check of its values.
fn original(node: &Node, i: usize) -> Result<Tensor> {
    node.saved_input(i)?;
    match &node.inputs[i] {
        Operand::Tensor(t) => Ok(t.clone()),
        Operand::Scalar(_) => runtime("internal: batch_norm input is a scalar"),
    }
}

/// `[1, C, 1, …]` of a per-channel vector against an input of `dim` dims.
fn channel_view(v: &Tensor, dim: usize) -> Result<Tensor> {
    let mut shape = vec![1isize; dim];
    shape[1] = -1;
    v.reshape(&shape)
}

impl BackwardFn for BatchNormBackward {
    fn name(&self) -> &str {
        "native_batch_norm"
    }

    fn backward(&self, _: &Tensor) -> Result<Vec<Option<Tensor>>> {
        runtime("internal: batch_norm's backward needs its node")
    }

    fn backward_node(&self, node: &Node, grad: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let wi = 1;
        let bi = 1 + self.weight as usize;
        let want = [
            needs(node, 0),
            self.weight && needs(node, wi),
            self.bias && needs(node, bi),
        ];
        let [gx, gw, gb] = if is_grad_enabled() {
            self.composed(node, grad, want)?
        } else {
            self.kernels(node, grad, want)?
        };
        let shaped = |g: Option<Tensor>, i: usize| -> Result<Option<Tensor>> {
            match g {
                Some(g) => Ok(Some(g.reshape(&shape_of(&node.saved_layout(i)?))?)),
                None => Ok(None),
            }
        };
        let mut grads = vec![gx];
        if self.weight {
            grads.push(shaped(gw, wi)?);
        }
        if self.bias {
            grads.push(shaped(gb, bi)?);
        }
        Ok(grads)
    }
}

fn shape_of(t: &Tensor) -> Vec<isize> {
    t.shape().iter().map(|&d| d as isize).collect()
}

impl BatchNormBackward {
    /// The gradients by the fused kernels.
    fn kernels(&self, node: &Node, grad: &Tensor, want: [bool; 3]) -> Result<[Option<Tensor>; 3]> {
        let g = grad.detach().contiguous()?;
        let dims = dims_of(&g);
        let stats = self.saved.stats_in();
        let train = matches!(self.saved, Saved::Batch(_));
        let weight = if self.weight && want[0] {
            Some(node.saved_input(1)?.contiguous()?)
        } else {
            None
        };
        let need_sums = want[1] || want[2] || (train && want[0]);
        let x = if need_sums {
            Some(node.saved_input(0)?.contiguous()?)
        } else {
            None
        };
        let (sums, gw, gb) = match &x {
            Some(x) => {
                let (s, gw, gb) = k::sums(&g, x, dims, self.eps, &stats, [want[1], want[2]])?;
                (Some(s), gw, gb)
            }
            None => (None, None, None),
        };
        let gx = if want[0] {
            let xr = x.as_ref().unwrap_or(&g);
            Some(k::grad_input(
                &g,
                xr,
                dims,
                self.eps,
                &stats,
                sums.as_ref(),
                weight.as_ref(),
            )?)
        } else {
            None
        };
        Ok([gx, gw, gb])
    }

    /// The same gradients from differentiable ops on the recorded inputs (the batch
    /// statistics recomputed from the input), for backward passes that build a graph.
    fn composed(&self, node: &Node, g: &Tensor, want: [bool; 3]) -> Result<[Option<Tensor>; 3]> {
        let x = original(node, 0)?;
        let dim = x.dim();
        let dims: Vec<isize> = (0..dim as isize).filter(|&d| d != 1).collect();
        let (mean, invstd) = match &self.saved {
            Saved::Batch(_) => {
                let mean = x.mean(Some(&dims), true)?;
                let var = x.var(Some(&dims), 0.0, true)?;
                (mean, var.add(self.eps)?.rsqrt()?)
            }
            Saved::Running { mean, var } => (
                channel_view(mean, dim)?,
                channel_view(&var.add(self.eps)?.rsqrt()?, dim)?,
            ),
        };
        let xhat = x.sub(&mean)?.mul(&invstd)?;
        let gw = if want[1] {
            Some(g.mul(&xhat)?.sum(Some(&dims), false)?)
        } else {
            None
        };
        let gb = if want[2] {
            Some(g.sum(Some(&dims), false)?)
        } else {
            None
        };
        let gx = if want[0] {
            let scale = if self.weight {
                invstd.mul(&channel_view(&original(node, 1)?, dim)?)?
            } else {
                invstd.clone()
            };
            let centred = match self.saved {
                Saved::Batch(_) => {
                    let proj = xhat.mul(&g.mul(&xhat)?.mean(Some(&dims), true)?)?;
                    g.sub(&g.mean(Some(&dims), true)?)?.sub(&proj)?
                }
                Saved::Running { .. } => g.clone(),
            };
            Some(centred.mul(&scale)?)
        } else {
            None
        };
        Ok([gx, gw, gb])
    }
}
