//! `cargo xtask build-js`: builds `borch-js` for wasm32 in release, runs wasm-bindgen's `--target
//! web` (wasm-bindgen-cli-support, linked into xtask at the exact version of the `wasm-bindgen`
//! crate in Cargo.lock), writes the npm package folder
//! `<target>/borch-ts/` (wasm-bindgen's output, `package.json`, `index.js`, `index.d.ts`, the npm
//! `README.md` and `LICENSE`) and packs it into `<target>/borch-ts-<version>.tgz` with `npm pack`.

mod data_js;
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
    tools::bindgen(&root, &wasm, OUT_NAME, &pkg)?;
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

/// The package's `package.json`, written in the conventional order (npm's own fields first,
/// `types` before `default` in `exports`: a resolver takes the first condition that matches),
/// which `serde_json`'s sorted maps would not keep. Checked by publint and attw in CI
/// (tests/package/).
fn package_json() -> String {
    let repository = env!("CARGO_PKG_REPOSITORY");
    let s = |v: &str| serde_json::Value::from(v).to_string();
    let files = [
        "index.js",
        "index.d.ts",
        "signatures.json",
        &format!("{OUT_NAME}.js"),
        &format!("{OUT_NAME}.d.ts"),
        &format!("{OUT_NAME}_bg.wasm"),
        &format!("{OUT_NAME}_bg.wasm.d.ts"),
        "snippets/",
        "README.md",
        "LICENSE",
    ]
    .map(|f| format!("\n    {}", s(f)))
    .join(",");
    let keywords = KEYWORDS.map(|k| format!("\n    {}", s(k))).join(",");
    format!(
        r#"{{
  "name": {name},
  "version": {version},
  "description": {description},
  "keywords": [{keywords}
  ],
  "homepage": {homepage},
  "repository": {{
    "type": "git",
    "url": {url},
    "directory": "borch-js"
  }},
  "license": {license},
  "type": "module",
  "sideEffects": false,
  "exports": {{
    ".": {{
      "types": "./index.d.ts",
      "default": "./index.js"
    }},
    "./package.json": "./package.json"
  }},
  "main": "./index.js",
  "types": "./index.d.ts",
  "files": [{files}
  ],
  "engines": {{
    "node": ">=20"
  }}
}}
"#,
        name = s(PACKAGE),
        version = s(version()),
        description = s(DESCRIPTION),
        homepage = s(repository),
        url = s(&format!("git+{repository}.git")),
        license = s(env!("CARGO_PKG_LICENSE")),
    )
}

const DESCRIPTION: &str =
    "borch: a PyTorch-shaped deep-learning library on WebGPU, from Rust through wasm";
const KEYWORDS: [&str; 10] = [
    "pytorch",
    "torch",
    "webgpu",
    "wasm",
    "deep-learning",
    "machine-learning",
    "neural-network",
    "autograd",
    "tensor",
    "gpu",
];

/// `package.json`, the npm README (borch-js/README.md) and `LICENSE` (both licenses of
/// `MIT OR Apache-2.0`, from the repository's LICENSE-MIT and LICENSE-APACHE).
fn write_package_json(pkg: &Path) -> Result<(), String> {
    let root = workspace_root();
    let read = |rel: &str| {
        let path = root.join(rel);
        fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let license = format!(
        "borch-ts is licensed under either of the MIT license or the Apache License, Version \
         2.0, at your option (SPDX: {}). Both texts follow.\n\n{}\n\n{}",
        env!("CARGO_PKG_LICENSE"),
        read("LICENSE-MIT")?,
        read("LICENSE-APACHE")?
    );
    for (name, text) in [
        ("package.json", package_json()),
        (
            "README.md",
            read("borch-js/README.md")?.replace("{quickstart}", &quick_start(&read("README.md")?)?),
        ),
        ("LICENSE", license),
    ] {
        let path = pkg.join(name);
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The JavaScript quick start of the repository's README (the first ```js block under "##
/// JavaScript"), fences included: the npm README shows the same program.
fn quick_start(readme: &str) -> Result<String, String> {
    let section = readme
        .find("\n## JavaScript")
        .map(|at| &readme[at..])
        .ok_or("README.md has no \"## JavaScript\" section")?;
    let start = section
        .find("\n```js\n")
        .ok_or("README.md's JavaScript section has no ```js block")?
        + 1;
    let end = section[start + 6..]
        .find("\n```\n")
        .map(|e| start + 6 + e + 4)
        .ok_or("README.md's quick start block is not closed")?;
    Ok(section[start..end].to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_npm_readme_gets_the_readme_quick_start() {
        let readme = "# x\n\n```js\nno\n```\n\n## JavaScript: borch-ts\n\ntext\n\n```js\nconst a = 1;\n```\n\nmore\n";
        assert_eq!(
            super::quick_start(readme).unwrap(),
            "```js\nconst a = 1;\n```"
        );
    }

    #[test]
    fn package_json_is_json_in_the_conventional_order() {
        let text = super::package_json();
        let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(json["exports"]["."]["types"], "./index.d.ts");
        let types = text.find("\"types\": \"./index.d.ts\",\n      \"default\"");
        assert!(types.is_some(), "types before default:\n{text}");
        for key in [
            "repository",
            "homepage",
            "keywords",
            "engines",
            "sideEffects",
            "license",
        ] {
            assert!(!json[key].is_null(), "{key} missing:\n{text}");
        }
    }
}
