//! `torch.autograd.grad` / `backward` through the catalog (`borch_autograd::api::call`),
//! against the cases frozen from real torch by `tests/nn/utils_cases.py`
//! (`tests/autograd/api_cases.json`). Each case names its graph (`expr`), built here from the
//! case's tensors `x` and `w` as the script builds it.

use borch_tensor::api::Value;
use borch_tensor::{ErrorKind, HostData, Result, Tensor};
use serde_json::Value as Json;

const TOL: f64 = 1e-4;

fn values(j: &Json) -> Vec<f64> {
    j["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|x| x.as_f64().expect("finite"))
        .collect()
}

fn tensor(data: &[f64]) -> Tensor {
    let host = HostData::F32(data.iter().map(|&x| x as f32).collect());
    Tensor::from_host(&host, &[data.len()]).expect("tensor")
}

fn close(what: &str, got: &Tensor, want: &Json) {
    let g: Vec<f32> = got.to_vec_blocking().expect("read back");
    let w = values(want);
    assert_eq!(g.len(), w.len(), "{what}: length");
    for (a, b) in g.iter().map(|&a| a as f64).zip(w) {
        assert!(
            (a - b).abs() <= TOL + TOL * b.abs(),
            "{what}: {a} vs torch's {b}"
        );
    }
}

fn graph(expr: &str, x: &Tensor, w: &Tensor) -> Result<Value> {
    let sum = |t: Tensor| t.sum(None, false);
    Ok(match expr {
        "sin_mul_sum" => Value::Tensor(sum(x.mul(w)?.sin()?)?),
        "mul" => Value::Tensor(x.mul(w)?),
        "double_sum" => Value::Tensor(sum(x.mul(2.0)?)?),
        "cube_sum" => Value::Tensor(sum(x.mul(x)?.mul(x)?)?),
        "mul_sum_and_square_sum" => Value::List(vec![
            Value::Tensor(sum(x.mul(w)?)?),
            Value::Tensor(sum(x.mul(x)?)?),
        ]),
        other => panic!("graph {other}"),
    })
}

fn arg(j: &Json, tensors: &[Tensor]) -> Result<Value> {
    Ok(match j {
        Json::Object(o) if o.contains_key("tensor") => {
            Value::Tensor(tensors[o["tensor"].as_u64().unwrap() as usize].clone())
        }
        Json::Object(o) if o.contains_key("expr") => {
            graph(o["expr"].as_str().unwrap(), &tensors[0], &tensors[1])?
        }
        Json::Object(o) if o.contains_key("const") => Value::Tensor(tensor(
            &o["const"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect::<Vec<_>>(),
        )),
        Json::Array(items) => Value::List(
            items
                .iter()
                .map(|i| arg(i, tensors))
                .collect::<Result<_>>()?,
        ),
        Json::Bool(b) => Value::Bool(*b),
        other => panic!("argument {other}"),
    })
}

fn run(case: &Json, tensors: &[Tensor]) -> Result<Value> {
    let args = case["args"].as_object().unwrap();
    let mut keywords = Vec::new();
    for (k, v) in args.iter().filter(|(k, _)| *k != "twice") {
        keywords.push((k.clone(), arg(v, tensors)?));
    }
    let call = case["call"].as_str().unwrap();
    let first = borch_autograd::api::call(call, vec![], keywords)?;
    if args.get("twice").is_none() {
        return Ok(first);
    }
    let Value::List(gs) = first else {
        panic!("grad returns a list")
    };
    let Value::Tensor(g) = &gs[0] else {
        panic!("a gradient")
    };
    let again = vec![
        ("outputs".to_string(), Value::Tensor(g.sum(None, false)?)),
        ("inputs".to_string(), Value::Tensor(tensors[0].clone())),
    ];
    borch_autograd::api::call("grad", vec![], again)
}

fn python_class(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Type => "TypeError",
        ErrorKind::Value => "ValueError",
        ErrorKind::NotImplemented => "NotImplementedError",
        ErrorKind::Index => "IndexError",
        _ => "RuntimeError",
    }
}

#[test]
fn autograd_functions_agree_with_torch() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/autograd/api_cases.json"
    );
    let root: Json = serde_json::from_str(&std::fs::read_to_string(path).expect("cases")).unwrap();
    let cases = root["cases"].as_array().unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let tensors: Vec<Tensor> = case["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let x = tensor(&values(t));
                x.set_requires_grad(true).unwrap();
                x
            })
            .collect();
        let got = run(case, &tensors);
        if let Some(err) = case.get("error") {
            let e = got
                .err()
                .unwrap_or_else(|| panic!("{name}: torch raised, borch did not"));
            assert_eq!(
                python_class(e.kind()),
                err["type"].as_str().unwrap(),
                "{name}"
            );
            assert_eq!(e.to_string(), err["message"].as_str().unwrap(), "{name}");
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let expect = &case["expect"];
        match (&got, &expect["result"]) {
            (Value::List(items), Json::Array(want)) => {
                assert_eq!(items.len(), want.len(), "{name}: outputs");
                for (i, (g, w)) in items.iter().zip(want).enumerate() {
                    match (g, w) {
                        (Value::Tensor(t), w) if !w.is_null() => {
                            close(&format!("{name}: {i}"), t, w)
                        }
                        (Value::None, Json::Null) => {}
                        (g, w) => panic!("{name}: output {i} {g:?}, torch's {w}"),
                    }
                }
            }
            (Value::None, Json::Null) => {}
            (g, w) => panic!("{name}: {g:?}, torch's {w}"),
        }
        for (i, t) in tensors.iter().enumerate() {
            match (t.grad(), &expect["grads"][i]) {
                (Some(g), w) if !w.is_null() => close(&format!("{name}: .grad {i}"), &g, w),
                (None, Json::Null) => {}
                (g, w) => panic!("{name}: .grad {i} {g:?}, torch's {w}"),
            }
        }
    }
    println!("autograd: {} cases agree with torch", cases.len());
}

#[test]
fn higher_order_gradients_are_refused() {
    let x = tensor(&[1.0, 2.0]);
    x.set_requires_grad(true).unwrap();
    let y = x.mul(&x).unwrap().sum(None, false).unwrap();
    let keywords = vec![
        ("outputs".to_string(), Value::Tensor(y)),
        ("inputs".to_string(), Value::Tensor(x)),
        ("create_graph".to_string(), Value::Bool(true)),
    ];
    let e = borch_autograd::api::call("grad", vec![], keywords).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotImplemented);
    assert!(e.to_string().contains("create_graph=True"), "{e}");
}
