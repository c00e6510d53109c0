//! The tensor-op golden families (inplace, indexing, linalg, stats, factories) run natively
//! through the op catalog (`borch_tensor::api::call`) by the names and rules of
//! `tests/golden/bindings.json`, forward and backward, as the JS and Python runners do. (The
//! workspace's native golden runner moves onto the catalogs too; until then this test checks
//! these families.) `GOLDEN_FILTER=substring` runs a subset.

use borch_autograd::backward;
use borch_tensor::api::{Value, call};
use borch_tensor::{BorchError, DType, ErrorKind, HostData, Tensor, manual_seed};
use serde_json::Value as Json;

const FAMILIES: &[&str] = &["inplace", "indexing", "linalg", "stats", "factories"];
const ATOL: f64 = 1e-4;
const RTOL: f64 = 1e-4;

fn number(v: &Json) -> f64 {
    match v {
        Json::String(s) if s == "nan" => f64::NAN,
        Json::String(s) if s == "inf" => f64::INFINITY,
        Json::String(s) if s == "-inf" => f64::NEG_INFINITY,
        Json::Bool(b) => f64::from(u8::from(*b)),
        other => other.as_f64().unwrap_or(f64::NAN),
    }
}

fn host(v: &Json) -> (HostData, Vec<usize>) {
    let shape: Vec<usize> = v["shape"]
        .as_array()
        .map(|a| a.iter().map(|d| d.as_u64().unwrap_or(0) as usize).collect())
        .unwrap_or_default();
    let data = v["data"].as_array().cloned().unwrap_or_default();
    let h = match DType::from_name(v["dtype"].as_str().unwrap_or("float32")) {
        Some(DType::Int64) => HostData::I64(data.iter().map(|x| x.as_i64().unwrap_or(0)).collect()),
        Some(DType::Bool) => {
            HostData::Bool(data.iter().map(|x| x.as_bool().unwrap_or(false)).collect())
        }
        _ => HostData::F32(data.iter().map(|x| number(x) as f32).collect()),
    };
    (h, shape)
}

/// A golden arg as a catalog value; `{"input": k}` is input k.
fn value(v: &Json, inputs: &[Value]) -> Value {
    match v {
        Json::Null => Value::None,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) if n.is_i64() => Value::Int(n.as_i64().unwrap_or(0)),
        Json::Number(n) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        Json::String(s) if s == "nan" || s == "inf" || s == "-inf" => Value::Float(number(v)),
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(|i| value(i, inputs)).collect()),
        Json::Object(o) => match o.get("input").and_then(Json::as_u64) {
            Some(k) => inputs[k as usize].clone(),
            None => Value::Other("dict".into()),
        },
    }
}

fn referenced(v: &Json, out: &mut Vec<usize>) {
    match v {
        Json::Array(items) => items.iter().for_each(|i| referenced(i, out)),
        Json::Object(o) => out.extend(o.get("input").and_then(Json::as_u64).map(|k| k as usize)),
        _ => {}
    }
}

fn one(r: borch_tensor::Result<Value>) -> borch_tensor::Result<Tensor> {
    match r? {
        Value::Tensor(t) => Ok(t),
        other => Err(BorchError::Runtime(format!("view step gave {other:?}"))),
    }
}

/// Inputs (view chains applied through the catalog) and each float input's base.
fn inputs(c: &Json, grad: bool) -> borch_tensor::Result<(Vec<Value>, Vec<Option<Tensor>>)> {
    let mut values = Vec::new();
    let mut bases = Vec::new();
    for i in c["inputs"].as_array().into_iter().flatten() {
        if let Some(s) = i.get("scalar") {
            values.push(match i["kind"].as_str() {
                Some("bool") => Value::Bool(s.as_bool().unwrap_or(false)),
                Some("int") => Value::Int(s.as_i64().unwrap_or(0)),
                _ => Value::Float(number(s)),
            });
            bases.push(None);
            continue;
        }
        let (data, shape) = host(&i["tensor"]);
        let base = Tensor::from_host(&data, &shape)?;
        let float = base.dtype() == DType::Float32;
        if grad && float {
            base.set_requires_grad(true)?;
        }
        let mut t = base.clone();
        for step in i["view"].as_array().into_iter().flatten() {
            let step = step.as_array().cloned().unwrap_or_default();
            let name = step[0].as_str().unwrap_or_default();
            let mut pos = vec![Value::Tensor(t.clone())];
            pos.extend(step[1..].iter().map(|v| value(v, &[])));
            t = one(call(name, true, pos, vec![]))?;
        }
        values.push(Value::Tensor(t));
        bases.push(float.then_some(base));
    }
    Ok((values, bases))
}

