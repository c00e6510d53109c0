//! `nn.utils.rnn.pad_sequence` against torch (tests/nn/rnn_utils_cases.json, made by
//! tests/nn/rnn_utils_cases.py): outputs, each sequence's gradient, torch's errors.

use borch_autograd::backward;
use borch_nn::utils::rnn::pad_sequence;
use borch_tensor::{BorchError, DType, Tensor};
use serde_json::Value as Json;

fn tensor(spec: &Json) -> Tensor {
    let shape: Vec<usize> = spec["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    let data: Vec<f32> = spec["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    let t = Tensor::from_slice(&data, &shape).unwrap();
    match spec["dtype"].as_str().unwrap() {
        "int64" => t.to_dtype(DType::Int64).unwrap(),
        _ => t,
    }
}

fn compare(label: &str, got: &Tensor, want: &Json, out: &mut Vec<String>) {
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    if got.shape() != shape {
        out.push(format!("{label}: shape {:?}, torch {shape:?}", got.shape()));
        return;
    }
    let dtype = want["dtype"].as_str().unwrap();
    if got.dtype().name() != dtype {
        out.push(format!(
            "{label}: dtype {}, torch {dtype}",
            got.dtype().name()
        ));
    }
    let got = got
        .to_dtype(DType::Float32)
        .unwrap()
        .to_vec_blocking::<f32>()
        .unwrap();
    for (i, w) in want["data"].as_array().unwrap().iter().enumerate() {
        let w = w.as_f64().unwrap() as f32;
        if (got[i] - w).abs() > 1e-4 + 1e-4 * w.abs() {
            out.push(format!("{label}[{i}]: {} vs torch {w}", got[i]));
            return;
        }
    }
}

#[test]
fn pad_sequence_matches_torch() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/nn/rnn_utils_cases.json"
    );
    let data: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut failures = Vec::new();
    let cases = data["cases"].as_array().unwrap();
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let seqs: Vec<Tensor> = c["sequences"]
            .as_array()
            .unwrap()
            .iter()
            .map(tensor)
            .collect();
        let float = seqs.first().is_some_and(|s| s.dtype() == DType::Float32);
        for s in seqs.iter().filter(|_| float) {
            s.set_requires_grad(true).unwrap();
        }
        let kw = &c["kwargs"];
        let result = pad_sequence(
            &seqs,
            kw["batch_first"].as_bool().unwrap_or(false),
            kw["padding_value"].as_f64().unwrap_or(0.0),
            kw["padding_side"].as_str().unwrap_or("right"),
        );
        let mut out = Vec::new();
        match (result, c.get("error")) {
            (Err(BorchError::Runtime(msg)), Some(e)) => {
                if e["type"] != "RuntimeError" || e["message"] != msg.as_str() {
                    out.push(format!("RuntimeError {msg:?}, torch {e}"));
                }
            }
            (Err(e), _) => out.push(format!("error {e:?}")),
            (Ok(_), Some(e)) => out.push(format!("accepted, torch raised {e}")),
            (Ok(y), None) => {
                compare("output", &y, &c["output"], &mut out);
                if float {
                    let g = tensor(&c["gout"]);
                    let loss = y.mul(&g).unwrap().sum(None, false).unwrap();
                    backward(&loss, None, false).unwrap();
                    for (i, (s, want)) in
                        seqs.iter().zip(c["grads"].as_array().unwrap()).enumerate()
                    {
                        match s.grad() {
                            Some(gr) => compare(&format!("grad {i}"), &gr, want, &mut out),
                            None => out.push(format!("grad {i}: none")),
                        }
                    }
                }
            }
        }
        failures.extend(out.into_iter().map(|m| format!("{name}: {m}")));
    }
    assert!(cases.len() >= 12);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
