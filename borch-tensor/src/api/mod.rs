//! The op catalog that bindings forward to: every tensor op by torch's name, with its signature,
//! callable with dynamically typed arguments. JavaScript methods and Python names are generated
//! from it, so a binding never keeps a second list and never computes anything itself.

mod args;
mod catalog;
mod data;
mod inplace;
mod more;
mod signature;
mod value;
mod windows;

pub use args::{Args, bind};
pub use catalog::{entries, find, find_in};
pub use signature::{Call, Default, Entry, Form, Kind, Param, Returns, parse_params};
pub use value::Value;
pub use windows::{
    CONV_PARAMS, CONV_TRANSPOSE_PARAMS, MAX_POOL_PARAMS, pair, run_conv, run_conv_transpose,
    run_max_pool,
};

use crate::error::{BorchError, Result};

/// Call the op `name` as a method (`positional[0]` is the tensor) or as a `torch.` function.
pub fn call(
    name: &str,
    method: bool,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Value> {
    call_in(entries(), "torch", name, method, positional, keywords)
}

/// Call the op `name` of the catalog `entries` (this one, or another crate's built from the same
/// `Entry`s, such as `torch.nn.functional`'s): as a method, or as a function of `module`, the
/// module named in the error when it has no such function.
pub fn call_in(
    entries: &[Entry],
    module: &str,
    name: &str,
    method: bool,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Value> {
    let Some(entry) = find_in(entries, name, method) else {
        let what = if method {
            "'Tensor' object".to_string()
        } else {
            format!("module '{module}'")
        };
        return Err(BorchError::Type(format!(
            "{what} has no attribute '{name}'"
        )));
    };
    let args = bind(entry, positional, keywords)?.called_as_method(method);
    match entry.call {
        Call::Map(op) => catalog::run_map(op, &args),
        Call::MapInPlace(op) => inplace::run_map_inplace(op, &args),
        Call::Fn(body) => body(&args),
    }
}
