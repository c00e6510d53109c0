//! `.float()` / `.long()` / `.bool()` / `.to(dtype)` against values frozen from real torch
//! (tests/convert/cases.py writes tests/convert/cases.json), compared exactly; `.int()` and
//! `.double()` refused with errors that name the dtypes borch has.

use borch_tensor::{BorchError, DType, Tensor};
use serde_json::Value;

fn float(v: &Value) -> f32 {
    match v.as_str() {
        Some("nan") => f32::NAN,
        Some("inf") => f32::INFINITY,
        Some("-inf") => f32::NEG_INFINITY,
        _ => v.as_f64().unwrap() as f32,
    }
}

fn input(case: &Value) -> Tensor {
    let values = case["values"].as_array().unwrap();
    let n = values.len();
    match case["input_dtype"].as_str().unwrap() {
        "torch.float32" => {
            Tensor::from_slice(&values.iter().map(float).collect::<Vec<_>>(), &[n]).unwrap()
        }
        "torch.int64" => {
            let v: Vec<i64> = values.iter().map(|v| v.as_i64().unwrap()).collect();
            Tensor::from_slice(&v, &[n]).unwrap()
        }
        "torch.bool" => {
            let v: Vec<bool> = values.iter().map(|v| v.as_bool().unwrap()).collect();
            Tensor::from_slice(&v, &[n]).unwrap()
        }
        other => panic!("no input dtype {other}"),
    }
}

fn convert(x: &Tensor, method: &str) -> Tensor {
    match method {
        "float" => x.float(),
        "long" => x.long(),
        "bool" => x.bool(),
        other => panic!("no method {other}"),
    }
    .unwrap()
}

fn check(case: &Value, y: &Tensor, how: &str) {
    let expected = case["expected"].as_array().unwrap();
    let dtype = DType::from_name(case["dtype"].as_str().unwrap()).unwrap();
    assert_eq!(y.dtype(), dtype, "{how}");
    assert_eq!(y.shape(), &[expected.len()], "{how}");
    match dtype {
        DType::Float32 => {
            let got = y.to_vec_blocking::<f32>().unwrap();
            for (g, e) in got.iter().zip(expected.iter().map(float)) {
                // Exactly, sign of zero included; NaN stays NaN.
                let same = (g.is_nan() && e.is_nan()) || g.to_bits() == e.to_bits();
                assert!(same, "{how}: got {got:?}, torch {expected:?}");
            }
        }
        DType::Int64 => {
            let got = y.to_vec_blocking::<i64>().unwrap();
            let e: Vec<i64> = expected.iter().map(|v| v.as_i64().unwrap()).collect();
            assert_eq!(got, e, "{how}");
        }
        DType::Bool => {
            let got = y.to_vec_blocking::<bool>().unwrap();
            let e: Vec<bool> = expected.iter().map(|v| v.as_bool().unwrap()).collect();
            assert_eq!(got, e, "{how}");
        }
    }
}

#[test]
fn conversions_give_torchs_values() {
    let cases: Value = serde_json::from_str(include_str!("convert/cases.json")).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 11);
    for case in cases {
        let x = input(case);
        let method = case["method"].as_str().unwrap();
        let how = format!("{} {}()", case["input"], method);
        check(case, &convert(&x, method), &how);
        let dtype = DType::from_name(case["dtype"].as_str().unwrap()).unwrap();
        check(
            case,
            &x.to(dtype).unwrap(),
            &format!("{how} as to({dtype})"),
        );
    }
}

#[test]
fn int_and_double_are_refused_naming_borchs_dtypes() {
    let x = Tensor::new([1.5f32, -2.0]).unwrap();
    for (name, err) in [("int", x.int()), ("double", x.double())] {
        match err {
            Err(BorchError::NotImplemented(msg)) => {
                assert!(
                    msg.starts_with(&format!("{name}(): borch has no ")),
                    "{msg}"
                );
                assert!(msg.contains("float32, int64 and bool"), "{msg}");
            }
            other => panic!("{name}(): expected NotImplemented, got {other:?}"),
        }
    }
    let msg = x.double().unwrap_err().to_string();
    assert!(
        msg.contains("no float64") && msg.contains("use float() for float32"),
        "{msg}"
    );
    let msg = x.int().unwrap_err().to_string();
    assert!(
        msg.contains("no int32") && msg.contains("use long() for int64"),
        "{msg}"
    );
}

#[test]
fn to_the_same_dtype_keeps_the_values() {
    let x = Tensor::new([1.0f32, 2.0]).unwrap();
    let y = x.to(DType::Float32).unwrap();
    assert_eq!(y.to_vec_blocking::<f32>().unwrap(), [1.0, 2.0]);
    assert_eq!(x.float().unwrap().dtype(), DType::Float32);
}
