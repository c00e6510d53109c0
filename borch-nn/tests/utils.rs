//! `torch.nn.utils` through its catalog (`borch_nn::utils::call`), against the cases frozen from
//! real torch by `tests/nn/utils_cases.py` (`tests/nn/utils_cases.json`).

use borch_tensor::api::Value;
use borch_tensor::{HostData, Tensor};
use serde_json::Value as Json;

const TOL: f64 = 1e-4;

fn number(x: &Json) -> f64 {
    match x.as_str() {
        Some("nan") => f64::NAN,
        Some("inf") => f64::INFINITY,
        Some("-inf") => f64::NEG_INFINITY,
        _ => x.as_f64().expect("a number"),
    }
}

fn values(j: &Json) -> Vec<f64> {
    j["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(number)
        .collect()
}

fn tensor(j: &Json) -> Tensor {
    let shape: Vec<usize> = j["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("dim") as usize)
        .collect();
    let data = values(j).iter().map(|&x| x as f32).collect();
    Tensor::from_host(&HostData::F32(data), &shape).expect("tensor")
}

fn close(what: &str, got: &Tensor, want: &Json) {
    let g: Vec<f32> = got.to_vec_blocking().expect("read back");
    let w = values(want);
    assert_eq!(g.len(), w.len(), "{what}: length");
    for (a, b) in g.iter().map(|&a| a as f64).zip(w) {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= TOL + TOL * b.abs();
        assert!(ok, "{what}: {a} vs torch's {b}");
    }
}

fn arg(j: &Json, tensors: &[Tensor]) -> Value {
    match j {
        Json::Object(o) if o.contains_key("tensor") => {
            Value::Tensor(tensors[o["tensor"].as_u64().expect("index") as usize].clone())
        }
        Json::Array(items) => Value::List(items.iter().map(|i| arg(i, tensors)).collect()),
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(_) | Json::String(_) => Value::Float(number(j)),
        other => panic!("argument {other}"),
    }
}

pub fn python_class(e: &borch_tensor::BorchError) -> &'static str {
    use borch_tensor::ErrorKind::*;
    match e.kind() {
        Runtime | Released | Device => "RuntimeError",
        Index => "IndexError",
        Key => "KeyError",
        Type => "TypeError",
        Value => "ValueError",
        NotImplemented => "NotImplementedError",
    }
}

#[test]
fn nn_utils_agree_with_torch() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/nn/utils_cases.json");
    let root: Json = serde_json::from_str(&std::fs::read_to_string(path).expect("cases")).unwrap();
    let cases = root["cases"].as_array().expect("cases");
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let tensors: Vec<Tensor> = case["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let x = tensor(t);
                if t["requires_grad"].as_bool() == Some(true) {
                    x.set_requires_grad(true).unwrap();
                }
                if !t["grad"].is_null() {
                    x.assign_grad(Some(tensor(&t["grad"]))).unwrap();
                }
                x
            })
            .collect();
        let keywords: Vec<(String, Value)> = case["args"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), arg(v, &tensors)))
            .collect();
        let got = borch_nn::utils::call(case["call"].as_str().unwrap(), vec![], keywords);
        if let Some(err) = case.get("error") {
            let e = got
                .err()
                .unwrap_or_else(|| panic!("{name}: torch raised, borch did not"));
            assert_eq!(python_class(&e), err["type"].as_str().unwrap(), "{name}");
            assert_eq!(e.to_string(), err["message"].as_str().unwrap(), "{name}");
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let expect = &case["expect"];
        match (&got, &expect["result"]) {
            (Value::Tensor(t), want) => close(&format!("{name}: result"), t, want),
            (Value::None, Json::Null) => {}
            (other, want) => panic!("{name}: returned {other:?}, torch {want}"),
        }
        for (i, t) in tensors.iter().enumerate() {
            close(&format!("{name}: values {i}"), t, &expect["values"][i]);
            match (t.grad(), &expect["grads"][i]) {
                (Some(g), want) if !want.is_null() => close(&format!("{name}: grad {i}"), &g, want),
                (None, Json::Null) => {}
                (g, want) => panic!("{name}: grad {i} is {g:?}, torch's {want}"),
            }
        }
    }
    println!("nn.utils: {} cases agree with torch", cases.len());
}
