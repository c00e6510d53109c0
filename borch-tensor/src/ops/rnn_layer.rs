//! One recurrent layer in one direction as one recorded op (cuDNN's shape): from the input
//! projection `gi = x W_ih^T + b_ih` of every step (`[T, N, G·H]`, computed by the caller in one
//! matmul), a time step costs one `addmm` (`h W_hh^T + b_hh`) and one fused gate kernel that
//! writes `h'` (and `c'`) straight into the layer's output; its backward costs one gate kernel
//! and one matmul a step, then one matmul for `W_hh`'s gradient and one sum for `b_hh`'s over
//! the whole sequence.
//!
//! The output is slotted: `[T + 1, N, H]` (`[2, T + 1, N, H]` for an LSTM: h, then c) with the
//! initial state in the slot before the first step in processing order (slot 0 forward, slot T
//! in reverse); `rnn_layer_outputs` takes the step outputs and final states from it.

use std::sync::Arc;

use crate::autograd::{BackwardFn, Node, Op, is_grad_enabled, record};
use crate::dtype::DType;
use crate::error::{Result, not_impl, runtime};
use crate::kernels::rnn_gates::{GateKind, forward_in_place};
use crate::kernels::rnn_layer::{StepAt, backward_step};
use crate::ops::creation::zeros;
use crate::ops::rnn_gates::DOUBLE_BACKWARD;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// Whether `rnn_layer_fused` takes these operands: float32 with elements.
pub fn rnn_layer_fusable(gi: &Tensor, h0: &Tensor) -> bool {
    gi.dtype() == DType::Float32 && gi.dim() == 3 && gi.numel() > 0 && h0.dtype() == DType::Float32
}

/// Slot indices `(this step's, the previous step's)` of time `t`.
fn slots(t: usize, reverse: bool) -> (usize, usize) {
    if reverse { (t, t + 1) } else { (t + 1, t) }
}

/// Time of the `i`-th step in processing order.
fn time(i: usize, steps: usize, reverse: bool) -> usize {
    if reverse { steps - 1 - i } else { i }
}

/// One layer of `kind` over `gi` `[T, N, G·H]` with `w_hh` `[G·H, H]`, `b_hh`, the initial
/// states `h0` (and `c0` for an LSTM) `[N, H]`: the slotted output (module doc).
pub fn rnn_layer_fused(
    kind: GateKind,
    gi: &Tensor,
    w_hh: &Tensor,
    b_hh: Option<&Tensor>,
    h0: &Tensor,
    c0: Option<&Tensor>,
    reverse: bool,
) -> Result<Tensor> {
    let lstm = kind == GateKind::Lstm;
    if !rnn_layer_fusable(gi, h0) || lstm != c0.is_some() {
        return runtime("internal: rnn_layer_fused takes float32 gates and its states");
    }
    let (steps, n, gw) = (gi.shape()[0], gi.shape()[1], gi.shape()[2]);
    let h = w_hh.shape()[1];
    if w_hh.shape() != [gw, h] || gw != kind.gates() * h || h0.shape() != [n, h] {
        return runtime(format!(
            "internal: rnn_layer_fused shapes {:?}, {:?}, {:?}",
            gi.shape(),
            w_hh.shape(),
            h0.shape()
        ));
    }
    let gi_d = gi.detach().contiguous()?;
    let w = w_hh.detach();
    let wt = w.t()?;
    let b = b_hh.map(Tensor::detach);
    let nh = n * h;
    let shape: Vec<usize> = if lstm {
        vec![2, steps + 1, n, h]
    } else {
        vec![steps + 1, n, h]
    };
    let y = Tensor::uninit(gi.device(), &shape, DType::Float32)?;
    let y_h = if lstm { y.select(0, 0)? } else { y.clone() };
    let c_half = (steps + 1) * nh;
    let first = if reverse { steps } else { 0 };
    y_h.select(0, first as isize)?.copy_(&h0.detach())?;
    if let Some(c0) = c0 {
        y.select(0, 1)?
            .select(0, first as isize)?
            .copy_(&c0.detach())?;
    }
    for i in 0..steps {
        let t = time(i, steps, reverse);
        let (slot, prev) = slots(t, reverse);
        let h_prev = y_h.select(0, prev as isize)?;
        let gh = match &b {
            Some(b) => b.addmm(&h_prev, &wt, 1.0, 1.0)?,
            None => h_prev.matmul(&wt)?,
        };
        let state_at = if lstm { c_half + prev * nh } else { prev * nh };
        let gi_t = gi_d.select(0, t as isize)?;
        let at = [slot * nh, c_half + slot * nh];
        forward_in_place(kind, &gi_t, &gh, &y, state_at, at, [n, h])?;
    }
    let mut inputs = vec![Operand::Tensor(gi.clone()), Operand::Tensor(w_hh.clone())];
    inputs.extend(b_hh.map(|t| Operand::Tensor(t.clone())));
    inputs.push(Operand::Tensor(h0.clone()));
    inputs.extend(c0.map(|t| Operand::Tensor(t.clone())));
    let backward = LayerBackward {
        kind,
        reverse,
        bias: b_hh.is_some(),
        dims: [steps, n, h],
    };
    Ok(record(Op::Custom(Arc::new(backward)), &inputs, y))
}

