//! Saving and loading in the safetensors format (torch's `safetensors.torch`), through the
//! `safetensors` crate: state dicts with torch's key names and dtypes, whole training
//! checkpoints, and the host-only codec hostile files are checked by. See docs/checkpoints.md.

mod checkpoint;
pub mod codec;
mod tensors;

#[cfg(not(target_arch = "wasm32"))]
pub use checkpoint::save_checkpoint_file;
pub use checkpoint::{CHECKPOINT_FORMAT, Resumed, load_checkpoint, save_checkpoint};
pub use tensors::{load, load_with_metadata, save};
#[cfg(not(target_arch = "wasm32"))]
pub use tensors::{load_file, save_file};
