//! `cargo xtask playground`: builds the playground page (examples/playground/, docs/playground.md)
//! and serves it on 127.0.0.1. The npm package (`build-js`) and the wheel (`build-py`) first,
//! then `npm ci` in examples/playground when its node_modules is missing or stale, then Vite's
//! bundle into `<target>/playground/`, then tests/browser/serve.mjs (the browser tests' static
//! server: the repository, /target/ the target directory), which prints the URL.

use std::path::Path;
use std::process::Command;

use crate::build_js::{target_dir, workspace_root};

const USAGE: &str = "usage: cargo xtask playground [--port N] [--no-serve] [--bundle-only]
  --port N       serve on 127.0.0.1:N (default 8000; 0 picks a free port)
  --no-serve     build, then exit
  --bundle-only  only the page's bundle (borch-ts and the wheel already built)";
const PAGE: &str = "examples/playground";

pub fn run(args: &[&str]) -> Result<(), String> {
    let (mut port, mut serve, mut bundle_only) = ("8000".to_string(), true, false);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--port" => port = rest.next().ok_or(USAGE)?.to_string(),
            "--no-serve" => serve = false,
            "--bundle-only" => bundle_only = true,
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    let root = workspace_root();
    let target = target_dir(&root);
    if !bundle_only {
        crate::build_js::run(&["--no-pack"])?;
        crate::build_py::run(&[])?;
    }
    let page = root.join(PAGE);
    // npm writes node_modules/.package-lock.json; older than package-lock.json means stale.
    let installed = page.join("node_modules/.package-lock.json");
    if modified(&installed) < modified(&page.join("package-lock.json")) {
        println!("npm ci in {PAGE} (CodeMirror, uPlot, Pyodide, Vite)");
        status(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&page),
            "npm ci",
        )?;
    }
    let out = target.join("playground");
    println!("vite build → {}", out.display());
    status(
        Command::new("node")
            .args([
                "node_modules/vite/bin/vite.js",
                "build",
                "--logLevel",
                "warn",
            ])
            .env("PLAYGROUND_OUT", &out)
            .current_dir(&page),
        "vite build",
    )?;
    if !serve {
        return Ok(());
    }
    status(
        Command::new("node")
            .arg(root.join("tests/browser/serve.mjs"))
            .arg("--target-dir")
            .arg(&target)
            .args(["--port", &port, "--page", "/target/playground/index.html"]),
        "the server",
    )
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    path.metadata().and_then(|m| m.modified()).ok()
}

fn status(command: &mut Command, what: &str) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}
