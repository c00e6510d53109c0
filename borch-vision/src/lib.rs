#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

// The catalogue's sample check reads back synchronously, which wasm cannot: native only until the
// browser loader (an async check) exists.
#[cfg(not(target_arch = "wasm32"))]
pub mod catalogue;
pub mod datasets;
pub mod models;
pub mod transforms;
