//! The recurrent cells: RNNCell, GRUCell and LSTMCell (its `(h', c')` through
//! `Module::forward_values`): two linear maps, then the gate math of the step in one fused
//! kernel with its own backward (`borch_tensor::rnn_gates_fused`; other dtypes compose it from
//! pointwise ops). The sequence modules (RNN, LSTM, GRU) are in `recurrent_seq.rs`.

use borch_tensor::api::Value;
use borch_tensor::{
    BorchError, DType, GateKind, Result, Tensor, rnn_gates_fusable, rnn_gates_fused, zeros,
};

use crate::api::forward::ForwardSignature;

use super::{parameter, present};
use crate::functional as F;
use crate::init;
use crate::module::Module;
use crate::{display_as_repr, training_flag};

/// The parameters of a cell with `gates` gates: `weight_ih [gates·H, I]`, `weight_hh [gates·H,
/// H]`, `bias_ih`, `bias_hh [gates·H]`, each drawn from U(-1/√H, 1/√H) in that order (torch's
/// `reset_parameters`).
pub(crate) struct CellParams {
    input_size: usize,
    hidden_size: usize,
    weight_ih: Tensor,
    weight_hh: Tensor,
    bias_ih: Option<Tensor>,
    bias_hh: Option<Tensor>,
}

impl CellParams {
    fn new(input_size: usize, hidden_size: usize, bias: bool, gates: usize) -> Result<CellParams> {
        let rows = gates * hidden_size;
        let p = CellParams {
            input_size,
            hidden_size,
            weight_ih: parameter(&[rows, input_size])?,
            weight_hh: parameter(&[rows, hidden_size])?,
            bias_ih: if bias {
                Some(parameter(&[rows])?)
            } else {
                None
            },
            bias_hh: if bias {
                Some(parameter(&[rows])?)
            } else {
                None
            },
        };
        let bound = 1.0 / (hidden_size as f64).sqrt();
        for t in p.all() {
            init::uniform_(&t, -bound, bound)?;
        }
        Ok(p)
    }

    fn named(&self) -> Vec<(String, Tensor)> {
        present(&[
            ("weight_ih", Some(&self.weight_ih)),
            ("weight_hh", Some(&self.weight_hh)),
            ("bias_ih", self.bias_ih.as_ref()),
            ("bias_hh", self.bias_hh.as_ref()),
        ])
    }

    fn all(&self) -> Vec<Tensor> {
        self.named().into_iter().map(|(_, t)| t).collect()
    }

    fn repr(&self) -> String {
        let mut s = format!("{}, {}", self.input_size, self.hidden_size);
        if self.bias_ih.is_none() {
            s.push_str(", bias=False");
        }
        s
    }

    /// torch's checks and batching: `(input [N, I], hx [N, H], batched)`.
    fn prepare(
        &self,
        class: &str,
        input: &Tensor,
        hx: Option<&Tensor>,
    ) -> Result<(Tensor, Tensor, bool)> {
        if !matches!(input.dim(), 1 | 2) {
            return Err(BorchError::Value(format!(
                "{class}: Expected input to be 1D or 2D, got {}D instead",
                input.dim()
            )));
        }
        if let Some(h) = hx
            && !matches!(h.dim(), 1 | 2)
        {
            return Err(BorchError::Value(format!(
                "{class}: Expected hidden to be 1D or 2D, got {}D instead",
                h.dim()
            )));
        }
        let batched = input.dim() == 2;
        let x = if batched {
            input.clone()
        } else {
            input.unsqueeze(0)?
        };
        let h = match hx {
            None => zeros(&[x.shape()[0], self.hidden_size], DType::Float32)?,
            Some(h) if batched => h.clone(),
            Some(h) => h.unsqueeze(0)?,
        };
        if x.shape()[1] != self.input_size {
            return Err(BorchError::Runtime(format!(
                "input has inconsistent input_size: got {} expected {}",
                x.shape()[1],
                self.input_size
            )));
        }
        if h.dim() != 2 {
            return Err(BorchError::Runtime(format!(
                "Expected 2D hidden0 (batch x hidden_size), but got {}D tensor",
                h.dim()
            )));
        }
        if h.shape()[0] != x.shape()[0] {
            return Err(BorchError::Runtime(format!(
                "Input batch size {} doesn't match hidden0 batch size {}",
                x.shape()[0],
                h.shape()[0]
            )));
        }
        if h.shape()[1] != self.hidden_size {
            return Err(BorchError::Runtime(format!(
                "hidden0 has inconsistent hidden_size: got {}, expected {}",
                h.shape()[1],
                self.hidden_size
            )));
        }
        Ok((x, h, batched))
    }

