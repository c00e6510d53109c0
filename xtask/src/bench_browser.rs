//! `cargo xtask bench browser`: borch-ts side by side with TF.js (WebGPU backend) and ONNX
//! Runtime Web (WebGPU EP) in one headless Chromium, on the same adapter, in the same run:
//! matmul, one MLP training step (with dispatches and submits per step), MLP inference, and with
//! `--cases resnet18` (not by default: minutes to an hour on SwiftShader) a CIFAR ResNet-18 eval
//! forward b1/b16 (borch eager, compiled, and fused by `nn.utils.fusion.fuseForEval` then
//! compiled, vs TF.js and ORT-Web, whose ONNX file this writes first from borch's seed-0 weights)
//! and train step b16 (vs TF.js); `--width` narrows the network for quick runs; with `--cases vit`
//! (not by default either) timm's ViT-Tiny/16 eval forward b1/b16 (borch eager and `compiled`, vs
//! ORT-Web's WebGPU and wasm EPs on an ONNX file of the same weights, written first by
//! `bench vit --export-weights` and `scripts/make_bench_vit_onnx.py`).
//!
//! Steps: `build-js --no-pack` (cargo rebuilds borch-ts only when its sources changed), `npm ci`
//! in `bench/browser/` and `tests/browser/` when their node_modules are missing (saying so),
//! then `tests/browser/run.mjs` on `bench/browser/bench.html`, whose `BENCH {json}` lines become
//! the table printed at the end. The page fails (and so does this) when a peer's result differs
//! from borch's or the libraries are not on one adapter. Not part of `scripts/test`: the peers
//! are ~450 MB from npm.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::build_js;

const PAGE: &str = "bench/browser/bench.html";

/// What the page runs beyond its query: the cases whose ONNX files this writes first.
struct Plan {
    query: String,
    resnet_width: Option<u32>,
    vit: bool,
}

/// The page's query string from the options (each maps to a query key of bench.html), and the
/// model cases whose ONNX files are written first (the ResNet-18 width when that case runs).
fn query(args: &[&str]) -> Result<Plan, String> {
    let mut keys = Vec::new();
    let (mut resnet, mut vit) = (false, false);
    let mut width = 64;
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let value = it.next().ok_or(format!("{arg} needs a value"))?;
        let words = |known: &[&str]| -> Result<(), String> {
            if value.is_empty() || value.split(',').any(|c| !known.contains(&c)) {
                return Err(format!(
                    "{arg} takes {} separated by commas, not {value:?}",
                    known.join(", ")
                ));
            }
            Ok(())
        };
        let key = match arg {
            "--cases" => {
                words(&["matmul", "mlp", "resnet18", "vit"])?;
                resnet = value.split(',').any(|c| c == "resnet18");
                vit = value.split(',').any(|c| c == "vit");
                keys.push(format!("cases={value}"));
                continue;
            }
            "--resnet-parts" => {
                words(&["eval", "train"])?;
                keys.push(format!("resnet-parts={value}"));
                continue;
            }
            "--vit-eps" => {
                words(&["webgpu", "wasm"])?;
                keys.push(format!("vit-eps={value}"));
                continue;
            }
            "--sizes" => "sizes",
            "--batches" => "batches",
            "--warmup" => "warmup",
            "--reps" => "reps",
            "--steps" => "steps",
            "--width" => "width",
            "--resnet-steps" => "resnet-steps",
            "--resnet-warmup" => "resnet-warmup",
            "--resnet-batch" => "resnet-batch",
            "--resnet-eval-batches" => "resnet-eval-batches",
            "--vit-steps" => "vit-steps",
            "--vit-warmup" => "vit-warmup",
            "--vit-batches" => "vit-batches",
            other => return Err(format!("unknown option {other}\n{}", crate::USAGE)),
        };
        let ok = !value.is_empty()
            && value.split(',').all(|v| {
                v.parse::<u32>()
                    .is_ok_and(|n| n > 0 || key == "vit-warmup" || key == "resnet-warmup")
            });
        if !ok {
            return Err(format!(
                "{arg} takes positive integers separated by commas, not {value:?}"
            ));
        }
        if key == "width" {
            width = value
                .parse()
                .map_err(|_| format!("bad --width {value:?}"))?;
        }
        keys.push(format!("{key}={value}"));
    }
    let query = if keys.is_empty() {
        String::new()
    } else {
        format!("?{}", keys.join("&"))
    };
    Ok(Plan {
        query,
        resnet_width: resnet.then_some(width),
        vit,
    })
}

/// Runs `script --weights W --out M` (torch + onnx), which checks torch's network against
/// borch's logits and writes the ONNX file.
fn write_onnx(root: &Path, script: &str, weights: &Path, onnx: &Path) -> Result<(), String> {
    println!("writing {} ({script})", onnx.display());
    let status = Command::new("python3")
        .arg(script)
        .arg("--weights")
        .arg(weights)
        .arg("--out")
        .arg(onnx)
        .current_dir(root)
        .status()
        .map_err(|e| format!("python3 {script}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "{script} failed ({status}); it needs torch and onnx (pip install onnx)"
        ))
    }
}

/// The ViT case's weights (for borch-ts) and ONNX file (for ORT-Web) in `$TARGET/bench-vit/`:
/// `bench vit --export-weights`, then `scripts/make_bench_vit_onnx.py`.
fn vit_onnx(root: &Path, target: &Path) -> Result<(), String> {
    let dir = target.join("bench-vit");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let weights = dir.join("weights.json");
    crate::bench_vit::export_weights(weights.to_str().ok_or("a non-UTF-8 target path")?)
        .map_err(|e| format!("exporting borch's ViT-Tiny weights: {e}"))?;
    write_onnx(
        root,
        "scripts/make_bench_vit_onnx.py",
        &weights,
        &dir.join("vit_tiny.onnx"),
    )
}

