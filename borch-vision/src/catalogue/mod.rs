//! The model catalogue: models that arrive with a manifest ([`Manifest`]) naming their
//! architecture, the SHA-256 and size of their safetensors weights, and a sample input with the
//! output they must reproduce. [`load`] / [`load_from`] return a model only after every check
//! passed, in this order:
//!
//! 1. `manifest`: the JSON parses, the architecture is in the model catalog, the digest is hex,
//!    the sample's sizes fit its shapes;
//! 2. `weights size`, then `weights sha256`: the bytes are the ones the manifest names;
//! 3. `build`: the model is built through [`crate::models::catalog`] with the manifest's
//!    keyword arguments;
//! 4. `weights`: the safetensors file decodes and loads with `load_state_dict(strict=True)`;
//! 5. `sample`: in eval mode the sample input gives the expected output within the tolerance.
//!
//! A failure is one [`BorchError`] `catalogue '<name>': <step>: <detail>`. The shipped entries
//! are in `catalogue/` at the repository's root (see docs/vision.md, "Model catalogue").

mod manifest;

pub use manifest::{Architecture, FORMAT, Manifest, Provenance, SampleCheck, Weights, sha256_hex};

use std::path::Path;

use borch_autograd::no_grad;
use borch_nn::Module;
use borch_nn::serialization;
use borch_tensor::api::Value;
use borch_tensor::{BorchError, Result, Tensor};

use crate::models::catalog;

/// A verified model and what its check measured.
pub struct Loaded {
    /// The manifest it was loaded by.
    pub manifest: Manifest,
    /// The model, in eval mode, with the weights loaded.
    pub model: Box<dyn Module>,
    /// The largest absolute difference between the sample's output and the expected one.
    pub max_sample_diff: f64,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("name", &self.manifest.name)
            .field("max_sample_diff", &self.max_sample_diff)
            .finish_non_exhaustive()
    }
}

/// Reads the manifest at `manifest_path` and the weights file next to it, then [`load_from`].
pub fn load(manifest_path: impl AsRef<Path>) -> Result<Loaded> {
    let path = manifest_path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| {
        BorchError::Runtime(format!(
            "catalogue: manifest: could not read {}: {e}",
            path.display()
        ))
    })?;
    let manifest = Manifest::from_json(&text)?;
    let weights_path = path
        .parent()
        .unwrap_or(Path::new("."))
        .join(&manifest.weights.file);
    let weights = std::fs::read(&weights_path).map_err(|e| {
        manifest.error(
            "weights",
            format!("could not read {}: {e}", weights_path.display()),
        )
    })?;
    load_from(manifest, &weights)
}

/// Checks `weights` against `manifest`, builds the model, loads the weights and checks the
/// sample; returns the model only when all of it passed.
pub fn load_from(manifest: Manifest, weights: &[u8]) -> Result<Loaded> {
    manifest.check()?;
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
    let mut model = build(&manifest)?;
    let state = serialization::load(weights).map_err(|e| manifest.error("weights", e))?;
    model
        .load_state_dict(&state, true)
        .map_err(|e| manifest.error("weights", e))?;
    model.eval();
    let max_sample_diff = check_sample(&manifest, model.as_ref())?;
    Ok(Loaded {
        manifest,
        model,
        max_sample_diff,
    })
}

/// The model of the manifest's architecture, built with its keyword arguments.
fn build(manifest: &Manifest) -> Result<Box<dyn Module>> {
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

/// Runs the sample (no grad) and returns the largest difference, or the `sample` error.
fn check_sample(manifest: &Manifest, model: &dyn Module) -> Result<f64> {
    let s = &manifest.sample;
    let fail = |detail: String| manifest.error("sample", detail);
    let got = no_grad(|| -> Result<(Vec<usize>, Vec<f32>)> {
        let x = Tensor::from_slice(&s.input, &s.input_shape)?;
        let y = model.forward(&x)?;
        Ok((y.shape().to_vec(), y.to_vec_blocking::<f32>()?))
    })
    .map_err(|e| fail(format!("the model failed on the sample input: {e}")))?;
    let (shape, values) = got;
    if shape != s.output_shape {
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