    /// `(x W_ih^T + b_ih, h W_hh^T + b_hh)`.
    fn gates(&self, x: &Tensor, h: &Tensor) -> Result<(Tensor, Tensor)> {
        Ok((
            F::linear(x, &self.weight_ih, self.bias_ih.as_ref())?,
            F::linear(h, &self.weight_hh, self.bias_hh.as_ref())?,
        ))
    }
}

/// `forward(input, hx=None)` of RNNCell and GRUCell.
pub static RNN_CELL_FORWARD: ForwardSignature =
    ForwardSignature::new("RNNCell.forward", "input: Tensor, hx: Tensor = None");
/// GRUCell's, as RNNCell's.
pub static GRU_CELL_FORWARD: ForwardSignature =
    ForwardSignature::new("GRUCell.forward", "input: Tensor, hx: Tensor = None");
/// `LSTMCell.forward(input, hx=None) -> (h', c')`, `hx` the pair `(h_0, c_0)`.
pub static LSTM_CELL_FORWARD: ForwardSignature = ForwardSignature::returning(
    "LSTMCell.forward",
    "input: Tensor, hx: Tensors = None",
    "(Tensor, Tensor)",
);

fn unbatch(h: Tensor, batched: bool) -> Result<Tensor> {
    if batched { Ok(h) } else { h.squeeze_dims(&[0]) }
}

fn cell_args<'a>(class: &str, inputs: &[&'a Tensor]) -> Result<(&'a Tensor, Option<&'a Tensor>)> {
    match inputs {
        [x] => Ok((x, None)),
        [x, h] => Ok((x, Some(h))),
        _ => Err(BorchError::Type(format!(
            "{class}.forward() takes from 2 to 3 positional arguments but {} were given",
            inputs.len() + 1
        ))),
    }
}

/// torch's `nn.RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh')`:
/// `h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)`.
pub struct RNNCell {
    params: CellParams,
    /// torch's `nonlinearity`: `'tanh'` or `'relu'`.
    pub nonlinearity: String,
    training: bool,
}

impl RNNCell {
    /// torch's `RNNCell(input_size, hidden_size, bias, nonlinearity)`.
    pub fn new(
        input_size: usize,
        hidden_size: usize,
        bias: bool,
        nonlinearity: &str,
    ) -> Result<RNNCell> {
        Ok(RNNCell {
            params: CellParams::new(input_size, hidden_size, bias, 1)?,
            nonlinearity: nonlinearity.to_string(),
            training: true,
        })
    }

    /// torch's `forward(input, hx=None)`.
    pub fn forward(&self, input: &Tensor, hx: Option<&Tensor>) -> Result<Tensor> {
        let (x, h, batched) = self.params.prepare("RNNCell", input, hx)?;
        let kind = match self.nonlinearity.as_str() {
            "tanh" => GateKind::Tanh,
            "relu" => GateKind::Relu,
            other => {
                return Err(BorchError::Runtime(format!(
                    "Unknown nonlinearity: {other}"
                )));
            }
        };
        let (gi, gh) = self.params.gates(&x, &h)?;
        let (out, _) = cell_step(kind, &gi, &gh, &h, None)?;
        unbatch(out, batched)
    }
}

impl Module for RNNCell {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        RNNCell::forward(self, input, None)
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        let (x, h) = cell_args("RNNCell", inputs)?;
        RNNCell::forward(self, x, h)
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = RNN_CELL_FORWARD.bind(positional, keywords)?;
        RNNCell::forward(self, &a.tensor(0)?, a.opt_tensor(1)?.as_ref()).map(Value::Tensor)
    }
    fn name(&self) -> String {
        "RNNCell".into()
    }
    fn extra_repr(&self) -> String {
        let mut s = self.params.repr();
        if self.nonlinearity != "tanh" {
            s.push_str(&format!(", nonlinearity={}", self.nonlinearity));
        }
        s
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        self.params.named()
    }
    training_flag!();
}

