//! Shared by the tests that replay `tests/nn/cases.json` (frozen from real torch by
//! `tests/nn/cases.py`): reading tensors, building modules from their specs (through the module
//! catalog), comparing.

#![allow(dead_code)]

use borch_nn::api::modules::build_module;
use borch_nn::*;
use borch_tensor::api::Value;
use borch_tensor::{DType, HostData, Tensor};
use serde_json::Value as Json;

pub const ATOL: f64 = 1e-4;
pub const RTOL: f64 = 1e-4;

/// The frozen cases.
pub fn cases() -> Json {
    fixture("cases.json", "cases.py")
}

/// `tests/nn/<file>`, written by `tests/nn/<script>`, parsed.
pub fn fixture(file: &str, script: &str) -> Json {
    let path = format!("{}/../tests/nn/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("tests/nn/{file} (run tests/nn/{script}): {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("tests/nn/{file} parses: {e}"))
}

fn number(x: &Json) -> f64 {
    match x {
        Json::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => panic!("not a number: {other}"),
        },
        Json::Bool(b) => f64::from(u8::from(*b)),
        _ => x.as_f64().expect("number"),
    }
}

pub fn shape(j: &Json) -> Vec<usize> {
    j.as_array()
        .expect("shape")
        .iter()
        .map(|x| x.as_u64().expect("dim") as usize)
        .collect()
}

/// The values of a frozen tensor, as f64.
pub fn values(j: &Json) -> Vec<f64> {
    j["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(number)
        .collect()
}

/// A frozen tensor.
pub fn tensor(j: &Json) -> Tensor {
    let s = shape(&j["shape"]);
    let v = values(j);
    let host = match j["dtype"].as_str().expect("dtype") {
        "float32" => HostData::F32(v.iter().map(|&x| x as f32).collect()),
        "int64" => HostData::I64(v.iter().map(|&x| x as i64).collect()),
        "bool" => HostData::Bool(v.iter().map(|&x| x != 0.0).collect()),
        other => panic!("dtype {other}"),
    };
    Tensor::from_host(&host, &s).expect("tensor")
}

/// A state dict frozen as `[[name, tensor], …]`.
pub fn state_dict(j: &Json) -> StateDict {
    j.as_array()
        .expect("state dict")
        .iter()
        .map(|e| (e[0].as_str().expect("key").to_string(), tensor(&e[1])))
        .collect()
}

/// The largest violation of `|a - e| <= atol + rtol |e|` (NaN and infinities must match), or
/// `None` when every element agrees.
pub fn mismatch(actual: &[f64], expected: &[f64]) -> Option<String> {
    if actual.len() != expected.len() {
        return Some(format!(
            "{} values, expected {}",
            actual.len(),
            expected.len()
        ));
    }
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let ok = if e.is_nan() {
            a.is_nan()
        } else if e.is_infinite() {
            a == e
        } else {
            (a - e).abs() <= ATOL + RTOL * e.abs()
        };
        if !ok {
            return Some(format!("element {i}: got {a}, expected {e}"));
        }
    }
    None
}

/// Compare a tensor with a frozen one (shape and values).
pub fn compare(what: &str, actual: &Tensor, expected: &Json) -> Option<String> {
    let s = shape(&expected["shape"]);
    if actual.shape() != s.as_slice() {
        return Some(format!(
            "{what}: shape {:?}, expected {s:?}",
            actual.shape()
        ));
    }
    let host = actual.to_host_blocking().expect("readback");
    mismatch(&host.to_f64(), &values(expected)).map(|m| format!("{what}: {m}"))
}

pub fn dtype_of(t: &Tensor) -> DType {
    t.dtype()
}

/// A spec's argument as a catalog value: a frozen tensor (`{shape, dtype, data}`) as a tensor.
pub fn value(j: &Json) -> Value {
    match j {
        Json::Null => Value::None,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().expect("number")),
        },
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(value).collect()),
        Json::Object(_) => Value::Tensor(tensor(j)),
    }
}

