//! `cargo xtask bench dispatch`: the cost of one small eager op. A call is 1,000 chained
//! `y = y.add(1)` on 1,024 floats, then one read of `y` (one submit); the same call is also
//! timed through `compiled(...)` (record once, then replay).
//!
//! Timing: the first call (pipeline compile included) is reported on its own; then `--warmup`
//! calls, then `--reps` calls timed one by one; the median counts. For each call: the wall time
//! per op (issue to readback done) and the host recording time per op (the time to issue the
//! 1,000 ops, before the read submits), plus dispatches and submits per call; the fastest call
//! is printed too (`best`), as other work on a shared machine only ever slows a call.
//!
//! `--compare` runs `scripts/bench_dispatch_torch.py` (torch CUDA, the same chain) in the same
//! call and prints borch/torch per-op ratios. Output: one line per mode, then one JSON line
//! (`{"bench":"dispatch",...}`).

use std::process::Command;
use std::time::Instant;

use borch_tensor::{Tensor, compiled, default_device};
use serde_json::{Value, json};

struct Args {
    ops: usize,
    numel: usize,
    warmup: usize,
    reps: usize,
    compare: bool,
}

fn parse(args: &[&str]) -> Result<Args, String> {
    let mut o = Args {
        ops: 1000,
        numel: 1024,
        warmup: 3,
        reps: 15,
        compare: false,
    };
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || it.next().copied().ok_or(format!("{arg} needs a value"));
        let bad = |what: &str| format!("bad {what}\n{}", crate::USAGE);
        match arg {
            "--ops" => o.ops = value()?.parse().map_err(|_| bad("--ops"))?,
            "--numel" => o.numel = value()?.parse().map_err(|_| bad("--numel"))?,
            "--warmup" => o.warmup = value()?.parse().map_err(|_| bad("--warmup"))?,
            "--reps" => o.reps = value()?.parse().map_err(|_| bad("--reps"))?,
            "--compare" => o.compare = true,
            other => return Err(format!("unknown option {other}\n{}", crate::USAGE)),
        }
    }
    if o.reps == 0 || o.ops == 0 {
        return Err(bad_zero());
    }
    Ok(o)
}

