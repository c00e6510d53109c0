//! `nn.RNN` / `nn.LSTM` / `nn.GRU` over a `PackedSequence`, as torch runs it: the sequences are
//! sorted by length, so at time step `t` the first `batch_sizes[t]` of them are running. Each
//! step computes those rows only (`narrow`), and the rows of sequences that ended (forward) or
//! have not started (reverse) keep their state. The packed output is the steps' rows in
//! order, as torch's.

use borch_tensor::{BorchError, Result, Tensor, cat, stack, zeros};

use super::recurrent::cell_step;
use super::recurrent_seq::{RNNBase, RnnMode, Weights};
use crate::functional as F;
use crate::functional::padding::index_tensor as index;
use crate::utils::rnn::PackedSequence;

impl RNNBase {
    /// torch's `forward(input: PackedSequence, hx)`: `(output, [h_n])` or `(output, [h_n,
    /// c_n])`, the output packed like the input and the final states in the caller's batch
    /// order (`hx` is given in that order too).
    pub fn forward_packed(
        &self,
        input: &PackedSequence,
        hx: Option<Vec<Tensor>>,
    ) -> Result<(PackedSequence, Vec<Tensor>)> {
        let class = self.mode.class();
        let lstm = self.mode == RnnMode::Lstm;
        let data = &input.data;
        if data.dim() != 2 {
            return Err(BorchError::Runtime(format!(
                "{class}: input must have 2 dimensions, got {}",
                data.dim()
            )));
        }
        if data.shape()[1] != self.input_size {
            return Err(BorchError::Runtime(format!(
                "input.size(-1) must be equal to input_size. Expected {}, got {}",
                self.input_size,
                data.shape()[1]
            )));
        }
        let n = input.batch();
        let (layers, dirs) = (self.options.num_layers, self.directions());
        let sizes = [self.real_hidden(), self.hidden_size];
        let states: Vec<Tensor> = match hx {
            Some(states) => {
                if lstm && states.len() != 2 {
                    return Err(BorchError::Runtime(format!(
                        "LSTM: hx must be a tuple of 2 tensors (h_0, c_0), got {}",
                        states.len()
                    )));
                }
                self.check_state_shapes(&states, n)?;
                let mut sorted = Vec::with_capacity(states.len());
                for s in &states {
                    sorted.push(match &input.sorted_indices {
                        Some(order) => s.index_select(1, &index(order)?)?,
                        None => s.clone(),
                    });
                }
                sorted
            }
            None => (0..if lstm { 2 } else { 1 })
                .map(|k| zeros(&[layers * dirs, n, sizes[k]], data.dtype()))
                .collect::<Result<_>>()?,
        };
        let mut layer_input = data.clone();
        let mut finals: Vec<Vec<Tensor>> = vec![Vec::new(); states.len()];
        for layer in 0..layers {
            let mut outs = Vec::with_capacity(dirs);
            for dir in 0..dirs {
                let k = layer * dirs + dir;
                let init: Vec<Tensor> = states
                    .iter()
                    .map(|s| s.select(0, k as isize))
                    .collect::<Result<_>>()?;
                let (out, last) = self.packed_direction(
                    &self.weights[k],
                    &layer_input,
                    &input.batch_sizes,
                    init,
                    dir == 1,
                )?;
                outs.push(out);
                for (f, t) in finals.iter_mut().zip(last) {
                    f.push(t);
                }
            }
            layer_input = if outs.len() == 1 {
                outs.remove(0)
            } else {
                cat(&outs, 1)?
            };
            if self.options.dropout != 0.0 && self.training && layer + 1 < layers {
                layer_input = F::dropout(&layer_input, self.options.dropout, true)?;
            }
        }
        let finals = finals
            .iter()
            .map(|f| {
                let s = stack(f, 0)?;
                match &input.unsorted_indices {
                    Some(order) => s.index_select(1, &index(order)?),
                    None => Ok(s),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((input.with_data(layer_input), finals))
    }

    /// One layer in one direction over packed rows `x [rows, I]`: the packed outputs and the
    /// final states (`h`, and `c` for an LSTM, each `[N, ·]` in sorted order).
    fn packed_direction(
        &self,
        w: &Weights,
        x: &Tensor,
        batch_sizes: &[i64],
        init: Vec<Tensor>,
        reverse: bool,
    ) -> Result<(Tensor, Vec<Tensor>)> {
        let kind = self.mode.gate_kind();
        let gi_all = F::linear(x, &w.w_ih, w.b_ih.as_ref())?;
        let starts: Vec<usize> = batch_sizes
            .iter()
            .scan(0usize, |acc, &b| {
                let s = *acc;
                *acc += b as usize;
                Some(s)
            })
            .collect();
        let steps = batch_sizes.len();
        let mut h = init[0].clone();
        let mut c = init.get(1).cloned();
        let mut outs: Vec<Option<Tensor>> = vec![None; steps];
        for i in 0..steps {
            let t = if reverse { steps - 1 - i } else { i };
            let bs = batch_sizes[t] as usize;
            let rest = h.shape()[0] - bs;
            let gi = gi_all.narrow(0, starts[t] as isize, bs)?;
            let h_run = h.narrow(0, 0, bs)?;
            let c_run = c.as_ref().map(|c| c.narrow(0, 0, bs)).transpose()?;
            let gh = F::linear(&h_run, &w.w_hh, w.b_hh.as_ref())?;
            let (h2, c2) = cell_step(kind, &gi, &gh, &h_run, c_run.as_ref())?;
            let h2 = match &w.w_hr {
                Some(hr) => F::linear(&h2, hr, None)?,
                None => h2,
            };
            outs[t] = Some(h2.clone());
            let keep = |old: &Tensor, new: Tensor| -> Result<Tensor> {
                if rest == 0 {
                    Ok(new)
                } else {
                    cat(&[new, old.narrow(0, bs as isize, rest)?], 0)
                }
            };
            h = keep(&h, h2)?;
            c = match (c, c2) {
                (Some(old), Some(new)) => Some(keep(&old, new)?),
                _ => None,
            };
        }
        let outs: Vec<Tensor> = outs.into_iter().flatten().collect();
        let mut last = vec![h];
        last.extend(c);
        Ok((cat(&outs, 0)?, last))
    }
}