/// The ResNet-18 case's ONNX file for ORT-Web: borch's seed-0 weights exported natively, then
/// `scripts/make_bench_resnet18_onnx.py` (torch + onnx) into `$TARGET/bench-resnet18/`.
fn resnet_onnx(root: &Path, target: &Path, width: u32) -> Result<(), String> {
    let dir = target.join("bench-resnet18");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let weights = dir.join(format!("weights_w{width}.json"));
    let onnx = dir.join(format!("resnet18_w{width}.onnx"));
    let weights_str = weights.to_str().ok_or("a non-UTF-8 target path")?;
    crate::bench_resnet18::export_weights(weights_str, width as usize)
        .map_err(|e| format!("exporting borch's ResNet-18 weights: {e}"))?;
    write_onnx(root, "scripts/make_bench_resnet18_onnx.py", &weights, &onnx)
}

/// `npm ci` in `dir` when its node_modules folder is missing.
fn npm_ci(root: &Path, dir: &str, what: &str) -> Result<(), String> {
    if root.join(dir).join("node_modules").is_dir() {
        return Ok(());
    }
    println!("{dir}/node_modules is missing: running npm ci there ({what})");
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(root.join(dir))
        .status()
        .map_err(|e| format!("npm ci in {dir}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("npm ci in {dir} failed ({status})"))
    }
}

/// Runs the page, echoing its output but the `BENCH` lines; returns those records and
/// Chromium's version.
fn run_page(root: &Path, target: &Path, query: &str) -> Result<(Vec<Value>, String), String> {
    let mut child = Command::new("node")
        .arg("tests/browser/run.mjs")
        .arg("--target-dir")
        .arg(target)
        .arg(format!("{PAGE}{query}"))
        .current_dir(root)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("node tests/browser/run.mjs: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout from run.mjs")?;
    let mut records = Vec::new();
    let mut chromium = String::from("unknown");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| e.to_string())?;
        if let Some(json) = line.split_once("] BENCH ").map(|(_, j)| j) {
            records.push(serde_json::from_str(json).map_err(|e| format!("{e}: {line}"))?);
            continue;
        }
        if let Some(v) = line.strip_prefix("chromium ") {
            chromium = v.split(',').next().unwrap_or(v).to_string();
        }
        println!("{line}");
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!(
            "the benchmark page failed ({status}); see its output above"
        ));
    }
    Ok((records, chromium))
}

/// A number with `digits` decimals, or the value as it is (a range such as "34 (33–35)"), or "".
fn cell(record: &Value, key: &str, digits: usize) -> String {
    match record.get(key) {
        Some(Value::Number(n)) => n
            .as_f64()
            .map_or(n.to_string(), |f| format!("{f:.digits$}")),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

/// The Markdown table: one row per (bench, size, library), with borch's speed against each peer.
fn table(records: &[Value]) -> Result<String, String> {
    let mut out = String::from(
        "| bench | size | library | ms (median) | GFLOP/s | dispatches | submits | TF.js kernel ms (its timestamps, one call) | borch-ts speed vs this | max abs diff (vs) |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in records {
        let ms = r["ms"]
            .as_f64()
            .ok_or(format!("a record without ms: {r}"))?;
        let borch = records
            .iter()
            .find(|b| b["impl"] == "borch-ts" && b["bench"] == r["bench"] && b["size"] == r["size"])
            .and_then(|b| b["ms"].as_f64())
            .ok_or(format!(
                "no borch-ts record for {} {}",
                r["bench"], r["size"]
            ))?;
        let vs = if r["impl"] == "borch-ts" {
            "-".into()
        } else {
            format!("{:.2}×", ms / borch)
        };
        let diff = match r["diffVs"].as_str() {
            Some("-") | None => "-".to_string(),
            Some(what) => format!("{:.1e} ({what})", r["diff"].as_f64().unwrap_or(f64::NAN)),
        };
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {vs} | {diff} |\n",
            cell(r, "bench", 0),
            cell(r, "size", 0),
            cell(r, "impl", 0),
            cell(r, "ms", 2),
            cell(r, "gflops", 3),
            cell(r, "dispatches", 0),
            cell(r, "submits", 0),
            cell(r, "kernelMs", 2),
        );
    }
    Ok(out)
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let plan = query(args)?;
    let root = build_js::workspace_root();
    let target = build_js::target_dir(&root);
    build_js::run(&["--no-pack"])?;
    if let Some(width) = plan.resnet_width {
        resnet_onnx(&root, &target, width)?;
    }
    if plan.vit {
        vit_onnx(&root, &target)?;
    }
    npm_ci(
        &root,
        "tests/browser",
        "playwright-core, the runner's driver",
    )?;
    npm_ci(
        &root,
        "bench/browser",
        "the peers: TF.js, ONNX Runtime Web; about 450 MB",
    )?;
    let (records, chromium) = run_page(&root, &target, &plan.query)?;
    if records.is_empty() {
        return Err("the page reported no measurement".into());
    }
    let adapter = records[0]["adapter"].as_str().unwrap_or("unknown adapter");
    println!(
        "\nbrowser side by side, one run of Chromium {chromium}, every library on {adapter}:\n"
    );
    print!("{}", table(&records)?);
    println!(
        "\nms: one call with its result read back (matmul, inference) or one training step with \
         its loss read back; \"borch-ts speed vs this\" is this library's time over borch-ts's; \
         dispatches and submits counted at the WebGPU API for one call (steps: mean of the timed \
         steps)."
    );
    Ok(())
}