/// torch's `nn.GRUCell(input_size, hidden_size, bias=True)`: reset, update and new gates
/// (`r`, `z`, `n`) with `h' = (1 - z) n + z h`.
pub struct GRUCell {
    params: CellParams,
    training: bool,
}

impl GRUCell {
    /// torch's `GRUCell(input_size, hidden_size, bias)`.
    pub fn new(input_size: usize, hidden_size: usize, bias: bool) -> Result<GRUCell> {
        Ok(GRUCell {
            params: CellParams::new(input_size, hidden_size, bias, 3)?,
            training: true,
        })
    }

    /// torch's `forward(input, hx=None)`.
    pub fn forward(&self, input: &Tensor, hx: Option<&Tensor>) -> Result<Tensor> {
        let (x, h, batched) = self.params.prepare("GRUCell", input, hx)?;
        let (gi, gh) = self.params.gates(&x, &h)?;
        let (out, _) = cell_step(GateKind::Gru, &gi, &gh, &h, None)?;
        unbatch(out, batched)
    }
}

impl Module for GRUCell {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        GRUCell::forward(self, input, None)
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        let (x, h) = cell_args("GRUCell", inputs)?;
        GRUCell::forward(self, x, h)
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = GRU_CELL_FORWARD.bind(positional, keywords)?;
        GRUCell::forward(self, &a.tensor(0)?, a.opt_tensor(1)?.as_ref()).map(Value::Tensor)
    }
    fn name(&self) -> String {
        "GRUCell".into()
    }
    fn extra_repr(&self) -> String {
        self.params.repr()
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        self.params.named()
    }
    training_flag!();
}

/// torch's `nn.LSTMCell(input_size, hidden_size, bias=True)`: input, forget, cell and output
/// gates (`i`, `f`, `g`, `o`) with `c' = f c + i g`, `h' = o tanh(c')`.
pub struct LSTMCell {
    params: CellParams,
    training: bool,
}

impl LSTMCell {
    /// torch's `LSTMCell(input_size, hidden_size, bias)`.
    pub fn new(input_size: usize, hidden_size: usize, bias: bool) -> Result<LSTMCell> {
        Ok(LSTMCell {
            params: CellParams::new(input_size, hidden_size, bias, 4)?,
            training: true,
        })
    }

    /// torch's `forward(input, hx=None)`: `(h', c')`; `hx` is `(h_0, c_0)`.
    pub fn forward(
        &self,
        input: &Tensor,
        hx: Option<(&Tensor, &Tensor)>,
    ) -> Result<(Tensor, Tensor)> {
        if let Some((h, c)) = hx {
            for (idx, v) in [h, c].iter().enumerate() {
                if !matches!(v.dim(), 1 | 2) {
                    return Err(BorchError::Value(format!(
                        "LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {}D instead",
                        v.dim()
                    )));
                }
            }
        }
        let (x, h, batched) = self.params.prepare("LSTMCell", input, hx.map(|p| p.0))?;
        let c = match hx {
            None => h.clone(),
            Some((_, c)) if batched => c.clone(),
            Some((_, c)) => c.unsqueeze(0)?,
        };
        if c.dim() != 2 || c.shape()[0] != h.shape()[0] {
            return Err(BorchError::Runtime(format!(
                "Input batch size {} doesn't match hidden1 batch size {}",
                h.shape()[0],
                c.shape()[0]
            )));
        }
        if c.shape()[1] != self.params.hidden_size {
            return Err(BorchError::Runtime(format!(
                "hidden1 has inconsistent hidden_size: got {}, expected {}",
                c.shape()[1],
                self.params.hidden_size
            )));
        }
        let (gi, gh) = self.params.gates(&x, &h)?;
        let (h, c) = cell_step(GateKind::Lstm, &gi, &gh, &h, Some(&c))?;
        let c = c.ok_or_else(|| BorchError::Runtime("LSTMCell: no cell state".into()))?;
        Ok((unbatch(h, batched)?, unbatch(c, batched)?))
    }
}

