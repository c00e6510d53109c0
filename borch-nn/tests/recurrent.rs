//! The recurrent modules' refusals frozen from torch (`recurrent_errors` of tests/nn/cases.json,
//! written by tests/nn/recurrent_cases.py): constructor and forward calls torch refuses, with
//! torch's exception class and message, through the module catalog and `forward_values` as the
//! bindings call them. Their forward, init and structure cases run in forward.rs, init.rs and
//! structure.rs.

mod common;

use borch_tensor::ErrorKind;
use borch_tensor::api::Value;
use common::{build_checked, cases, tensor};
use serde_json::Value as Json;

fn kind_of(name: &str) -> ErrorKind {
    match name {
        "RuntimeError" => ErrorKind::Runtime,
        "ValueError" => ErrorKind::Value,
        "TypeError" => ErrorKind::Type,
        other => panic!("{other}"),
    }
}

fn argument(j: &Json) -> Value {
    match j {
        Json::Null => Value::None,
        Json::Array(items) => Value::List(items.iter().map(argument).collect()),
        Json::Object(_) => Value::Tensor(tensor(j)),
        Json::Number(n) => Value::Int(n.as_i64().expect("an int")),
        other => panic!("{other}"),
    }
}

#[test]
fn refusals_match_torch() {
    let mut failures = Vec::new();
    let all = cases();
    let errors = all["recurrent_errors"].as_array().unwrap();
    assert!(errors.len() > 20);
    for case in errors {
        let name = case["name"].as_str().unwrap();
        let result = build_checked(&case["module"]).and_then(|m| match case["inputs"].as_array() {
            None => Ok(Value::None),
            Some(inputs) => {
                let keywords = case["forward_kwargs"].as_object().map_or(Vec::new(), |o| {
                    o.iter().map(|(k, v)| (k.clone(), argument(v))).collect()
                });
                m.forward_values(inputs.iter().map(argument).collect(), keywords)
            }
        });
        let expected = case["message"].as_str().unwrap();
        match result {
            Ok(_) => failures.push(format!("{name}: accepted")),
            Err(e) => {
                if e.to_string() != expected || e.kind() != kind_of(case["kind"].as_str().unwrap())
                {
                    failures.push(format!(
                        "{name}: {:?} {e}\n   expected {} {expected}",
                        e.kind(),
                        case["kind"]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_tuple_forward_is_not_one_tensor() {
    let m = common::build(&serde_json::json!({"type": "LSTM", "args": [2, 3], "kwargs": {}}));
    let x = borch_tensor::zeros(&[1, 1, 2], borch_tensor::DType::Float32).unwrap();
    let e = m.forward(&x).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type);
    assert!(e.to_string().contains("forward_values"), "{e}");
}
