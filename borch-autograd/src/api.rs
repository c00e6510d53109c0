//! `torch.autograd` as a catalog that bindings forward to (`grad`, `backward`), built from the
//! core's [`Entry`]s like `torch.nn.functional`'s, so borch-ts and borch_webgpu keep no list.

use std::sync::OnceLock;

use borch_tensor::api::{self, Args, Call, Entry, Form, Returns, Value, parse_params};
use borch_tensor::{BorchError, Result, Tensor};

/// The module name in errors (`module 'torch.autograd' has no attribute 'x'`).
pub const MODULE: &str = "torch.autograd";

/// torch takes one tensor or a sequence wherever it takes tensors here.
fn tensor_list(a: &Args, i: usize) -> Result<Vec<Tensor>> {
    match a.get(i) {
        Value::Tensor(t) => Ok(vec![t.clone()]),
        _ => a.tensors(i),
    }
}

/// `grad_outputs` / `grad_tensors`: None, a tensor, or a sequence whose items may be None.
fn optional_list(a: &Args, i: usize, n: usize) -> Result<Vec<Option<Tensor>>> {
    match a.get(i) {
        Value::None => Ok(vec![None; n]),
        Value::Tensor(t) => Ok(vec![Some(t.clone())]),
        Value::List(items) => items
            .iter()
            .map(|v| match v {
                Value::None => Ok(None),
                Value::Tensor(t) => Ok(Some(t.clone())),
                other => Err(BorchError::Type(format!(
                    "expected a Tensor or None in the gradients, not {}",
                    other.type_name()
                ))),
            })
            .collect(),
        other => Err(BorchError::Type(format!(
            "gradients must be a Tensor, a sequence of Tensors or None, not {}",
            other.type_name()
        ))),
    }
}

fn lengths_match(what: &str, outputs: usize, grads: usize) -> Result<()> {
    if outputs == grads {
        return Ok(());
    }
    Err(BorchError::Runtime(format!(
        "{what} should be a sequence of length {outputs} but got {grads}"
    )))
}

/// Derivatives read saved values without their graph, so a gradient of a gradient would miss
/// terms: refused rather than computed wrong.
const HIGHER_ORDER: &str = "create_graph=True (higher-order gradients)";

fn refuse_if(flag: bool, what: &str) -> Result<()> {
    if flag {
        return Err(BorchError::NotImplemented(format!(
            "borch's autograd does not implement {what}"
        )));
    }
    Ok(())
}

fn grad(a: &Args) -> Result<Value> {
    let outputs = tensor_list(a, 0)?;
    let inputs = tensor_list(a, 1)?;
    let grad_outputs = optional_list(a, 2, outputs.len())?;
    lengths_match("grad_outputs", outputs.len(), grad_outputs.len())?;
    refuse_if(a.bool(7)?, "is_grads_batched=True (vmap)")?;
    let materialize = a.bool(8)?;
    let allow_unused = match a.get(6) {
        Value::None => materialize,
        _ => a.bool(6)?,
    };
    if materialize && !allow_unused {
        return Err(BorchError::Value(
            "Expected allow_unused to be True or not passed when materialize_grads=True".into(),
        ));
    }
    let retain = match a.get(3) {
        Value::None => None,
        _ => Some(a.bool(3)?),
    };
    refuse_if(a.bool(4)?, HIGHER_ORDER)?;
    let grads = crate::grad(
        &outputs,
        &inputs,
        &grad_outputs,
        retain,
        false,
        allow_unused,
    )?;
    let values = grads
        .into_iter()
        .zip(&inputs)
        .map(|(g, input)| match (g, materialize) {
            (Some(g), _) => Ok(Value::Tensor(g)),
            (None, true) => input.zeros_like().map(Value::Tensor),
            (None, false) => Ok(Value::None),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Value::List(values))
}

fn backward(a: &Args) -> Result<Value> {
    let tensors = tensor_list(a, 0)?;
    // torch's deprecated name for grad_tensors.
    let given = if a.get(1).is_none() { 4 } else { 1 };
    let grads = optional_list(a, given, tensors.len())?;
    lengths_match("grad_tensors", tensors.len(), grads.len())?;
    refuse_if(!a.get(5).is_none(), "backward(inputs=...)")?;
    let create_graph = a.bool(3)?;
    refuse_if(create_graph, HIGHER_ORDER)?;
    let retain = match a.get(2) {
        Value::None => create_graph,
        _ => a.bool(2)?,
    };
    crate::engine::backward_all(&tensors, &grads, retain, create_graph)?;
    Ok(Value::None)
}

/// The catalog, built once.
pub fn entries() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        vec![
            Entry {
                name: "grad",
                form: Form::Function,
                params: parse_params(
                    "outputs: Tensors, inputs: Tensors, grad_outputs: Tensors = None, \
                     retain_graph: Bool = None, create_graph: Bool = False, \
                     only_inputs: Bool = True, allow_unused: Bool = None, \
                     is_grads_batched: Bool = False, materialize_grads: Bool = False",
                ),
                returns: Returns::Tensors,
                call: Call::Fn(grad),
            },
            Entry {
                name: "backward",
                form: Form::Function,
                params: parse_params(
                    "tensors: Tensors, grad_tensors: Tensors = None, retain_graph: Bool = None, \
                     create_graph: Bool = False, grad_variables: Tensors = None, \
                     inputs: Tensors = None",
                ),
                returns: Returns::Nothing,
                call: Call::Fn(backward),
            },
        ]
    })
}

/// `torch.autograd.name(*positional, **keywords)`.
pub fn call(name: &str, positional: Vec<Value>, keywords: Vec<(String, Value)>) -> Result<Value> {
    api::call_in(entries(), MODULE, name, false, positional, keywords)
}