/// One time step of a cell from its gate pre-activations `gi`, `gh` (`[N, G·H]`, torch's gate
/// order), the hidden state `h` and (LSTM) the cell state `c`: `(h', c')`. Float32 goes through
/// the fused kernel (one dispatch, its backward one more); other dtypes are composed.
pub(crate) fn cell_step(
    kind: GateKind,
    gi: &Tensor,
    gh: &Tensor,
    h: &Tensor,
    c: Option<&Tensor>,
) -> Result<(Tensor, Option<Tensor>)> {
    let state = match kind {
        GateKind::Gru => Some(h),
        GateKind::Lstm => {
            Some(c.ok_or_else(|| BorchError::Runtime("LSTM: the cell state is missing".into()))?)
        }
        _ => None,
    };
    if rnn_gates_fusable(gi, gh, state) {
        let out = rnn_gates_fused(kind, gi, gh, state)?;
        return Ok(match kind {
            GateKind::Lstm => (out.select(0, 0)?, Some(out.select(0, 1)?)),
            _ => (out, None),
        });
    }
    Ok(match kind {
        GateKind::Tanh => (gi.add(gh)?.tanh()?, None),
        GateKind::Relu => (gi.add(gh)?.relu()?, None),
        GateKind::Gru => {
            let gi = gi.chunk(3, 1)?;
            let gh = gh.chunk(3, 1)?;
            let r = gi[0].add(&gh[0])?.sigmoid()?;
            let z = gi[1].add(&gh[1])?.sigmoid()?;
            let n = gi[2].add(&r.mul(&gh[2])?)?.tanh()?;
            (z.rsub(1.0)?.mul(&n)?.add(&z.mul(h)?)?, None)
        }
        GateKind::Lstm => {
            let (h, c) = lstm_gates(&gi.add(gh)?, state.unwrap_or(h))?;
            (h, Some(c))
        }
    })
}

/// One LSTM step from the summed gate pre-activations `[N, 4H]` (torch's order i, f, g, o) and
/// the cell state: `(h', c')`.
fn lstm_gates(gates: &Tensor, c: &Tensor) -> Result<(Tensor, Tensor)> {
    let g = gates.chunk(4, 1)?;
    let i = g[0].sigmoid()?;
    let f = g[1].sigmoid()?;
    let cand = g[2].tanh()?;
    let o = g[3].sigmoid()?;
    let c = f.mul(c)?.add(&i.mul(&cand)?)?;
    let h = o.mul(&c.tanh()?)?;
    Ok((h, c))
}

/// A `Tensors = None` argument.
pub(crate) fn opt_tensors(a: &borch_tensor::api::Args, i: usize) -> Result<Option<Vec<Tensor>>> {
    if a.get(i).is_none() {
        Ok(None)
    } else {
        a.tensors(i).map(Some)
    }
}

/// `hx` as the pair `(h_0, c_0)` (`None`: zeros).
pub(crate) fn state_pair(class: &str, hx: Option<Vec<Tensor>>) -> Result<Option<(Tensor, Tensor)>> {
    match hx {
        None => Ok(None),
        Some(v) => match <[Tensor; 2]>::try_from(v) {
            Ok([h, c]) => Ok(Some((h, c))),
            Err(_) => Err(BorchError::Runtime(format!(
                "{class} expects two hidden states"
            ))),
        },
    }
}

impl Module for LSTMCell {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        Err(tuple_result("LSTMCell", input))
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = LSTM_CELL_FORWARD.bind(positional, keywords)?;
        let hx = state_pair("lstm_cell", opt_tensors(&a, 1)?)?;
        let (h, c) = LSTMCell::forward(self, &a.tensor(0)?, hx.as_ref().map(|(h, c)| (h, c)))?;
        Ok(Value::List(vec![Value::Tensor(h), Value::Tensor(c)]))
    }
    fn name(&self) -> String {
        "LSTMCell".into()
    }
    fn extra_repr(&self) -> String {
        self.params.repr()
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        self.params.named()
    }
    training_flag!();
}

/// The error of `forward(&Tensor) -> Tensor` on a module whose result is a tuple.
pub(crate) fn tuple_result(class: &str, _input: &Tensor) -> BorchError {
    BorchError::Type(format!(
        "{class}.forward() returns a tuple: call it through forward_values (a binding's \
         module(...)), not as one tensor"
    ))
}

display_as_repr!(RNNCell, GRUCell, LSTMCell);
