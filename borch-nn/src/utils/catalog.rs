//! `torch.nn.utils` as a catalog that bindings forward to, built from the core's [`Entry`]s
//! like `torch.nn.functional`'s.

use std::sync::OnceLock;

use borch_tensor::api::{self, Args, Call, Entry, Form, Returns, Value, parse_params};
use borch_tensor::{BorchError, Result, Tensor};

/// The module name in errors.
pub const MODULE: &str = "torch.nn.utils";

/// torch takes one tensor or an iterable of them as `parameters`.
fn parameters(a: &Args, i: usize) -> Result<Vec<Tensor>> {
    match a.get(i) {
        Value::Tensor(t) => Ok(vec![t.clone()]),
        _ => a.tensors(i),
    }
}

/// `foreach=True` asks for torch's multi-tensor kernels; the result is the same here.
fn foreach_accepted(a: &Args, i: usize) -> Result<()> {
    match a.get(i) {
        Value::None | Value::Bool(_) => Ok(()),
        other => Err(BorchError::Type(format!(
            "foreach must be a bool or None, not {}",
            other.type_name()
        ))),
    }
}

fn clip_grad_norm(a: &Args) -> Result<Value> {
    foreach_accepted(a, 4)?;
    super::clip_grad_norm_(&parameters(a, 0)?, a.f64(1)?, a.f64(2)?, a.bool(3)?).map(Value::Tensor)
}

fn clip_grad_value(a: &Args) -> Result<Value> {
    foreach_accepted(a, 2)?;
    super::clip_grad_value_(&parameters(a, 0)?, a.f64(1)?)?;
    Ok(Value::None)
}

fn parameters_to_vector(a: &Args) -> Result<Value> {
    super::parameters_to_vector(&parameters(a, 0)?).map(Value::Tensor)
}

fn vector_to_parameters(a: &Args) -> Result<Value> {
    let Value::Tensor(vec) = a.get(0) else {
        return Err(BorchError::Type(format!(
            "expected torch.Tensor, but got: {}",
            a.get(0).type_name()
        )));
    };
    super::vector_to_parameters(vec, &parameters(a, 1)?)?;
    Ok(Value::None)
}

fn entry(
    name: &'static str,
    params: &str,
    returns: Returns,
    body: fn(&Args) -> Result<Value>,
) -> Entry {
    Entry {
        name,
        form: Form::Function,
        params: parse_params(params),
        returns,
        call: Call::Fn(body),
    }
}

/// The catalog, built once.
pub fn entries() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        vec![
            entry(
                "clip_grad_norm_",
                "parameters: Tensors, max_norm: Float, norm_type: Float = 2.0, \
                 error_if_nonfinite: Bool = False, foreach: Bool = None",
                Returns::Tensor,
                clip_grad_norm,
            ),
            entry(
                "clip_grad_value_",
                "parameters: Tensors, clip_value: Float, foreach: Bool = None",
                Returns::Nothing,
                clip_grad_value,
            ),
            entry(
                "parameters_to_vector",
                "parameters: Tensors",
                Returns::Tensor,
                parameters_to_vector,
            ),
            entry(
                "vector_to_parameters",
                "vec: Tensor, parameters: Tensors",
                Returns::Nothing,
                vector_to_parameters,
            ),
        ]
    })
}

/// `torch.nn.utils.name(*positional, **keywords)`.
pub fn call(name: &str, positional: Vec<Value>, keywords: Vec<(String, Value)>) -> Result<Value> {
    api::call_in(entries(), MODULE, name, false, positional, keywords)
}
