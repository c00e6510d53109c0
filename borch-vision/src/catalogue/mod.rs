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
//! Each step is one function of [`steps`]; [`load_from_async`] (every target, wasm included)
//! awaits the sample's readback, the native [`load_from`] blocks on the same future.
//!
//! A failure is one `BorchError` `catalogue '<name>': <step>: <detail>`. The shipped entries
//! are in `catalogue/` at the repository's root (see docs/vision.md, "Model catalogue").

#[cfg(all(feature = "fetch", not(target_arch = "wasm32")))]
pub mod fetch;
mod manifest;
pub mod steps;

pub use manifest::{Architecture, FORMAT, Manifest, Provenance, SampleCheck, Weights, sha256_hex};

#[cfg(not(target_arch = "wasm32"))]
use std::path::Path;

use borch_nn::Module;
#[cfg(not(target_arch = "wasm32"))]
use borch_tensor::BorchError;
use borch_tensor::Result;

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

/// Reads the manifest at `manifest_path` and the weights file next to it, then [`load_from`]
/// (native: a file system; in the browser borch-ts fetches the two files).
#[cfg(not(target_arch = "wasm32"))]
pub fn load(manifest_path: impl AsRef<Path>) -> Result<Loaded> {
    let (manifest, weights) = read(manifest_path)?;
    load_from(manifest, &weights)
}

/// The manifest at `manifest_path` (parsed and checked: step `manifest`) and the bytes of the
/// weights file next to it, not yet checked: what [`load`] hands to [`load_from`].
#[cfg(not(target_arch = "wasm32"))]
pub fn read(manifest_path: impl AsRef<Path>) -> Result<(Manifest, Vec<u8>)> {
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
    Ok((manifest, weights))
}

/// Checks `weights` against `manifest`, builds the model, loads the weights and checks the
/// sample; returns the model only when all of it passed. Native: the sample is read back
/// blocking (`load_from_async` is the same steps, awaited).
#[cfg(not(target_arch = "wasm32"))]
pub fn load_from(manifest: Manifest, weights: &[u8]) -> Result<Loaded> {
    pollster::block_on(load_from_async(manifest, weights))
}

/// [`load_from`] for every target, wasm included: the same steps, the sample's output read back
/// asynchronously (what borch-ts's `vision.catalogue.loadFrom` awaits).
pub async fn load_from_async(manifest: Manifest, weights: &[u8]) -> Result<Loaded> {
    let model = steps::prepare(&manifest, weights)?;
    let max_sample_diff = steps::check_sample(&manifest, model.as_ref()).await?;
    Ok(Loaded {
        manifest,
        model,
        max_sample_diff,
    })
}

/// [`load_from_async`] of a manifest still in its JSON text (parsed and checked first, step
/// `manifest`): what a browser has after fetching the two files.
pub async fn load_json_async(manifest_json: &str, weights: &[u8]) -> Result<Loaded> {
    load_from_async(Manifest::from_json(manifest_json)?, weights).await
}
