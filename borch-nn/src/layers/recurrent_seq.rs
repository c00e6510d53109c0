//! torch's sequence modules `nn.RNN`, `nn.LSTM` and `nn.GRU`: layers of cells over time, in one
//! or both directions. As cuDNN, the input projection `x W_ih^T + b_ih` is one matmul for the
//! whole sequence; a layer is then one recorded op (`borch_tensor::rnn_layer_fused`) whose time
//! step costs one `addmm` (`h W_hh^T + b_hh`) and one fused gate kernel writing into the
//! output (backward: one gate kernel and one matmul a step). LSTMs with `proj_size` and other
//! dtypes go step by step through `recurrent::cell_step`.

use borch_tensor::api::Value;
use borch_tensor::{
    BorchError, DType, GateKind, Result, Tensor, rnn_layer_fusable, rnn_layer_fused,
    rnn_layer_outputs, stack, zeros,
};

use super::parameter;
use super::recurrent::{cell_step, opt_tensors};
use crate::api::forward::ForwardSignature;
use crate::functional as F;
use crate::init;
use crate::module::Module;
use crate::repr::py_float;
use crate::{display_as_repr, training_flag};

/// `RNN.forward(input, hx=None) -> (output, h_n)`.
pub static RNN_FORWARD: ForwardSignature = ForwardSignature::returning(
    "RNN.forward",
    "input: Tensor, hx: Tensor = None",
    "(Tensor, Tensor)",
);
/// `GRU.forward(input, hx=None) -> (output, h_n)`.
pub static GRU_FORWARD: ForwardSignature = ForwardSignature::returning(
    "GRU.forward",
    "input: Tensor, hx: Tensor = None",
    "(Tensor, Tensor)",
);
/// `LSTM.forward(input, hx=None) -> (output, (h_n, c_n))`, `hx` the pair `(h_0, c_0)`.
pub static LSTM_FORWARD: ForwardSignature = ForwardSignature::returning(
    "LSTM.forward",
    "input: Tensor, hx: Tensors = None",
    "(Tensor, (Tensor, Tensor))",
);

/// Which recurrence (torch's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RnnMode {
    /// `RNN_TANH`.
    Tanh,
    /// `RNN_RELU`.
    Relu,
    /// `LSTM`.
    Lstm,
    /// `GRU`.
    Gru,
}

impl RnnMode {
    fn gates(self) -> usize {
        match self {
            RnnMode::Tanh | RnnMode::Relu => 1,
            RnnMode::Gru => 3,
            RnnMode::Lstm => 4,
        }
    }

    pub(super) fn gate_kind(self) -> GateKind {
        match self {
            RnnMode::Tanh => GateKind::Tanh,
            RnnMode::Relu => GateKind::Relu,
            RnnMode::Gru => GateKind::Gru,
            RnnMode::Lstm => GateKind::Lstm,
        }
    }

    pub(super) fn class(self) -> &'static str {
        match self {
            RnnMode::Tanh | RnnMode::Relu => "RNN",
            RnnMode::Gru => "GRU",
            RnnMode::Lstm => "LSTM",
        }
    }
}

/// The constructor's options after `input_size, hidden_size` (torch's defaults by `Default`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RnnOptions {
    /// torch's `num_layers`.
    pub num_layers: usize,
    /// torch's `bias`: whether to learn an additive bias.
    pub bias: bool,
    /// torch's `batch_first`: inputs and outputs are `(batch, seq, feature)`.
    pub batch_first: bool,
    /// torch's `dropout`.
    pub dropout: f64,
    /// torch's `bidirectional`.
    pub bidirectional: bool,
    /// torch's `proj_size`: the LSTM's projection size (0: none).
    pub proj_size: usize,
}

impl Default for RnnOptions {
    fn default() -> RnnOptions {
        RnnOptions {
            num_layers: 1,
            bias: true,
            batch_first: false,
            dropout: 0.0,
            bidirectional: false,
            proj_size: 0,
        }
    }
}

/// One layer and direction's parameters (torch's `weight_ih_l{k}{suffix}`, …).
pub(super) struct Weights {
    suffix: String,
    pub(super) w_ih: Tensor,
    pub(super) w_hh: Tensor,
    pub(super) b_ih: Option<Tensor>,
    pub(super) b_hh: Option<Tensor>,
    pub(super) w_hr: Option<Tensor>,
}

/// torch's `nn.RNN`, `nn.LSTM` and `nn.GRU` (`RNNBase`).
pub struct RNNBase {
    pub(super) mode: RnnMode,
    pub(super) input_size: usize,
    pub(super) hidden_size: usize,
    pub(super) options: RnnOptions,
    pub(super) weights: Vec<Weights>,
    pub(super) training: bool,
}

