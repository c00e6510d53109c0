//! `cargo xtask build-wheel [--release] [maturin build options]`: the native wheel `borch-wgpu`
//! (`import borch as torch`), built by maturin (from PyPI: `pip install maturin`) from
//! borch-pyo3, abi3 (one wheel per platform for Python 3.9+), into `target/wheels/`.
//!
//! The Python layer is not copied in the repository: it is staged from `borch-py/borch_webgpu`
//! (the Pyodide package's files, less its Pyodide bridge) into `borch-pyo3/python/borch/`
//! (git-ignored), maturin's `python-source`, each time the wheel is built.

use std::path::Path;
use std::process::Command;

/// The one file of borch_webgpu that only Pyodide imports.
pub const PYODIDE_ONLY: &str = "_bridge_pyodide.py";
/// The one file of borch_webgpu that only the native wheel imports.
pub const NATIVE_ONLY: &str = "_bridge_native.py";

pub fn run(args: &[&str]) -> Result<(), String> {
    let root = crate::audit::workspace_root();
    let staged = root.join("borch-pyo3/python/borch");
    if staged.exists() {
        std::fs::remove_dir_all(&staged).map_err(|e| format!("{}: {e}", staged.display()))?;
    }
    let mut files = Vec::new();
    super::collect(
        &root.join("borch-py"),
        Path::new("borch_webgpu"),
        &mut files,
    )?;
    files.retain(|f| f.file_name().is_none_or(|n| n != PYODIDE_ONLY));
    for rel in &files {
        let to = staged.join(rel.strip_prefix("borch_webgpu").unwrap_or(rel));
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::copy(root.join("borch-py").join(rel), &to)
            .map_err(|e| format!("{}: {e}", to.display()))?;
    }
    println!(
        "build-wheel: {} Python files of borch-py/borch_webgpu staged as {}",
        files.len(),
        staged.display()
    );
    let target = super::target_dir(&root);
    let status = Command::new("maturin")
        .arg("build")
        .arg("--manifest-path")
        .arg(root.join("borch-pyo3/Cargo.toml"))
        .arg("--out")
        .arg(target.join("wheels"))
        .args(args)
        .status()
        .map_err(|e| {
            format!("maturin (pip install 'maturin>=1.16,<2'; it builds the wheel): {e}")
        })?;
    if !status.success() {
        return Err(format!("build-wheel: maturin build failed ({status})"));
    }
    Ok(())
}
