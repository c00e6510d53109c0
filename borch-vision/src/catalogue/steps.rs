//! The loader's steps after the manifest, each defined once and shared by every surface: the
//! native [`super::load_from`] and the async [`super::load_from_async`] (what borch-ts and
//! borch_webgpu await in the browser) are made of these same functions. Only the sample's
//! readback differs (blocking natively, awaited on wasm), so the comparison is its own step.

use borch_autograd::no_grad;
use borch_nn::Module;
use borch_nn::serialization;
use borch_tensor::api::Value;
use borch_tensor::{Result, Tensor};

use super::manifest::{Manifest, sha256_hex};
use crate::models::catalog;

/// Steps 2: `weights size`, then `weights sha256`: the bytes are the ones the manifest names.
pub fn check_weights(manifest: &Manifest, weights: &[u8]) -> Result<()> {
    let w = &manifest.weights;
    if weights.len() as u64 != w.bytes {
        return Err(manifest.error(
            "weights size",
            format!("expected {} bytes, got {}", w.bytes, weights.len()),
        ));
    }
    let digest = sha256_hex(weights);
    if !digest.eq_ignore_ascii_case(&w.sha256) {
        return Err(manifest.error(
            "weights sha256",
            format!(
                "mismatch: expected {}, got {digest}",
                w.sha256.to_lowercase()
            ),
        ));
    }
    Ok(())
}

/// Step 3, `build`: the model of the manifest's architecture, built with its keyword arguments.
pub fn build(manifest: &Manifest) -> Result<Box<dyn Module>> {
    let a = &manifest.architecture;
    let keywords = a
        .kwargs
        .iter()
        .map(|(k, v)| {
            Ok((
                k.clone(),
                value_of(v).map_err(|e| manifest.error("build", e))?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    catalog::build_model(&a.name, Vec::new(), keywords).map_err(|e| manifest.error("build", e))
}

/// Step 4, `weights`: the safetensors bytes decode and load with `load_state_dict(strict=True)`;
/// the model is left in eval mode.
pub fn load_weights(manifest: &Manifest, model: &mut dyn Module, weights: &[u8]) -> Result<()> {
    let state = serialization::load(weights).map_err(|e| manifest.error("weights", e))?;
    model
        .load_state_dict(&state, true)
        .map_err(|e| manifest.error("weights", e))?;
    model.eval();
    Ok(())
}

/// Steps 1 to 4, which read nothing back from the device: the manifest's own checks, the
/// weights' size and digest, the build and the weights' load. The model still has to pass the
/// sample ([`sample_output`], then [`compare_sample`]) before it counts as loaded.
pub fn prepare(manifest: &Manifest, weights: &[u8]) -> Result<Box<dyn Module>> {
    manifest.check()?;
    check_weights(manifest, weights)?;
    let mut model = build(manifest)?;
    load_weights(manifest, model.as_mut(), weights)?;
    Ok(model)
}

/// Step 5's device part: the model's output for the sample input, under `no_grad` (not read
/// back yet).
pub fn sample_output(manifest: &Manifest, model: &dyn Module) -> Result<Tensor> {
    let s = &manifest.sample;
    no_grad(|| model.forward(&Tensor::from_slice(&s.input, &s.input_shape)?)).map_err(|e| {
        manifest.error(
            "sample",
            format!("the model failed on the sample input: {e}"),
        )
    })
}

/// Step 5's comparison: the output read back (`shape`, row-major `values`) against the expected
/// one; the largest absolute difference, or the `sample` error.
pub fn compare_sample(manifest: &Manifest, shape: &[usize], values: &[f32]) -> Result<f64> {
    let s = &manifest.sample;
    let fail = |detail: String| manifest.error("sample", detail);
    if shape != s.output_shape.as_slice() {
        return Err(fail(format!(
            "output shape {shape:?}, expected {:?}",
            s.output_shape
        )));
    }
    let mut worst = (0.0f64, 0usize);
    for (i, (&g, &e)) in values.iter().zip(&s.expected_output).enumerate() {
        let d = (f64::from(g) - f64::from(e)).abs();
        if d.is_nan() || d > worst.0 {
            worst = (if d.is_nan() { f64::INFINITY } else { d }, i);
        }
    }
    if worst.0 > s.tolerance {
        let i = worst.1;
        return Err(fail(format!(
            "output differs from the expected one by {:.3e} at element {i} (got {}, expected \
             {}), above the tolerance {:e}",
            worst.0, values[i], s.expected_output[i], s.tolerance
        )));
    }
    Ok(worst.0)
}

/// Step 5, awaited: the sample's output, read back asynchronously, compared.
pub async fn check_sample(manifest: &Manifest, model: &dyn Module) -> Result<f64> {
    let y = sample_output(manifest, model)?;
    let values = y.to_vec::<f32>().await.map_err(|e| {
        manifest.error(
            "sample",
            format!("the model failed on the sample input: {e}"),
        )
    })?;
    compare_sample(manifest, y.shape(), &values)
}

/// A JSON keyword argument as a binder value.
fn value_of(v: &serde_json::Value) -> std::result::Result<Value, String> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => Value::None,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().ok_or(format!("number {n} is out of range"))?),
        },
        J::String(s) => Value::Str(s.clone()),
        J::Array(items) => Value::List(
            items
                .iter()
                .map(value_of)
                .collect::<std::result::Result<_, _>>()?,
        ),
        J::Object(_) => return Err("a keyword argument cannot be an object".into()),
    })
}
