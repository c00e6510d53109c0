//! The recurrent modules whose forward returns a tuple: LSTMCell, RNN, LSTM, GRU (RNNCell and
//! GRUCell are in `dropout_distance.rs`). Each row references its module's forward signature.

use super::{ModuleClass, boxed, class, factory};
use crate::LSTMCell;
use crate::layers::recurrent::LSTM_CELL_FORWARD;

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("LSTMCell", "input_size: Int, hidden_size: Int, bias: Bool = True, device: Str = None, \
                           dtype: DType = None",
            |a| { factory(a, 3)?; boxed(LSTMCell::new(a.usize(0)?, a.usize(1)?, a.bool(2)?)?) })
            .with_forward(&LSTM_CELL_FORWARD),
    ]
}
