//! `torch.nn.utils.rnn`: `pad_sequence` / `unpad_sequence`, and `PackedSequence` with
//! `pack_padded_sequence`, `pad_packed_sequence`, `pack_sequence`, `unpack_sequence`. The
//! recurrent modules take a `PackedSequence` through `RNNBase::forward_packed`.

mod pack;
mod pad;

pub use pack::{
    PackedSequence, pack_padded_sequence, pack_sequence, pad_packed_sequence, unpack_sequence,
    unpad_sequence,
};
pub use pad::pad_sequence;