fn run(c: &Json, rules: &Json, ins: Vec<Value>) -> borch_tensor::Result<Vec<Tensor>> {
    let op = c["op"].as_str().unwrap_or_default();
    let rule = &rules["ops"][op];
    let name = rule["call"].as_str().unwrap_or(op);
    let function = rule["form"].as_str() == Some("function");
    let mut used = Vec::new();
    for v in c["args"].as_object().into_iter().flatten().map(|(_, v)| v) {
        referenced(v, &mut used);
    }
    let mut keywords: Vec<(String, Value)> = Vec::new();
    let mut positional = Vec::new();
    let own: Vec<Value> = ins
        .iter()
        .enumerate()
        .filter(|(k, _)| !used.contains(k))
        .map(|(_, v)| v.clone())
        .collect();
    match &rule["inputs"] {
        Json::String(s) if s == "list" => positional.push(Value::List(own)),
        Json::Array(names) => {
            for (n, v) in names.iter().zip(own) {
                match n.as_str() {
                    Some("self") => positional.insert(0, v),
                    Some(k) => keywords.push((k.to_string(), v)),
                    None => {}
                }
            }
        }
        _ => positional.extend(own),
    }
    let rename = |k: &str| rule["rename"][k].as_str().unwrap_or(k).to_string();
    let order: Vec<String> = rule["positional"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let named: Vec<Value> = order
        .iter()
        .map(|k| value(&c["args"][k.as_str()], &ins))
        .collect();
    if rule["args_first"].as_bool() == Some(true) {
        positional.splice(0..0, named);
    } else {
        positional.extend(named);
    }
    for (k, v) in c["args"].as_object().into_iter().flatten() {
        if k == "seed" || order.contains(k) {
            continue;
        }
        keywords.push((rename(k), value(v, &ins)));
    }
    for (k, v) in rule["fixed"].as_object().into_iter().flatten() {
        keywords.push((k.clone(), value(v, &ins)));
    }
    if let Some(seed) = c["args"]["seed"].as_u64() {
        manual_seed(seed);
    }
    match call(name, !function, positional, keywords)? {
        Value::Tensor(t) => Ok(vec![t]),
        Value::List(items) => items
            .into_iter()
            .map(|v| match v {
                Value::Tensor(t) => Ok(t),
                other => Err(BorchError::Runtime(format!("output {other:?}"))),
            })
            .collect(),
        Value::Int(i) => Ok(vec![Tensor::from_host(&HostData::I64(vec![i]), &[])?]),
        other => Err(BorchError::Runtime(format!("output {other:?}"))),
    }
}

fn compare(got: &[Tensor], expect: &[Json]) -> Result<(), String> {
    if got.len() != expect.len() {
        return Err(format!(
            "{} outputs, torch gave {}",
            got.len(),
            expect.len()
        ));
    }
    for (i, (g, e)) in got.iter().zip(expect).enumerate() {
        let (want, shape) = host(e);
        if g.dtype() != want.dtype() {
            return Err(format!(
                "output {i}: dtype {} but torch {}",
                g.dtype(),
                want.dtype()
            ));
        }
        if g.shape() != shape.as_slice() {
            return Err(format!(
                "output {i}: shape {:?} but torch {shape:?}",
                g.shape()
            ));
        }
        let have = g
            .to_host_blocking()
            .map_err(|e| format!("readback failed: {e}"))?;
        let exact = !matches!(want, HostData::F32(_));
        for (k, (a, b)) in have.to_f64().iter().zip(want.to_f64()).enumerate() {
            let ok = if exact {
                *a == b
            } else if b.is_nan() {
                a.is_nan()
            } else if b.is_infinite() {
                *a == b
            } else {
                (a - b).abs() <= ATOL + RTOL * b.abs()
            };
            if !ok {
                return Err(format!("output {i} element {k}: {a} but torch {b}"));
            }
        }
    }
    Ok(())
}

fn kind(torch_type: &str) -> Option<ErrorKind> {
    Some(match torch_type {
        "RuntimeError" => ErrorKind::Runtime,
        "IndexError" => ErrorKind::Index,
        "TypeError" => ErrorKind::Type,
        "ValueError" => ErrorKind::Value,
        "NotImplementedError" => ErrorKind::NotImplemented,
        _ => return None,
    })
}

fn error(got: &BorchError, expect: &Json) -> Result<(), String> {
    let torch_type = expect["type"].as_str().unwrap_or_default();
    let contains = expect["contains"].as_str().unwrap_or_default();
    let message = got.to_string();
    if kind(torch_type) != Some(got.kind()) {
        return Err(format!(
            "error kind {:?} ({message}) but torch raised {torch_type}",
            got.kind()
        ));
    }
    if !message.contains(contains) {
        return Err(format!("message «{message}» but torch said «{contains}»"));
    }
    Ok(())
}

fn forward(c: &Json, rules: &Json) -> Result<(), String> {
    let (ins, _) = inputs(c, false).map_err(|e| format!("inputs: {e}"))?;
    let result = run(c, rules, ins).and_then(|outs| {
        // Index errors surface at the next read.
        for t in &outs {
            t.to_host_blocking()?;
        }
        Ok(outs)
    });
    match (result, c.get("expect"), c.get("error")) {
        (Ok(got), Some(e), _) => compare(&got, e.as_array().map(Vec::as_slice).unwrap_or_default()),
        (Err(e), _, Some(want)) => error(&e, want),
        (Ok(_), _, Some(want)) => Err(format!("succeeded but torch raised {}", want["type"])),
        (Err(e), _, None) => Err(format!("failed: {e}")),
        (Ok(_), None, None) => Err("no expectation".into()),
    }
}

fn backward_case(c: &Json, rules: &Json) -> Result<(), String> {
    let (ins, bases) = inputs(c, true).map_err(|e| format!("inputs: {e}"))?;
    let outs = run(c, rules, ins).map_err(|e| format!("forward failed: {e}"))?;
    let out = outs.first().ok_or("no output")?;
    let (data, shape) = host(&c["grad_output"]);
    let go = Tensor::from_host(&data, &shape).map_err(|e| e.to_string())?;
    backward(out, Some(&go), false).map_err(|e| format!("backward: {e}"))?;
    let grads = c["grads"].as_array().cloned().unwrap_or_default();
    for (i, (base, want)) in bases.iter().zip(&grads).enumerate() {
        match (base.as_ref().and_then(Tensor::grad), want.is_null()) {
            (None, true) => {}
            (Some(_), true) => return Err(format!("input {i} got a gradient, torch none")),
            (None, false) => return Err(format!("input {i} got no gradient")),
            (Some(g), false) => compare(&[g], std::slice::from_ref(want))
                .map_err(|m| format!("grad of input {i}: {m}"))?,
        }
    }
    Ok(())
}

#[test]
fn golden_tensor_ops() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let text = std::fs::read_to_string(root.join("golden.json")).expect("golden.json");
    let golden: Json = serde_json::from_str(&text).expect("golden.json parses");
    let rules: Json = serde_json::from_str(
        &std::fs::read_to_string(root.join("bindings.json")).expect("bindings.json"),
    )
    .expect("bindings.json parses");
    let filter = std::env::var("GOLDEN_FILTER").unwrap_or_default();
    let (mut agree, mut total, mut back) = (0, 0, 0);
    let mut bad = Vec::new();
    for c in golden["cases"].as_array().into_iter().flatten() {
        let family = c["family"].as_str().unwrap_or_default();
        let name = c["name"].as_str().unwrap_or_default();
        if !FAMILIES.contains(&family) || !name.contains(&filter) {
            continue;
        }
        total += 1;
        let is_back = c["kind"].as_str() == Some("backward");
        back += usize::from(is_back);
        let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if is_back {
                backward_case(c, &rules)
            } else {
                forward(c, &rules)
            }
        }))
        .unwrap_or_else(|_| Err("panicked".into()));
        // A pending index error must not leak into the next case.
        let _ = pollster::block_on(borch_tensor::check_index_errors(
            &borch_tensor::default_device().expect("device"),
        ));
        match verdict {
            Ok(()) => agree += 1,
            Err(why) => bad.push(format!("{name}: {why}")),
        }
    }
    for b in &bad {
        println!("DISAGREE {b}");
    }
    println!(
        "golden[tensor ops]: {agree} agreeing / {total} cases ({back} backward), {} disagreeing",
        bad.len()
    );
    assert!(bad.is_empty(), "{} cases disagree", bad.len());
}
