//! `cargo xtask build-js`: builds `borch-js` for wasm32 in release, runs `wasm-bindgen --target
//! web` (installing wasm-bindgen-cli at the exact version of the `wasm-bindgen` crate in
//! Cargo.lock when it is missing, and saying so), writes the npm package folder
//! `<target>/borch-ts/` (wasm-bindgen's output, `package.json`, `index.js`, `index.d.ts`) and packs
//! it into `<target>/borch-ts-<version>.tgz` with `npm pack`.

mod tools;
pub mod wrapper;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const USAGE: &str = "usage: cargo xtask build-js [--no-pack]";
/// The npm package name.
pub const PACKAGE: &str = "borch-ts";
/// wasm-bindgen's output name: borch_js.js, borch_js_bg.wasm, borch_js.d.ts.
const OUT_NAME: &str = "borch_js";

pub fn run(args: &[&str]) -> Result<(), String> {
    let mut pack = true;
    for &arg in args {
        match arg {
            "--no-pack" => pack = false,
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    let start = Instant::now();
    let root = workspace_root();
    let target = target_dir(&root);
    tools::ensure_wasm_target()?;
    let bindgen = tools::ensure_wasm_bindgen(&root)?;

    println!("building borch-js for wasm32-unknown-unknown (release)");
    tools::run(
        Command::new(tools::cargo())
            .current_dir(&root)
            .args(["build", "--release", "--target", "wasm32-unknown-unknown"])
            .args(["-p", "borch-js"]),
    )?;
    let wasm = target.join("wasm32-unknown-unknown/release/borch_js.wasm");

    let pkg = target.join(PACKAGE);
    if pkg.exists() {
        fs::remove_dir_all(&pkg).map_err(|e| format!("{}: {e}", pkg.display()))?;
    }
    println!("wasm-bindgen --target web → {}", pkg.display());
    tools::run(
        Command::new(&bindgen)
            .args(["--target", "web", "--out-name", OUT_NAME, "--out-dir"])
            .arg(&pkg)
            .arg(&wasm),
    )?;
    wrapper::write(&pkg)?;
    write_package_json(&pkg)?;

    let size = fs::metadata(pkg.join(format!("{OUT_NAME}_bg.wasm")))
        .map(|m| m.len())
        .unwrap_or(0);
    println!(
        "{} {}: {}_bg.wasm {:.2} MB",
        PACKAGE,
        version(),
        OUT_NAME,
        size as f64 / 1e6
    );
    if pack {
        let tgz = tools::npm_pack(&pkg, &target)?;
        println!("packed {}", tgz.display());
    }
    println!("build-js took {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// The package's version: the workspace's.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The checkout this xtask was built from.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `CARGO_TARGET_DIR` when set (relative to the workspace root), else `<root>/target`.
pub fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root.join(dir),
        _ => root.join("target"),
    }
}

fn write_package_json(pkg: &Path) -> Result<(), String> {
    let json = serde_json::json!({
        "name": PACKAGE,
        "version": version(),
        "description": "borch: a PyTorch-shaped deep-learning library on WebGPU, from Rust through wasm",
        "license": env!("CARGO_PKG_LICENSE"),
        "type": "module",
        "main": "./index.js",
        "types": "./index.d.ts",
        "exports": {
            ".": { "types": "./index.d.ts", "default": "./index.js" },
            "./package.json": "./package.json"
        },
        "sideEffects": false,
        "files": [
            "index.js",
            "index.d.ts",
            "signatures.json",
            format!("{OUT_NAME}.js"),
            format!("{OUT_NAME}.d.ts"),
            format!("{OUT_NAME}_bg.wasm"),
            format!("{OUT_NAME}_bg.wasm.d.ts"),
            "snippets/"
        ]
    });
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())? + "\n";
    let path = pkg.join("package.json");
    fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}
