//! The tools `build-js` drives: cargo, rustup's wasm32 target, wasm-bindgen-cli and npm.

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

/// The version of the `wasm-bindgen` crate in Cargo.lock: the CLI must match it exactly.
pub fn locked_wasm_bindgen(root: &Path) -> Result<String, String> {
    let path = root.join("Cargo.lock");
    let lock = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\""
            && let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = \""))
        {
            return Ok(version.trim_end_matches('"').to_string());
        }
    }
    Err(format!("{}: no wasm-bindgen package", path.display()))
}

fn bindgen_version(program: &Path) -> Option<String> {
    // `wasm-bindgen 0.2.130`
    output(Command::new(program).arg("--version"))
        .and_then(|v| v.split_whitespace().nth(1).map(str::to_string))
}

/// `wasm-bindgen` at the Cargo.lock version: from PATH or ~/.cargo/bin, else installed with
/// `cargo install wasm-bindgen-cli --version <v> --locked` (retried without `--locked` when a
/// crate its lock file pins has been yanked since).
pub fn ensure_wasm_bindgen(root: &Path) -> Result<PathBuf, String> {
    let wanted = locked_wasm_bindgen(root)?;
    let mut candidates = vec![PathBuf::from("wasm-bindgen")];
    if let Some(home) = std::env::var_os("CARGO_HOME")
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo").into_os_string()))
    {
        candidates.push(Path::new(&home).join("bin/wasm-bindgen"));
    }
    let found = candidates
        .iter()
        .map(|c| (c, bindgen_version(c)))
        .find(|(_, v)| v.as_deref() == Some(wanted.as_str()));
    if let Some((path, _)) = found {
        return Ok(path.clone());
    }
    let have = candidates
        .iter()
        .find_map(|c| bindgen_version(c))
        .map_or("not installed".to_string(), |v| {
            format!("version {v} installed")
        });
    println!(
        "installing wasm-bindgen-cli {wanted} with cargo install (the CLI must match the \
         wasm-bindgen crate in Cargo.lock; {have}; takes about 6 minutes)"
    );
    let install = |locked: bool| {
        let mut c = Command::new(cargo());
        c.args(["install", "wasm-bindgen-cli", "--version", &wanted]);
        if locked {
            c.arg("--locked");
        }
        run(&mut c)
    };
    if install(true).is_err() {
        println!(
            "cargo install --locked failed (a crate pinned by wasm-bindgen-cli's lock file may \
             have been yanked): retrying without --locked"
        );
        install(false)?;
    }
    candidates
        .iter()
        .find(|c| bindgen_version(c).as_deref() == Some(wanted.as_str()))
        .cloned()
        .ok_or_else(|| format!("wasm-bindgen {wanted} is still not on PATH or in ~/.cargo/bin"))
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