/// torch's `nn.RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', …)`.
pub type RNN = RNNBase;
/// torch's `nn.LSTM(input_size, hidden_size, num_layers=1, …, proj_size=0)`.
pub type LSTM = RNNBase;
/// torch's `nn.GRU(input_size, hidden_size, num_layers=1, …)`.
pub type GRU = RNNBase;

fn value_error(msg: &str) -> BorchError {
    BorchError::Value(msg.to_string())
}

impl RNNBase {
    /// Parameters registered and drawn in torch's order: for each layer, each direction,
    /// `w_ih, w_hh, b_ih, b_hh, w_hr`, then every one from U(-1/√H, 1/√H) in that order.
    pub fn new(
        mode: RnnMode,
        input_size: usize,
        hidden_size: usize,
        options: RnnOptions,
    ) -> Result<RNNBase> {
        let o = options;
        if !(0.0..=1.0).contains(&o.dropout) {
            return Err(value_error(
                "dropout should be a number in range [0, 1] representing the probability of an \
                 element being zeroed",
            ));
        }
        if hidden_size == 0 {
            return Err(value_error("hidden_size must be greater than zero"));
        }
        if o.num_layers == 0 {
            return Err(value_error("num_layers must be greater than zero"));
        }
        if o.proj_size > 0 && mode != RnnMode::Lstm {
            return Err(value_error(
                "proj_size argument is only supported for LSTM, not RNN or GRU",
            ));
        }
        if o.proj_size >= hidden_size && o.proj_size > 0 {
            return Err(value_error("proj_size has to be smaller than hidden_size"));
        }
        let gate = mode.gates() * hidden_size;
        let real_hidden = if o.proj_size > 0 {
            o.proj_size
        } else {
            hidden_size
        };
        let dirs = if o.bidirectional { 2 } else { 1 };
        let mut weights = Vec::new();
        for layer in 0..o.num_layers {
            for dir in 0..dirs {
                let layer_input = if layer == 0 {
                    input_size
                } else {
                    real_hidden * dirs
                };
                let bias = |n| {
                    if o.bias {
                        parameter(&[n]).map(Some)
                    } else {
                        Ok(None)
                    }
                };
                weights.push(Weights {
                    suffix: format!("_l{layer}{}", if dir == 1 { "_reverse" } else { "" }),
                    w_ih: parameter(&[gate, layer_input])?,
                    w_hh: parameter(&[gate, real_hidden])?,
                    b_ih: bias(gate)?,
                    b_hh: bias(gate)?,
                    w_hr: if o.proj_size > 0 {
                        Some(parameter(&[o.proj_size, hidden_size])?)
                    } else {
                        None
                    },
                });
            }
        }
        let m = RNNBase {
            mode,
            input_size,
            hidden_size,
            options,
            weights,
            training: true,
        };
        let bound = 1.0 / (hidden_size as f64).sqrt();
        for (_, t) in m.named() {
            init::uniform_(&t, -bound, bound)?;
        }
        Ok(m)
    }

