//! borch for JavaScript: the wasm-bindgen bindings behind the npm package `borch-ts`. Every
//! binding forwards to the core (`borch-tensor`); this crate only converts values and errors.

mod convert;
mod device;
mod errors;
mod panic;
mod selftest;
mod tensor;

pub use device::{dispatches, empty_cache, init, manual_seed, memory, pooled, probe, submits};
pub use errors::{IntoJs, JsResult, error_classes, kind_name, to_js, type_error};
pub use selftest::{kernel_sources, self_test};
pub use tensor::{JsTensor, tensor};
