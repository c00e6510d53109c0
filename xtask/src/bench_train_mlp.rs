//! `cargo xtask bench train-mlp`: the time of one training step of an MLP (784→1024→1024→10,
//! ReLU, batch 256, cross-entropy, Adam lr 1e-3) with the loss read back every step, on the
//! default adapter. Synthetic data from a fixed seed (x ~ N(0, 1), labels uniform in 0..10),
//! the same batch every step.
//!
//! Timing: `--warmup` steps (pipelines compiled, Adam state made), then `--steps` steps timed
//! one by one; the median step and the mean over all timed steps are reported. Each step ends
//! with the loss readback, so it is synchronous and its wall time is its cost.
//!
//! Output: `train-mlp 784-1024-1024-10 batch 256: X ms/step (Y steps/s), D dispatches, S
//! submits per step [adapter]`, then one JSON line (`{"bench":"train-mlp","impl":"borch",...}`)
//! that `scripts/bench_train_mlp_torch.py --compare` reads.

use std::time::Instant;

use borch_tensor::{default_device, keep_alive, manual_seed, randint, randn};
use serde_json::json;

use crate::demo::train::{Options, Trainer};

struct Args {
    sizes: Vec<usize>,
    batch: usize,
    warmup: usize,
    steps: usize,
    lr: f64,
}

fn parse(args: &[&str]) -> Result<Args, String> {
    let mut o = Args {
        sizes: vec![784, 1024, 1024, 10],
        batch: 256,
        warmup: 5,
        steps: 0,
        lr: 1e-3,
    };
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || it.next().copied().ok_or(format!("{arg} needs a value"));
        let bad = |what: &str| format!("bad {what}\n{}", crate::USAGE);
        match arg {
            "--sizes" => {
                o.sizes = value()?
                    .split(',')
                    .map(|s| s.parse().map_err(|_| bad("--sizes")))
                    .collect::<Result<_, _>>()?;
            }
            "--batch" => o.batch = value()?.parse().map_err(|_| bad("--batch"))?,
            "--warmup" => o.warmup = value()?.parse().map_err(|_| bad("--warmup"))?,
            "--steps" => o.steps = value()?.parse().map_err(|_| bad("--steps"))?,
            "--lr" => o.lr = value()?.parse().map_err(|_| bad("--lr"))?,
            other => return Err(format!("unknown option {other}\n{}", crate::USAGE)),
        }
    }
    if o.sizes.len() < 2 || o.sizes.contains(&0) || o.batch == 0 {
        return Err(format!(
            "need two or more positive sizes and a positive batch\n{}",
            crate::USAGE
        ));
    }
    Ok(o)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let e = |e: borch_tensor::BorchError| e.to_string();
    let device = default_device().map_err(|e| e.to_string())?;
    let info = device.adapter_info().clone();
    let mut o = parse(args)?;
    if o.steps == 0 {
        o.steps = if info.is_software { 5 } else { 100 };
    }
    eprintln!("adapter: {info}");
    let name = o
        .sizes
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join("-");
    let classes = *o.sizes.last().unwrap_or(&1);

    manual_seed(0);
    let x = keep_alive(&randn(&[o.batch, o.sizes[0]], None).map_err(e)?);
    let y = keep_alive(&randint(0, classes as i64, &[o.batch], None).map_err(e)?);
    let options = Options {
        lr: o.lr,
        batch_size: o.batch,
        ..Options::default()
    };
    let mut trainer = Trainer::new(&options, &o.sizes).map_err(e)?;

    let first = Instant::now();
    let first_loss = trainer.step(&x, &y).map_err(e)?;
    let first_ms = first.elapsed().as_secs_f64() * 1e3;
    for _ in 1..o.warmup {
        trainer.step(&x, &y).map_err(e)?;
    }
    let (d0, s0) = (device.dispatches(), device.submits());
    let mut times = Vec::with_capacity(o.steps);
    let mut last_loss = first_loss;
    for _ in 0..o.steps {
        let t = Instant::now();
        last_loss = trainer.step(&x, &y).map_err(e)?;
        times.push(t.elapsed().as_secs_f64());
    }
    let steps = o.steps as f64;
    let dispatches = (device.dispatches() - d0) as f64 / steps;
    let submits = (device.submits() - s0) as f64 / steps;
    let ms = median(&times) * 1e3;
    let mean_ms = times.iter().sum::<f64>() / steps * 1e3;
    let adapter = info.short();
    println!(
        "train-mlp {name} batch {}: {ms:.2} ms/step ({:.1} steps/s), {dispatches} dispatches, \
         {submits} submits per step [{adapter}]",
        o.batch,
        1e3 / ms
    );
    println!(
        "  mean {mean_ms:.2} ms over {} timed steps after {} warm-up; first step {first_ms:.0} ms \
         (pipelines compiled); loss {first_loss:.4} → {last_loss:.4}",
        o.steps, o.warmup
    );
    if !last_loss.is_finite() {
        return Err(format!("the loss is not finite ({last_loss})"));
    }
    println!(
        "{}",
        json!({
            "bench": "train-mlp",
            "impl": "borch",
            "adapter": adapter,
            "device": info.device,
            "software": info.is_software,
            "sizes": o.sizes,
            "batch": o.batch,
            "optimizer": "adam",
            "lr": o.lr,
            "warmup": o.warmup,
            "steps": o.steps,
            "ms_per_step": ms,
            "mean_ms_per_step": mean_ms,
            "steps_per_s": 1e3 / ms,
            "first_step_ms": first_ms,
            "dispatches_per_step": dispatches,
            "submits_per_step": submits,
            "first_loss": first_loss,
            "last_loss": last_loss,
        })
    );
    Ok(())
}
