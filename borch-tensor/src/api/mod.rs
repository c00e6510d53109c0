//! The op catalog that bindings forward to: every tensor op by torch's name, with its signature,
//! callable with dynamically typed arguments. JavaScript methods and Python names are generated
//! from it, so a binding never keeps a second list and never computes anything itself.

mod args;
mod catalog;
mod data;
mod inplace;
mod more;
mod names;
mod signature;
mod value;
mod windows;

pub use args::{Args, bind};
pub use catalog::{entries, find, find_in};
pub use names::camel;
pub use signature::{
    AsyncBody, Call, Default, Entry, Form, Kind, Param, Pending, Returns, parse_params,
};
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
/// module named in the error when it has no such function. An async entry blocks on native
/// targets; in a browser it is refused (a synchronous call cannot await a read): `call_async`.
pub fn call_in(
    entries: &[Entry],
    module: &str,
    name: &str,
    method: bool,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Value> {
    call_entry(
        lookup(entries, module, name, method)?,
        method,
        positional,
        keywords,
    )
}

/// Call `entry`, already found (`find_in`), as `call_in` calls the entry it finds: for a binding
/// that resolves a name once and keeps the entry (borch-pyo3's tensor methods).
pub fn call_entry(
    entry: &Entry,
    method: bool,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Value> {
    let args = bind(entry, positional, keywords)?.called_as_method(method);
    match entry.call {
        Call::Map(op) => catalog::run_map(op, &args),
        Call::MapInPlace(op) => inplace::run_map_inplace(op, &args),
        Call::Fn(body) => body(&args),
        Call::Async(body) => block_on(entry.name, body(&args)?),
    }
}

/// `call` for bindings that can await: the arguments are bound and read now (a wrong one is an
/// error here), the op runs when the result is awaited. Every entry can be called so; an async one
/// (`Entry::is_async`) only so in a browser.
pub fn call_async(
    name: &str,
    method: bool,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Pending> {
    let entry = lookup(entries(), "torch", name, method)?;
    let args = bind(entry, positional, keywords)?.called_as_method(method);
    Ok(match entry.call {
        Call::Async(body) => body(&args)?,
        Call::Map(op) => ready(catalog::run_map(op, &args)),
        Call::MapInPlace(op) => ready(inplace::run_map_inplace(op, &args)),
        Call::Fn(body) => ready(body(&args)),
    })
}

fn ready(r: Result<Value>) -> Pending {
    Box::pin(std::future::ready(r))
}

/// The entry `name`, or torch's AttributeError wording (as a TypeError) for a missing one.
fn lookup<'a>(entries: &'a [Entry], module: &str, name: &str, method: bool) -> Result<&'a Entry> {
    find_in(entries, name, method).ok_or_else(|| {
        let what = if method {
            "'Tensor' object".to_string()
        } else {
            format!("module '{module}'")
        };
        BorchError::Type(format!("{what} has no attribute '{name}'"))
    })
}

/// An async entry called synchronously: waited for on native targets.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn block_on(_name: &str, pending: Pending) -> Result<Value> {
    pollster::block_on(pending)
}

/// An async entry called synchronously in a browser, where nothing may block: refused, naming
/// the async form.
#[cfg(target_arch = "wasm32")]
pub(super) fn block_on(name: &str, pending: Pending) -> Result<Value> {
    drop(pending);
    Err(BorchError::NotImplemented(format!(
        "{name}: its result's shape depends on the values, which borch cannot read back inside \
         a synchronous call in a browser: await its async form (call_async; borch-ts's \
         methods of such ops return a Promise)"
    )))
}
