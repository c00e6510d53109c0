//! The loralib/torch fixture `tests/nn/lora_cases.json` (made by `tests/nn/lora_cases.py`) and
//! its readers, shared by the LoRA tests.

use borch_tensor::{Result, Tensor};
use serde_json::Value as Json;

pub fn fixture() -> Json {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/nn/lora_cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json")
}

pub fn floats(j: &Json) -> Vec<f32> {
    let a = j.as_array().expect("array");
    a.iter().map(|v| v.as_f64().expect("num") as f32).collect()
}

pub fn shape(j: &Json) -> Vec<usize> {
    let a = j.as_array().expect("shape");
    a.iter()
        .map(|v| v.as_u64().expect("dim") as usize)
        .collect()
}

/// The largest absolute difference between `got` and the fixture's `want`, at most `tol`.
pub fn close(what: &str, got: &Tensor, want: &Json, tol: f32) -> Result<f32> {
    let (got, want) = (got.to_vec_blocking::<f32>()?, floats(want));
    assert_eq!(got.len(), want.len(), "{what}: length");
    let worst = got
        .iter()
        .zip(&want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f32::max);
    assert!(worst <= tol, "{what}: max diff {worst}");
    Ok(worst)
}