/// From a slotted output: the step outputs `[T, N, H]` in time order, the final `h` and (LSTM)
/// the final `c`, each `[N, H]` (views, recorded).
pub fn rnn_layer_outputs(
    y: &Tensor,
    lstm: bool,
    reverse: bool,
) -> Result<(Tensor, Tensor, Option<Tensor>)> {
    let y_h = if lstm { y.select(0, 0)? } else { y.clone() };
    let steps = y_h.shape()[0] - 1;
    let (start, last) = if reverse { (0, 0) } else { (1, steps) };
    let out = y_h.narrow(0, start as isize, steps)?;
    let h_n = y_h.select(0, last as isize)?;
    let c_n = if lstm {
        Some(y.select(0, 1)?.select(0, last as isize)?)
    } else {
        None
    };
    Ok((out, h_n, c_n))
}

/// The derivative of one fused layer. Inputs: gi, w_hh, (b_hh), h0, (c0).
struct LayerBackward {
    kind: GateKind,
    reverse: bool,
    bias: bool,
    dims: [usize; 3],
}

impl BackwardFn for LayerBackward {
    fn name(&self) -> &str {
        "rnn_layer"
    }

    fn backward(&self, _: &Tensor) -> Result<Vec<Option<Tensor>>> {
        runtime("internal: the rnn layer's backward needs its node")
    }

    fn backward_node(&self, node: &Node, grad: &Tensor) -> Result<Vec<Option<Tensor>>> {
        if is_grad_enabled() {
            return not_impl(DOUBLE_BACKWARD);
        }
        let [steps, n, h] = self.dims;
        let (kind, lstm) = (self.kind, self.kind == GateKind::Lstm);
        let gi = node.saved_input(0)?.contiguous()?;
        let w = node.saved_input(1)?;
        let b = if self.bias {
            Some(node.saved_input(2)?)
        } else {
            None
        };
        let y = node.output()?.clone();
        let dy = grad.detach().contiguous()?;
        let y_h = if lstm { y.select(0, 0)? } else { y.clone() };
        let nh = n * h;
        let c_half = (steps + 1) * nh;
        let gw = kind.gates() * h;
        let start = if self.reverse { 1 } else { 0 };
        let hprev = y_h
            .narrow(0, start, steps)?
            .reshape(&[(steps * n) as isize, h as isize])?;
        let wt = w.t()?;
        let gh_flat = match &b {
            Some(b) => b.addmm(&hprev, &wt, 1.0, 1.0)?,
            None => hprev.matmul(&wt)?,
        };
        let gh = gh_flat.reshape(&[steps as isize, n as isize, gw as isize])?;
        let dev = gi.device();
        let dgi = Tensor::uninit(dev, &[steps, n, gw], DType::Float32)?;
        let dgh = if kind == GateKind::Gru {
            Some(Tensor::uninit(dev, &[steps, n, gw], DType::Float32)?)
        } else {
            None
        };
        let mut carry = zeros(&[n, h], DType::Float32)?;
        let dc = if lstm {
            Some(zeros(&[n, h], DType::Float32)?)
        } else {
            None
        };
        for i in (0..steps).rev() {
            let t = time(i, steps, self.reverse);
            let (slot, prev) = slots(t, self.reverse);
            let at = StepAt {
                state: match kind {
                    GateKind::Lstm => c_half + prev * nh,
                    _ => prev * nh,
                },
                y_h: slot * nh,
                dy_h: slot * nh,
                dy_c: c_half + slot * nh,
            };
            let ti = t as isize;
            let dgi_t = dgi.select(0, ti)?;
            let dgh_t = dgh.as_ref().map(|d| d.select(0, ti)).transpose()?;
            backward_step(
                kind,
                &gi.select(0, ti)?,
                &gh.select(0, ti)?,
                &y,
                &dy,
                &at,
                &dgi_t,
                dgh_t.as_ref(),
                &carry,
                dc.as_ref(),
                [n, h],
            )?;
            carry = match &dgh_t {
                Some(d) => carry.addmm(d, &w, 1.0, 1.0)?,
                None => dgi_t.matmul(&w)?,
            };
        }
        let dgh_all = dgh.as_ref().unwrap_or(&dgi);
        let dgh_flat = dgh_all.reshape(&[(steps * n) as isize, gw as isize])?;
        let dw = dgh_flat.t()?.matmul(&hprev)?;
        let mut grads = vec![Some(dgi), Some(dw)];
        if self.bias {
            grads.push(Some(dgh_flat.sum(Some(&[0]), false)?));
        }
        grads.push(Some(carry));
        if lstm {
            grads.push(dc);
        }
        Ok(grads)
    }
}
