//! One recurrent time step's gate math as one fused kernel (`kernels/rnn_gates.rs`), recorded
//! for autograd as one op that brings its own backward (one kernel too): RNN (tanh, relu), GRU
//! and LSTM cells from the gate pre-activations `gi = x W_ih^T + b_ih`, `gh = h W_hh^T + b_hh`.
//! A backward that builds a graph (`create_graph`) is refused (NotImplementedError): composed
//! gradients gave torch's first derivatives but not its second (tests/nn/rnn_double_backward.json),
//! as the core's matmul derivative reads its operands without their graph.

use std::sync::Arc;

use crate::autograd::{BackwardFn, Node, Op, is_grad_enabled, record};
use crate::dtype::DType;
use crate::error::{Result, not_impl, runtime};
use crate::kernels::rnn_gates as k;
pub use crate::kernels::rnn_gates::GateKind;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// The refusal of a backward that builds a graph (`create_graph=True`) through the fused gates.
pub(crate) const DOUBLE_BACKWARD: &str = "double backward (create_graph=True) through nn.RNN, \
nn.LSTM, nn.GRU and their cells: the fused gate kernels' backward is not differentiable yet";

/// Whether `rnn_gates_fused` takes these operands: float32, 2-D, with elements (the composed
/// path takes the rest).
pub fn rnn_gates_fusable(gi: &Tensor, gh: &Tensor, state: Option<&Tensor>) -> bool {
    [Some(gi), Some(gh), state]
        .iter()
        .flatten()
        .all(|t| t.dtype() == DType::Float32 && t.dim() == 2 && t.numel() > 0)
}

/// One time step of a cell of `kind` from the gate pre-activations `gi`, `gh` (`[N, G·H]`,
/// torch's gate order) and the state (`h` `[N, H]` for a GRU, `c` for an LSTM, none for an
/// RNN): `h'` `[N, H]`, or for an LSTM `[2, N, H]` holding `h'` then `c'`.
pub fn rnn_gates_fused(
    kind: GateKind,
    gi: &Tensor,
    gh: &Tensor,
    state: Option<&Tensor>,
) -> Result<Tensor> {
    let with_state = matches!(kind, GateKind::Gru | GateKind::Lstm);
    if !rnn_gates_fusable(gi, gh, state) || with_state != state.is_some() {
        return runtime("internal: rnn_gates_fused takes float32 [N, G*H] gates and its state");
    }
    let (n, gw) = (gi.shape()[0], gi.shape()[1]);
    let h = gw / kind.gates();
    if gw % kind.gates() != 0
        || gh.shape() != gi.shape()
        || state.is_some_and(|s| s.shape() != [n, h])
    {
        return runtime(format!(
            "internal: rnn_gates_fused shapes {:?}, {:?}, {:?}",
            gi.shape(),
            gh.shape(),
            state.map(|s| s.shape().to_vec())
        ));
    }
    let gi_c = gi.detach().contiguous()?;
    let gh_c = gh.detach().contiguous()?;
    let st_c = state.map(|s| s.detach().contiguous()).transpose()?;
    let out = k::forward(kind, &gi_c, &gh_c, st_c.as_ref(), [n, h])?;
    let mut inputs = vec![Operand::Tensor(gi.clone()), Operand::Tensor(gh.clone())];
    inputs.extend(state.map(|s| Operand::Tensor(s.clone())));
    Ok(record(
        Op::Custom(Arc::new(GatesBackward { kind, n, h })),
        &inputs,
        out,
    ))
}

/// The derivative of one fused step. Inputs: gi, gh, then the state where the kind has one.
struct GatesBackward {
    kind: GateKind,
    n: usize,
    h: usize,
}

impl BackwardFn for GatesBackward {
    fn name(&self) -> &str {
        match self.kind {
            GateKind::Tanh => "rnn_tanh_cell",
            GateKind::Relu => "rnn_relu_cell",
            GateKind::Gru => "gru_cell",
            GateKind::Lstm => "lstm_cell",
        }
    }

    fn backward(&self, _: &Tensor) -> Result<Vec<Option<Tensor>>> {
        runtime("internal: the rnn gates' backward needs its node")
    }

    fn backward_node(&self, node: &Node, grad: &Tensor) -> Result<Vec<Option<Tensor>>> {
        if is_grad_enabled() {
            return not_impl(DOUBLE_BACKWARD);
        }
        let with_state = node.inputs.len() == 3;
        let gi = node.saved_input(0)?.contiguous()?;
        let gh = node.saved_input(1)?.contiguous()?;
        let st = if with_state {
            Some(node.saved_input(2)?.contiguous()?)
        } else {
            None
        };
        let y = match self.kind {
            GateKind::Tanh | GateKind::Relu => node.output()?.clone(),
            _ => gi.clone(),
        };
        let g = grad.detach().contiguous()?;
        let (dgi, dgh, dst) =
            k::backward(self.kind, &gi, &gh, st.as_ref(), &y, &g, [self.n, self.h])?;
        let mut out = vec![Some(dgi), Some(dgh)];
        if with_state {
            out.push(dst);
        }
        Ok(out)
    }
}
