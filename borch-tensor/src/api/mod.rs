//! The op catalog that bindings forward to: every tensor op by torch's name, with its signature,
//! callable with dynamically typed arguments. JavaScript methods and Python names are generated
//! from it, so a binding never keeps a second list and never computes anything itself.

mod args;
mod catalog;
mod signature;
mod value;

pub use args::{Args, bind};
pub use catalog::{entries, find};
pub use signature::{Call, Default, Entry, Form, Kind, Param, Returns, parse_params};
pub use value::Value;

use crate::error::{BorchError, Result};

/// Call the op `name` as a method (`positional[0]` is the tensor) or as a `torch.` function.
pub fn call(
    name: &str,
    method: bool,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Value> {
    let Some(entry) = find(name, method) else {
        let what = if method {
            "'Tensor' object"
        } else {
            "module 'torch'"
        };
        return Err(BorchError::Type(format!(
            "{what} has no attribute '{name}'"
        )));
    };
    let args = bind(entry, positional, keywords)?;
    match entry.call {
        Call::Map(op) => catalog::run_map(op, &args),
        Call::Fn(body) => body(&args),
    }
}