    fn named(&self) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        for w in &self.weights {
            let s = &w.suffix;
            out.push((format!("weight_ih{s}"), w.w_ih.clone()));
            out.push((format!("weight_hh{s}"), w.w_hh.clone()));
            if let (Some(bi), Some(bh)) = (&w.b_ih, &w.b_hh) {
                out.push((format!("bias_ih{s}"), bi.clone()));
                out.push((format!("bias_hh{s}"), bh.clone()));
            }
            if let Some(hr) = &w.w_hr {
                out.push((format!("weight_hr{s}"), hr.clone()));
            }
        }
        out
    }

    pub(super) fn directions(&self) -> usize {
        if self.options.bidirectional { 2 } else { 1 }
    }

    pub(super) fn real_hidden(&self) -> usize {
        match self.options.proj_size {
            0 => self.hidden_size,
            p => p,
        }
    }

    /// torch's `forward(input, hx)`: `(output, h_n)`, and `c_n` for an LSTM. `hx` is `h_0`, or
    /// `(h_0, c_0)` for an LSTM.
    pub fn forward_states(
        &self,
        input: &Tensor,
        hx: Option<Vec<Tensor>>,
    ) -> Result<(Tensor, Vec<Tensor>)> {
        let class = self.mode.class();
        let lstm = self.mode == RnnMode::Lstm;
        if !matches!(input.dim(), 2 | 3) {
            let tail = if self.mode == RnnMode::Lstm || self.mode == RnnMode::Gru {
                "instead"
            } else {
                "tensor instead"
            };
            return Err(value_error(&format!(
                "{class}: Expected input to be 2D or 3D, got {}D {tail}",
                input.dim()
            )));
        }
        let batched = input.dim() == 3;
        let batch_dim = if self.options.batch_first { 0 } else { 1 };
        let x = if batched {
            input.clone()
        } else {
            input.unsqueeze(batch_dim)?
        };
        // Time-major [T, N, I] inside.
        let x = if self.options.batch_first {
            x.transpose(0, 1)?
        } else {
            x
        };
        let n = x.shape()[1];
        let dirs = self.directions();
        let layers = self.options.num_layers;
        let hx = match hx {
            None => None,
            Some(states) => Some(self.batch_states(states, batched)?),
        };
        if x.shape()[2] != self.input_size {
            return Err(BorchError::Runtime(format!(
                "input.size(-1) must be equal to input_size. Expected {}, got {}",
                self.input_size,
                x.shape()[2]
            )));
        }
        let sizes = [self.real_hidden(), self.hidden_size];
        let states: Vec<Tensor> = match hx {
            Some(states) => {
                self.check_state_shapes(&states, n)?;
                states
            }
            None => {
                let count = if lstm { 2 } else { 1 };
                (0..count)
                    .map(|k| zeros(&[layers * dirs, n, sizes[k]], DType::Float32))
                    .collect::<Result<_>>()?
            }
        };
        let mut layer_input = x;
        let mut finals: Vec<Vec<Tensor>> = vec![Vec::new(); states.len()];
        for layer in 0..layers {
            let mut outs = Vec::new();
            for dir in 0..dirs {
                let k = layer * dirs + dir;
                let init: Vec<Tensor> = states
                    .iter()
                    .map(|s| s.select(0, k as isize))
                    .collect::<Result<_>>()?;
                let (out, last) =
                    self.run_direction(&self.weights[k], &layer_input, init, dir == 1)?;
                outs.push(out);
                for (f, t) in finals.iter_mut().zip(last) {
                    f.push(t);
                }
            }
            layer_input = if outs.len() == 1 {
                outs.remove(0)
            } else {
                borch_tensor::cat(&outs, 2)?
            };
            if self.options.dropout != 0.0 && self.training && layer + 1 < layers {
                layer_input = F::dropout(&layer_input, self.options.dropout, true)?;
            }
        }
        let mut output = if self.options.batch_first {
            layer_input.transpose(0, 1)?
        } else {
            layer_input
        };
        let mut finals: Vec<Tensor> = finals.iter().map(|f| stack(f, 0)).collect::<Result<_>>()?;
        if !batched {
            output = output.squeeze_dims(&[batch_dim])?;
            finals = finals
                .into_iter()
                .map(|f| f.squeeze_dims(&[1]))
                .collect::<Result<_>>()?;
        }
        Ok((output, finals))
    }

    /// torch's check that each state (`h_0`, and `c_0` for an LSTM) is
    /// `[layers · directions, n, size]`.
    pub(super) fn check_state_shapes(&self, states: &[Tensor], n: usize) -> Result<()> {
        let lstm = self.mode == RnnMode::Lstm;
        let sizes = [self.real_hidden(), self.hidden_size];
        let rows = self.options.num_layers * self.directions();
        for (k, s) in states.iter().enumerate() {
            let expected = [rows, n, sizes[k]];
            if s.shape() != expected {
                let which = if lstm {
                    format!(" hidden[{k}]")
                } else {
                    " hidden".to_string()
                };
                return Err(BorchError::Runtime(format!(
                    "Expected{which} size ({}, {}, {}), got {:?}",
                    expected[0],
                    expected[1],
                    expected[2],
                    s.shape()
                )));
            }
        }
        Ok(())
    }

    /// torch's checks of `hx` against the input's batching; unbatched states get their batch dim.
    fn batch_states(&self, states: Vec<Tensor>, batched: bool) -> Result<Vec<Tensor>> {
        let want = if batched { 3 } else { 2 };
        let lstm = self.mode == RnnMode::Lstm;
        if lstm && states.len() != 2 {
            return Err(BorchError::Runtime(format!(
                "LSTM: hx must be a tuple of 2 tensors (h_0, c_0), got {}",
                states.len()
            )));
        }
        if states.iter().any(|s| s.dim() != want) {
            let (input, rank) = if batched {
                ("batched 3-D", "3-D")
            } else {
                ("unbatched 2-D", "2-D")
            };
            let msg = if lstm {
                format!(
                    "For {input} input, hx and cx should also be {rank} but got ({}-D, {}-D) tensors",
                    states[0].dim(),
                    states[1].dim()
                )
            } else {
                format!(
                    "For {input} input, hx should also be {rank} but got {}-D tensor",
                    states[0].dim()
                )
            };
            return Err(BorchError::Runtime(msg));
        }
        if batched {
            Ok(states)
        } else {
            states.iter().map(|s| s.unsqueeze(1)).collect()
        }
    }

    /// One layer in one direction over `x [T, N, I]` from the states `init` (`h`, and `c` for an
    /// LSTM, each `[N, ·]`): the outputs `[T, N, H]` in time order and the final states.
    fn run_direction(
        &self,
        w: &Weights,
        x: &Tensor,
        init: Vec<Tensor>,
        reverse: bool,
    ) -> Result<(Tensor, Vec<Tensor>)> {
        let steps = x.shape()[0];
        let (n, i_size) = (x.shape()[1], x.shape()[2]);
        let gw = w.w_ih.shape()[0] as isize;
        // 2-D, so a bias makes it one addmm.
        let gi_all = F::linear(
            &x.reshape(&[-1, i_size as isize])?,
            &w.w_ih,
            w.b_ih.as_ref(),
        )?
        .reshape(&[steps as isize, n as isize, gw])?;
        let kind = self.mode.gate_kind();
        if w.w_hr.is_none() && rnn_layer_fusable(&gi_all, &init[0]) {
            let lstm = kind == GateKind::Lstm;
            let y = rnn_layer_fused(
                kind,
                &gi_all,
                &w.w_hh,
                w.b_hh.as_ref(),
                &init[0],
                init.get(1),
                reverse,
            )?;
            let (out, h_n, c_n) = rnn_layer_outputs(&y, lstm, reverse)?;
            let mut last = vec![h_n];
            last.extend(c_n);
            return Ok((out, last));
        }
        let mut h = init[0].clone();
        let mut c = init.get(1).cloned();
        let mut outs: Vec<Option<Tensor>> = vec![None; steps];
        for i in 0..steps {
            let t = if reverse { steps - 1 - i } else { i };
            let gi = gi_all.select(0, t as isize)?;
            let gh = F::linear(&h, &w.w_hh, w.b_hh.as_ref())?;
            let (h2, c2) = cell_step(kind, &gi, &gh, &h, c.as_ref())?;
            c = c2;
            h = match &w.w_hr {
                Some(hr) => F::linear(&h2, hr, None)?,
                None => h2,
            };
            outs[t] = Some(h.clone());
        }
        let outs: Vec<Tensor> = outs.into_iter().flatten().collect();
        let mut last = vec![h];
        last.extend(c);
        Ok((stack(&outs, 0)?, last))
    }
}

