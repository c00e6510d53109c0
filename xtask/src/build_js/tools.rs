//! The tools `build-js` drives: cargo, rustup's wasm32 target, wasm-bindgen (as a library) and npm.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Run `command`, failing with its name when it cannot start or exits non-zero.
pub fn run(command: &mut Command) -> Result<(), String> {
    let name = format!("{command:?}");
    let status = command.status().map_err(|e| format!("{name}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{name} failed ({status})"))
    }
}

fn output(command: &mut Command) -> Option<String> {
    let out = command.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `rustup target add wasm32-unknown-unknown` when rustup is there and lacks it.
pub fn ensure_wasm_target() -> Result<(), String> {
    let Some(installed) = output(Command::new("rustup").args(["target", "list", "--installed"]))
    else {
        return Ok(()); // no rustup: cargo will say whether the target is there
    };
    if !installed
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        println!("adding the Rust target wasm32-unknown-unknown (the browser build)");
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    Ok(())
}

/// The version of package `name` in Cargo.lock.
fn locked_version(root: &Path, name: &str) -> Result<String, String> {
    let path = root.join("Cargo.lock");
    let lock = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted
            && let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = \""))
        {
            return Ok(version.trim_end_matches('"').to_string());
        }
    }
    Err(format!("{}: no {name} package", path.display()))
}

/// wasm-bindgen's JavaScript glue for `wasm` (`--target web`) into `out_dir`, by
/// wasm-bindgen-cli-support, the library behind the `wasm-bindgen` CLI, at the wasm-bindgen
/// crate's exact version (checked here against Cargo.lock: the wasm's schema must match).
pub fn bindgen(root: &Path, wasm: &Path, out_name: &str, out_dir: &Path) -> Result<(), String> {
    let crate_version = locked_version(root, "wasm-bindgen")?;
    let library_version = locked_version(root, "wasm-bindgen-cli-support")?;
    if crate_version != library_version {
        return Err(format!(
            "Cargo.lock has wasm-bindgen {crate_version} but wasm-bindgen-cli-support \
             {library_version}: pin xtask's wasm-bindgen-cli-support to ={crate_version}"
        ));
    }
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(wasm)
        .web(true)
        .and_then(|b| b.out_name(out_name).typescript(true).generate(out_dir))
        .map_err(|e| format!("wasm-bindgen {library_version}: {e:#}"))
}

/// `npm pack` the package folder into `dest`; returns the tarball.
pub fn npm_pack(pkg: &Path, dest: &Path) -> Result<PathBuf, String> {
    let name = output(
        Command::new("npm")
            .current_dir(pkg)
            .args(["pack", "--silent", "--pack-destination"])
            .arg(dest),
    )
    .ok_or("npm pack failed (is npm installed?)")?;
    let tgz = dest.join(name.lines().last().unwrap_or_default());
    if !tgz.is_file() {
        return Err(format!("npm pack did not write {}", tgz.display()));
    }
    Ok(tgz)
}
