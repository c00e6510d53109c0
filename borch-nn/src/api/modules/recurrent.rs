//! The recurrent modules whose forward returns a tuple: LSTMCell, RNN, LSTM, GRU (RNNCell and
//! GRUCell are in `dropout_distance.rs`). Each row references its module's forward signature.

use borch_tensor::api::Args;
use borch_tensor::{BorchError, Result};

use super::{ModuleClass, boxed, class, factory};
use crate::layers::recurrent::LSTM_CELL_FORWARD;
use crate::layers::recurrent_seq::{GRU_FORWARD, LSTM_FORWARD, RNN_FORWARD};
use crate::module::Module;
use crate::{LSTMCell, RNNBase, RnnMode, RnnOptions};

/// `nn.RNN`/`LSTM`/`GRU`: `input_size, hidden_size, num_layers` at 0..3, then `bias`,
/// `batch_first`, `dropout`, `bidirectional` from `rest`, `proj_size` at `proj` (LSTM).
fn sequence(a: &Args, mode: RnnMode, rest: usize, proj: Option<usize>) -> Result<Box<dyn Module>> {
    let positive = |i: usize, what: &str| -> Result<usize> {
        match a.int(i)? {
            n if n > 0 => Ok(n as usize),
            _ => Err(BorchError::Value(format!(
                "{what} must be greater than zero"
            ))),
        }
    };
    let hidden = positive(1, "hidden_size")?;
    let num_layers = positive(2, "num_layers")?;
    let proj_size = match proj {
        None => 0,
        Some(i) => match a.int(i)? {
            n if n >= 0 => n as usize,
            _ => {
                return Err(BorchError::Value(
                    "proj_size should be a positive integer or zero to disable projections".into(),
                ));
            }
        },
    };
    factory(a, proj.map_or(rest + 4, |i| i + 1))?;
    let options = RnnOptions {
        num_layers,
        bias: a.bool(rest)?,
        batch_first: a.bool(rest + 1)?,
        dropout: a.f64(rest + 2)?,
        bidirectional: a.bool(rest + 3)?,
        proj_size,
    };
    boxed(RNNBase::new(mode, a.usize(0)?, hidden, options)?)
}

fn rnn(a: &Args) -> Result<Box<dyn Module>> {
    let mode = match a.str(3)? {
        "tanh" => RnnMode::Tanh,
        "relu" => RnnMode::Relu,
        other => {
            return Err(BorchError::Value(format!(
                "Unknown nonlinearity '{other}'. Select from 'tanh' or 'relu'."
            )));
        }
    };
    sequence(a, mode, 4, None)
}

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("LSTMCell", "input_size: Int, hidden_size: Int, bias: Bool = True, device: Str = None, \
                           dtype: DType = None",
            |a| { factory(a, 3)?; boxed(LSTMCell::new(a.usize(0)?, a.usize(1)?, a.bool(2)?)?) })
            .with_forward(&LSTM_CELL_FORWARD),
        class("RNN", "input_size: Int, hidden_size: Int, num_layers: Int = 1, nonlinearity: Str = 'tanh', \
                      bias: Bool = True, batch_first: Bool = False, dropout: Float = 0.0, \
                      bidirectional: Bool = False, device: Str = None, dtype: DType = None",
            rnn).with_forward(&RNN_FORWARD),
        class("LSTM", "input_size: Int, hidden_size: Int, num_layers: Int = 1, bias: Bool = True, \
                       batch_first: Bool = False, dropout: Float = 0.0, bidirectional: Bool = False, \
                       proj_size: Int = 0, device: Str = None, dtype: DType = None",
            |a| sequence(a, RnnMode::Lstm, 3, Some(7))).with_forward(&LSTM_FORWARD),
        class("GRU", "input_size: Int, hidden_size: Int, num_layers: Int = 1, bias: Bool = True, \
                      batch_first: Bool = False, dropout: Float = 0.0, bidirectional: Bool = False, \
                      device: Str = None, dtype: DType = None",
            |a| sequence(a, RnnMode::Gru, 3, None)).with_forward(&GRU_FORWARD),
    ]
}
