//! The recurrent cells that return one tensor: RNNCell and GRUCell (composed of linear maps and
//! pointwise ops, so autograd gives torch's gradients). LSTMCell and the sequence modules
//! (RNN, LSTM, GRU) return tuples, which `Module::forward` does not carry yet.

use borch_tensor::{BorchError, DType, Result, Tensor, zeros};

use super::{parameter, present};
use crate::functional as F;
use crate::init;
use crate::module::Module;
use crate::{display_as_repr, training_flag};

/// The parameters of a cell with `gates` gates: `weight_ih [gates·H, I]`, `weight_hh [gates·H,
/// H]`, `bias_ih`, `bias_hh [gates·H]`, each drawn from U(-1/√H, 1/√H) in that order (torch's
/// `reset_parameters`).
struct CellParams {
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
    pub nonlinearity: String,
    training: bool,
}

impl RNNCell {
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
        let (gi, gh) = self.params.gates(&x, &h)?;
        let pre = gi.add(&gh)?;
        let out = match self.nonlinearity.as_str() {
            "tanh" => pre.tanh()?,
            "relu" => pre.relu()?,
            other => {
                return Err(BorchError::Runtime(format!(
                    "Unknown nonlinearity: {other}"
                )));
            }
        };
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
        let gi = gi.chunk(3, 1)?;
        let gh = gh.chunk(3, 1)?;
        let r = gi[0].add(&gh[0])?.sigmoid()?;
        let z = gi[1].add(&gh[1])?.sigmoid()?;
        let n = gi[2].add(&r.mul(&gh[2])?)?.tanh()?;
        let out = z.rsub(1.0)?.mul(&n)?.add(&z.mul(&h)?)?;
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

display_as_repr!(RNNCell, GRUCell);