fn bad_zero() -> String {
    format!("--reps and --ops must be positive\n{}", crate::USAGE)
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// One call's figures, in seconds.
#[derive(Clone, Copy)]
struct Sample {
    wall: f64,
    record: f64,
    dispatches: u64,
    submits: u64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Time one call of `chain` (which issues the ops and returns `y`) followed by a read of `y`;
/// checks the value read.
fn sample(
    x: &Tensor,
    ops: usize,
    chain: &mut dyn FnMut(&Tensor) -> Result<Tensor, String>,
) -> Result<Sample, String> {
    let device = x.device().clone();
    let (d0, s0) = (device.dispatches(), device.submits());
    let t = Instant::now();
    let y = chain(x)?;
    let record = t.elapsed().as_secs_f64();
    let got = y.to_vec_blocking::<f32>().map_err(err)?;
    let wall = t.elapsed().as_secs_f64();
    if got.first().copied() != Some(ops as f32) {
        return Err(format!(
            "the chain of {ops} adds read back {:?}, not {ops}",
            got.first()
        ));
    }
    Ok(Sample {
        wall,
        record,
        dispatches: device.dispatches() - d0,
        submits: device.submits() - s0,
    })
}

fn measure(
    name: &str,
    o: &Args,
    x: &Tensor,
    chain: &mut dyn FnMut(&Tensor) -> Result<Tensor, String>,
) -> Result<Value, String> {
    let first = sample(x, o.ops, chain)?;
    for _ in 0..o.warmup {
        sample(x, o.ops, chain)?;
    }
    let mut samples = Vec::with_capacity(o.reps);
    for _ in 0..o.reps {
        samples.push(sample(x, o.ops, chain)?);
    }
    let per_op =
        |f: fn(&Sample) -> f64| median(samples.iter().map(f).collect()) * 1e6 / o.ops as f64;
    let wall_us = per_op(|s| s.wall);
    let record_us = per_op(|s| s.record);
    let best = |f: fn(&Sample) -> f64| {
        samples.iter().map(f).fold(f64::INFINITY, f64::min) * 1e6 / o.ops as f64
    };
    let (best_wall, best_record) = (best(|s| s.wall), best(|s| s.record));
    let last = samples[samples.len() - 1];
    println!(
        "dispatch {name}: {wall_us:.2} µs/op wall, {record_us:.2} µs/op recording (best \
         {best_wall:.2} / {best_record:.2}), first call {:.1} ms, {} dispatches, {} submits per \
         call",
        first.wall * 1e3,
        last.dispatches,
        last.submits
    );
    Ok(json!({
        "mode": name,
        "us_per_op": wall_us,
        "record_us_per_op": record_us,
        "best_us_per_op": best_wall,
        "best_record_us_per_op": best_record,
        "first_call_ms": first.wall * 1e3,
        "dispatches": last.dispatches,
        "submits": last.submits,
    }))
}

/// The torch script's JSON line, run in this same call.
fn torch(o: &Args) -> Result<Value, String> {
    let out = Command::new("python3")
        .args([
            "scripts/bench_dispatch_torch.py",
            "--ops",
            &o.ops.to_string(),
            "--numel",
            &o.numel.to_string(),
            "--warmup",
            &o.warmup.to_string(),
            "--reps",
            &o.reps.to_string(),
        ])
        .output()
        .map_err(|e| format!("could not run scripts/bench_dispatch_torch.py: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    print!("{text}");
    if !out.status.success() {
        return Err(format!(
            "scripts/bench_dispatch_torch.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["bench"] == "dispatch")
        .ok_or_else(|| "no JSON line from scripts/bench_dispatch_torch.py".to_string())
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let o = parse(args)?;
    let device = default_device().map_err(err)?;
    crate::submit_every_from_env(&device);
    let info = device.adapter_info().clone();
    eprintln!("adapter: {info}");
    let x = Tensor::from_slice(&vec![0f32; o.numel], &[o.numel]).map_err(err)?;
    let ops = o.ops;
    let chain = move |x: &Tensor| -> borch_tensor::Result<Tensor> {
        let mut y = x.clone();
        for _ in 0..ops {
            y = y.add(1)?;
        }
        Ok(y)
    };
    let eager = measure("eager", &o, &x, &mut |x| chain(x).map_err(err))?;
    let mut fast = compiled(move |xs: &[Tensor]| chain(&xs[0]).map(|y| vec![y]));
    let replay = measure("compiled", &o, &x, &mut |x| {
        let mut out = fast.call(std::slice::from_ref(x)).map_err(err)?;
        out.pop().ok_or_else(|| "no output".to_string())
    })?;
    println!(
        "dispatch compiled: {} recordings, {} replays, {} divergences",
        fast.recordings(),
        fast.replays(),
        fast.divergences()
    );
    let mut line = json!({
        "bench": "dispatch",
        "impl": "borch",
        "adapter": info.short(),
        "device": info.device,
        "software": info.is_software,
        "ops": o.ops,
        "numel": o.numel,
        "eager": eager,
        "compiled": replay,
    });
    if o.compare {
        let t = torch(&o)?;
        let torch_us = t["us_per_op"].as_f64().unwrap_or(f64::NAN);
        let torch_launch = t["launch_us_per_op"].as_f64().unwrap_or(f64::NAN);
        let e = line["eager"]["us_per_op"].as_f64().unwrap_or(f64::NAN);
        let c = line["compiled"]["us_per_op"].as_f64().unwrap_or(f64::NAN);
        println!(
            "dispatch vs torch: eager {e:.2} µs/op / torch {torch_us:.2} µs/op = {:.2}x torch's \
             time (speed {:.2}x); compiled {c:.2} µs/op = {:.2}x torch's time (speed {:.2}x); \
             torch launch-only {torch_launch:.2} µs/op",
            e / torch_us,
            torch_us / e,
            c / torch_us,
            torch_us / c
        );
        line["torch"] = t;
        line["eager_speed_vs_torch"] = json!(torch_us / e);
        line["compiled_speed_vs_torch"] = json!(torch_us / c);
    }
    println!("{line}");
    Ok(())
}
