//! `cargo xtask build-py`: the pure-Python package `borch-py/borch_webgpu` as a wheel,
//! `target/borch-py/borch_webgpu-<version>-py3-none-any.whl`, written here (zip, deflate,
//! RECORD with sha256 hashes) so that neither pip nor a network is needed.

pub mod native;
mod wheel;

use std::path::{Path, PathBuf};

pub fn run(args: &[&str]) -> Result<(), String> {
    if !args.is_empty() {
        return Err("usage: cargo xtask build-py".into());
    }
    let root = crate::audit::workspace_root();
    let version = project_version(&root.join("borch-py/pyproject.toml"))?;
    let mut files = Vec::new();
    collect(
        &root.join("borch-py"),
        Path::new("borch_webgpu"),
        &mut files,
    )?;
    files.retain(|f| f.file_name().is_none_or(|n| n != native::NATIVE_ONLY));
    files.sort();
    let out_dir = target_dir(&root).join("borch-py");
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let path = out_dir.join(format!("borch_webgpu-{version}-py3-none-any.whl"));
    let mut entries = Vec::new();
    for rel in &files {
        let bytes = std::fs::read(root.join("borch-py").join(rel))
            .map_err(|e| format!("{}: {e}", rel.display()))?;
        entries.push((rel.to_string_lossy().replace('\\', "/"), bytes));
    }
    let readme = std::fs::read_to_string(root.join("borch-py/README.md")).unwrap_or_default();
    let n = entries.len();
    let bytes = wheel::wheel("borch_webgpu", &version, &readme, entries);
    std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    println!(
        "build-py: {} ({} Python files, {} bytes)",
        path.display(),
        n,
        bytes.len()
    );
    Ok(())
}

pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

/// `version = "…"` of `[project]`.
fn project_version(pyproject: &Path) -> Result<String, String> {
    let text =
        std::fs::read_to_string(pyproject).map_err(|e| format!("{}: {e}", pyproject.display()))?;
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("version"))
        .filter_map(|rest| rest.trim().strip_prefix('='))
        .map(|v| v.trim().trim_matches('"').to_string())
        .next()
        .ok_or_else(|| format!("{}: no version", pyproject.display()))
}

/// Every `.py` file under `base/rel`, as paths relative to `base`.
pub(crate) fn collect(base: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let dir = base.join(rel);
    let read = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in read.flatten() {
        let name = PathBuf::from(entry.file_name());
        let child = rel.join(&name);
        if entry.path().is_dir() {
            if name != Path::new("__pycache__") {
                collect(base, &child, out)?;
            }
        } else if child.extension().is_some_and(|e| e == "py") {
            out.push(child);
        }
    }
    Ok(())
}
