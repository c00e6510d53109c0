//! Reading golden.json: cases, their inputs as catalog values (tensors through their view chain,
//! or numbers) and golden numbers as the catalog's values.

use borch_tensor::api::{self, Value};
use borch_tensor::{DType, HostData, Result, Tensor};
use serde_json::Value as Json;

pub struct Case {
    pub name: String,
    pub op: String,
    pub family: String,
    pub inputs: Vec<Json>,
    pub args: serde_json::Map<String, Json>,
    pub expect: Option<Vec<Json>>,
    pub error: Option<Json>,
    /// Backward cases: the gradient fed to `out[0]` and torch's gradient of each input's base.
    pub backward: Option<(Json, Vec<Json>)>,
}

pub fn load(path: &std::path::Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).expect("golden.json is committed");
    let root: Json = serde_json::from_str(&text).expect("golden.json parses");
    root["cases"]
        .as_array()
        .expect("cases array")
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap_or_default().to_string(),
            op: c["op"].as_str().unwrap_or_default().to_string(),
            family: c["family"].as_str().unwrap_or_default().to_string(),
            inputs: c["inputs"].as_array().cloned().unwrap_or_default(),
            args: c["args"].as_object().cloned().unwrap_or_default(),
            expect: c["expect"].as_array().cloned(),
            error: c.get("error").filter(|e| !e.is_null()).cloned(),
            backward: (c["kind"].as_str() == Some("backward")).then(|| {
                (
                    c["grad_output"].clone(),
                    c["grads"].as_array().cloned().unwrap_or_default(),
                )
            }),
        })
        .collect()
}

pub fn number(v: &Json) -> f64 {
    match v {
        Json::String(s) if s == "nan" => f64::NAN,
        Json::String(s) if s == "inf" => f64::INFINITY,
        Json::String(s) if s == "-inf" => f64::NEG_INFINITY,
        Json::Bool(b) => f64::from(u8::from(*b)),
        other => other.as_f64().unwrap_or(f64::NAN),
    }
}

/// A golden value as the catalog's: a JSON int is an int and a JSON float a float even when it
/// is a whole number (`2.0` is Python's float, as golden.json writes it); `"nan"`, `"inf"`,
/// `"-inf"` are those floats; lists are lists.
pub fn value(v: &Json) -> Value {
    match v {
        Json::Null => Value::None,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) if matches!(s.as_str(), "nan" | "inf" | "-inf") => Value::Float(number(v)),
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(value).collect()),
        Json::Object(_) => Value::Other("dict".into()),
    }
}

pub fn dtype(name: &str) -> DType {
    DType::from_name(name).unwrap_or_else(|| panic!("golden dtype {name} unknown"))
}

/// An encoded tensor's host data and shape.
pub fn host(v: &Json) -> (HostData, Vec<usize>) {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .map(|a| a.iter().map(|d| d.as_u64().unwrap_or(0) as usize).collect())
        .unwrap_or_default();
    let data = v["data"].as_array().cloned().unwrap_or_default();
    let host = match dtype(v["dtype"].as_str().unwrap_or("float32")) {
        DType::Float32 => HostData::F32(data.iter().map(|x| number(x) as f32).collect()),
        DType::Int64 => HostData::I64(data.iter().map(|x| x.as_i64().unwrap_or(0)).collect()),
        DType::Bool => HostData::Bool(data.iter().map(|x| x.as_bool().unwrap_or(false)).collect()),
    };
    (host, shape)
}

/// An encoded tensor as a new leaf.
pub fn tensor(v: &Json) -> Result<Tensor> {
    let (data, shape) = host(v);
    Tensor::from_host(&data, &shape)
}

/// One view step `[name, a, b, …]`: the method call `name(a, b, …)` through the op catalog, as
/// families/common.py's apply_view does in torch.
fn view_step(t: Tensor, step: &[Json]) -> Result<Tensor> {
    let name = step.first().and_then(Json::as_str).unwrap_or_default();
    let mut positional = vec![Value::Tensor(t)];
    positional.extend(step.iter().skip(1).map(value));
    match api::call(name, true, positional, Vec::new())? {
        Value::Tensor(t) => Ok(t),
        other => panic!("view step {name} gave a {}", other.type_name()),
    }
}

/// A case's inputs as values (tensors through their view chain, numbers as their kind says)
/// and, per input, the float tensor's base (before its view chain), which requires grad when
/// `requires_grad`.
pub fn inputs(inputs: &[Json], requires_grad: bool) -> Result<(Vec<Value>, Vec<Option<Tensor>>)> {
    let mut values = Vec::new();
    let mut bases = Vec::new();
    for i in inputs {
        if let Some(s) = i.get("scalar") {
            values.push(match i["kind"].as_str() {
                Some("bool") => Value::Bool(s.as_bool().unwrap_or(false)),
                Some("int") => Value::Int(s.as_i64().unwrap_or(0)),
                _ => Value::Float(number(s)),
            });
            bases.push(None);
            continue;
        }
        let base = tensor(&i["tensor"])?;
        let float = base.dtype() == DType::Float32;
        if requires_grad && float {
            base.set_requires_grad(true)?;
        }
        let mut t = base.clone();
        for step in i["view"].as_array().into_iter().flatten() {
            t = view_step(t, step.as_array().map(Vec::as_slice).unwrap_or_default())?;
        }
        values.push(Value::Tensor(t));
        bases.push(float.then_some(base));
    }
    Ok((values, bases))
}
