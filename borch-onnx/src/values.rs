//! torch.onnx.export's arguments as the bindings pass them (`Value`s): `args` (a tensor or a
//! list of tensors) and the keywords `input_names`, `output_names`, `dynamic_axes` (a list of
//! `[name, axes]` pairs, axes as `[axis, symbolic name]` pairs or plain axes, since the bindings
//! have no dict value) and `opset_version`.

use borch_nn::Module;
use borch_tensor::api::Value;
use borch_tensor::{BorchError, Result, Tensor};

use crate::export::{DynamicAxes, ExportOptions, Traced, trace};

fn type_err(msg: String) -> BorchError {
    BorchError::Type(format!("export(): {msg}"))
}

fn strings(key: &str, v: &Value) -> Result<Vec<String>> {
    match v {
        Value::None => Ok(Vec::new()),
        Value::List(items) => items
            .iter()
            .map(|s| match s {
                Value::Str(s) => Ok(s.clone()),
                other => Err(type_err(format!(
                    "{key} must be a list of str, not of {}",
                    other.type_name()
                ))),
            })
            .collect(),
        other => Err(type_err(format!(
            "{key} must be a list of str, not {}",
            other.type_name()
        ))),
    }
}

fn axis(v: &Value, name: &str, k: usize) -> Result<(usize, String)> {
    let index = |v: &Value| match v {
        Value::Int(i) if *i >= 0 && *i < 64 => Ok(*i as usize),
        other => Err(type_err(format!(
            "dynamic_axes['{name}']: an axis must be an int in 0..64, not {other:?}"
        ))),
    };
    match v {
        Value::List(pair) if pair.len() == 2 => match &pair[1] {
            Value::Str(s) => Ok((index(&pair[0])?, s.clone())),
            other => Err(type_err(format!(
                "dynamic_axes['{name}']: an axis name must be a str, not {}",
                other.type_name()
            ))),
        },
        // torch names the axes of the list form itself.
        v => Ok((index(v)?, format!("{name}_dynamic_axes_{}", k + 1))),
    }
}

fn dynamic_axes(v: &Value) -> Result<Option<DynamicAxes>> {
    let Value::List(entries) = v else {
        return match v {
            Value::None => Ok(None),
            other => Err(type_err(format!(
                "dynamic_axes must be a dict, not {}",
                other.type_name()
            ))),
        };
    };
    let mut out = Vec::new();
    for e in entries {
        let (Value::List(pair), true) = (e, matches!(e, Value::List(p) if p.len() == 2)) else {
            return Err(type_err(
                "dynamic_axes entries must be [name, axes] pairs".into(),
            ));
        };
        let Value::Str(name) = &pair[0] else {
            return Err(type_err("dynamic_axes keys must be str".into()));
        };
        let Value::List(axes) = &pair[1] else {
            return Err(type_err(format!(
                "dynamic_axes['{name}'] must be a dict or a list of ints"
            )));
        };
        let axes = axes
            .iter()
            .enumerate()
            .map(|(k, a)| axis(a, name, k))
            .collect::<Result<_>>()?;
        out.push((name.clone(), axes));
    }
    Ok(Some(out))
}

/// The options from torch's keywords.
pub fn options(keywords: Vec<(String, Value)>) -> Result<ExportOptions> {
    let mut o = ExportOptions::default();
    for (key, v) in keywords {
        match key.as_str() {
            "input_names" => o.input_names = strings(&key, &v)?,
            "output_names" => o.output_names = strings(&key, &v)?,
            "dynamic_axes" => o.dynamic_axes = dynamic_axes(&v)?,
            "opset_version" => {
                o.opset_version = match v {
                    Value::None => None,
                    Value::Int(i) => Some(i),
                    other => {
                        return Err(type_err(format!(
                            "opset_version must be int, not {}",
                            other.type_name()
                        )));
                    }
                }
            }
            other => {
                return Err(type_err(format!(
                    "got an unexpected keyword argument '{other}'"
                )));
            }
        }
    }
    Ok(o)
}

/// torch's `args`: one tensor, or a list (tuple) of tensors.
pub fn sample_inputs(args: &Value) -> Result<Vec<Tensor>> {
    match args {
        Value::Tensor(t) => Ok(vec![t.clone()]),
        Value::List(items) => items
            .iter()
            .map(|v| match v {
                Value::Tensor(t) => Ok(t.clone()),
                other => Err(type_err(format!(
                    "args must be Tensors, not {}",
                    other.type_name()
                ))),
            })
            .collect(),
        other => Err(type_err(format!(
            "args must be a Tensor or a tuple of Tensors, not {}",
            other.type_name()
        ))),
    }
}

/// [`trace`] from a binding's call `export(model, args, **keywords)` (the module passed
/// separately): positional `[args]`.
pub fn trace_values(
    module: &dyn Module,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Traced> {
    let [args] = positional.as_slice() else {
        return Err(type_err(format!(
            "takes 2 positional arguments (model, args) but {} were given",
            positional.len() + 1
        )));
    };
    let inputs = sample_inputs(args)?;
    let refs: Vec<&Tensor> = inputs.iter().collect();
    trace(module, &refs, &options(keywords)?)
}