impl Module for RNNBase {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        Err(super::recurrent::tuple_result(self.mode.class(), input))
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let (sig, lstm) = match self.mode {
            RnnMode::Lstm => (&LSTM_FORWARD, true),
            RnnMode::Gru => (&GRU_FORWARD, false),
            _ => (&RNN_FORWARD, false),
        };
        let a = sig.bind(positional, keywords)?;
        let input = a.tensor(0)?;
        if lstm {
            let (out, states) = self.forward_states(&input, opt_tensors(&a, 1)?)?;
            let states = states.into_iter().map(Value::Tensor).collect();
            Ok(Value::List(vec![Value::Tensor(out), Value::List(states)]))
        } else {
            let hx = a.opt_tensor(1)?.map(|h| vec![h]);
            let (out, mut states) = self.forward_states(&input, hx)?;
            Ok(Value::List(vec![
                Value::Tensor(out),
                Value::Tensor(states.remove(0)),
            ]))
        }
    }
    fn name(&self) -> String {
        self.mode.class().into()
    }
    fn extra_repr(&self) -> String {
        let o = &self.options;
        let mut s = format!("{}, {}", self.input_size, self.hidden_size);
        if o.proj_size != 0 {
            s.push_str(&format!(", proj_size={}", o.proj_size));
        }
        if o.num_layers != 1 {
            s.push_str(&format!(", num_layers={}", o.num_layers));
        }
        if !o.bias {
            s.push_str(", bias=False");
        }
        if o.batch_first {
            s.push_str(", batch_first=True");
        }
        if o.dropout != 0.0 {
            s.push_str(&format!(", dropout={}", py_float(o.dropout)));
        }
        if o.bidirectional {
            s.push_str(", bidirectional=True");
        }
        s
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        self.named()
    }
    training_flag!();
}

display_as_repr!(RNNBase);
