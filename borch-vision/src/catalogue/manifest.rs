//! The manifest of one catalogue entry (JSON): what the model is, where its weights are and how
//! to check them, the sample it must reproduce, its licence and how it was made.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use borch_tensor::{BorchError, Result};

use crate::models::catalog;

/// The manifest format this loader reads (`"format": 1`).
pub const FORMAT: u32 = 1;

/// One catalogue entry, as `catalogue/<name>.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The manifest format ([`FORMAT`]).
    pub format: u32,
    /// The entry's name (`digits_cnn`).
    pub name: String,
    /// The model to build.
    pub architecture: Architecture,
    /// The safetensors file with the model's state_dict.
    pub weights: Weights,
    /// The input the loaded model must map to `expected_output`.
    pub sample: SampleCheck,
    /// The weights' licence (an SPDX expression).
    pub licence: String,
    /// How the weights were made.
    pub provenance: Provenance,
}

/// A model of the model catalog ([`crate::models::catalog`]) and its keyword arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Architecture {
    /// The catalog name (`digits_mlp`).
    pub name: String,
    /// The constructor's keyword arguments (ints, floats, bools, strings, null, lists of them).
    #[serde(default)]
    pub kwargs: serde_json::Map<String, serde_json::Value>,
}

/// The weights file and what it must hash to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// The file name, next to the manifest (no directories).
    pub file: String,
    /// The file's SHA-256, 64 lowercase or uppercase hex digits.
    pub sha256: String,
    /// The file's size in bytes.
    pub bytes: u64,
}

/// A small input and the output the model must give for it (eval mode).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleCheck {
    /// The input's shape (`[2, 1, 8, 8]`).
    pub input_shape: Vec<usize>,
    /// The input, row-major float32 values.
    pub input: Vec<f32>,
    /// The output's shape (`[2, 10]`).
    pub output_shape: Vec<usize>,
    /// The expected output, row-major.
    pub expected_output: Vec<f32>,
    /// The largest absolute difference accepted per element.
    pub tolerance: f64,
}

/// How the entry was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The command that trained it and wrote the files.
    pub command: String,
    /// The training data.
    pub data: String,
    /// What the training measured (held-out accuracy and so on), free text.
    #[serde(default)]
    pub notes: String,
}

/// The hex SHA-256 of `bytes` (lowercase).
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

impl Manifest {
    /// Parses and checks a manifest; every problem is an error naming the step `manifest`.
    pub fn from_json(text: &str) -> Result<Manifest> {
        let m: Manifest = serde_json::from_str(text).map_err(|e| {
            // Name the entry when the JSON at least says which one it is.
            let name = serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| v.get("name").and_then(|n| n.as_str()).map(str::to_string));
            let entry = name.map_or(String::new(), |n| format!(" '{n}'"));
            BorchError::Runtime(format!("catalogue{entry}: manifest is not valid: {e}"))
        })?;
        m.check()?;
        Ok(m)
    }

    /// The manifest as pretty-printed JSON (with a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The error of this entry's `step`: `catalogue '<name>': <step>: <detail>`.
    pub fn error(&self, step: &str, detail: impl std::fmt::Display) -> BorchError {
        BorchError::Runtime(format!("catalogue '{}': {step}: {detail}", self.name))
    }

    /// The checks that need no weights: format, names, hex digest, sample sizes, tolerance.
    pub fn check(&self) -> Result<()> {
        let bad = |detail: String| Err(self.error("manifest", detail));
        if self.format != FORMAT {
            return bad(format!("format {} is not {FORMAT}", self.format));
        }
        if self.name.is_empty() {
            return bad("name is empty".into());
        }
        if catalog::find(&self.architecture.name).is_none() {
            return bad(format!(
                "unknown architecture '{}' (the model catalog has {})",
                self.architecture.name,
                catalog::names().join(", ")
            ));
        }
        let w = &self.weights;
        if w.file.is_empty() || w.file.contains(['/', '\\']) || w.file.starts_with('.') {
            return bad(format!(
                "weights file '{}' must be a plain file name next to the manifest",
                w.file
            ));
        }
        if w.sha256.len() != 64 || !w.sha256.chars().all(|c| c.is_ascii_hexdigit()) {
            return bad(format!(
                "weights sha256 '{}' is not 64 hex digits",
                w.sha256
            ));
        }
        let s = &self.sample;
        for (what, shape, len) in [
            ("input", &s.input_shape, s.input.len()),
            ("expected_output", &s.output_shape, s.expected_output.len()),
        ] {
            if numel(shape) != Some(len) {
                return bad(format!(
                    "sample {what} has {len} values, its shape {shape:?} needs {}",
                    numel(shape).map_or("more than usize".into(), |n| n.to_string())
                ));
            }
        }
        if s.input
            .iter()
            .chain(&s.expected_output)
            .any(|v| !v.is_finite())
        {
            return bad("sample values must be finite".into());
        }
        if !(s.tolerance.is_finite() && s.tolerance >= 0.0) {
            return bad(format!(
                "tolerance {} must be a finite number ≥ 0",
                s.tolerance
            ));
        }
        Ok(())
    }
}