fn children(spec: &Json) -> Vec<(Option<String>, Box<dyn Module>)> {
    spec["children"]
        .as_array()
        .expect("children")
        .iter()
        .map(|c| match c {
            Json::Array(pair) => (
                Some(pair[0].as_str().expect("name").to_string()),
                build(&pair[1]),
            ),
            s => (None, build(s)),
        })
        .collect()
}

/// The module a spec describes, built as torch builds it (drawing its default initialisation):
/// containers from their children, every other class by name through the module catalog.
pub fn build(spec: &Json) -> Box<dyn Module> {
    let kind = spec["type"].as_str().expect("type");
    match kind {
        "Sequential" => {
            let kids = children(spec);
            if kids.iter().any(|(n, _)| n.is_some()) {
                Box::new(Sequential::from_named(
                    kids.into_iter().map(|(n, m)| (n.unwrap(), m)).collect(),
                ))
            } else {
                Box::new(Sequential::new(kids.into_iter().map(|(_, m)| m).collect()))
            }
        }
        "ModuleList" => Box::new(ModuleList::new(
            children(spec).into_iter().map(|(_, m)| m).collect(),
        )),
        "ModuleDict" => Box::new(ModuleDict::new(
            children(spec)
                .into_iter()
                .map(|(n, m)| (n.expect("name"), m))
                .collect(),
        )),
        "TransformerEncoder" | "TransformerDecoder" => stack(kind, spec),
        _ => {
            let positional = spec["args"]
                .as_array()
                .map_or(Vec::new(), |a| a.iter().map(value).collect());
            let keywords = spec["kwargs"].as_object().map_or(Vec::new(), |o| {
                o.iter().map(|(k, v)| (k.clone(), value(v))).collect()
            });
            build_module(kind, positional, keywords).unwrap_or_else(|e| panic!("{kind}: {e}"))
        }
    }
}

/// A catalog class's spec built by name, its error returned (no containers).
pub fn build_checked(spec: &Json) -> borch_tensor::Result<Box<dyn Module>> {
    let kind = spec["type"].as_str().expect("type");
    let positional = spec["args"]
        .as_array()
        .map_or(Vec::new(), |a| a.iter().map(value).collect());
    let keywords = spec["kwargs"].as_object().map_or(Vec::new(), |o| {
        o.iter().map(|(k, v)| (k.clone(), value(v))).collect()
    });
    build_module(kind, positional, keywords)
}

/// TransformerEncoder / TransformerDecoder: their layer (and norm) are module specs, built and
/// handed to the core's catalog of classes taking modules as a binding does (`build_stack`, which
/// deep-copies them).
fn stack(kind: &str, spec: &Json) -> Box<dyn Module> {
    let layer = build(&spec["args"][0]);
    let kw = &spec["kwargs"];
    let norm = kw.get("norm").filter(|n| !n.is_null()).map(build);
    let positional = spec["args"]
        .as_array()
        .map_or(Vec::new(), |a| a[1..].iter().map(value).collect());
    let keywords = kw.as_object().map_or(Vec::new(), |o| {
        o.iter()
            .filter(|(k, _)| k.as_str() != "norm")
            .map(|(k, v)| (k.clone(), value(v)))
            .collect()
    });
    borch_nn::api::modules::stacks::build_stack(
        kind,
        &[Some(&*layer), norm.as_deref()],
        positional,
        keywords,
    )
    .unwrap_or_else(|e| panic!("{kind}: {e}"))
}

static RNG: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Tests draw from the process-wide generator after `manual_seed`; holding this keeps tests of
/// one binary (which run in parallel threads) from drawing in between.
pub fn rng_lock() -> std::sync::MutexGuard<'static, ()> {
    RNG.lock().unwrap_or_else(|p| p.into_inner())
}
