//! `cargo xtask bench lstm`: the time of one `nn.LSTM` (or GRU, RNN) forward + backward on the
//! default adapter, fp32: input `[T, N, I]` from a fixed seed, loss `output.sum()`, the loss read
//! back every step (so each step is synchronous), the same batch every step; and the forward
//! alone under `no_grad`. `--warmup` steps, then `--steps` timed one by one; the median counts.
//!
//! Output: `lstm T64 N32 I256 H256 L1: X ms/step train, Y ms eval, D dispatches per train step
//! [adapter]`, then one JSON line (`{"bench":"lstm","impl":"borch",...}`) that
//! `scripts/bench_lstm_torch.py --compare` reads.

use std::time::Instant;

use borch_autograd::{backward, no_grad};
use borch_nn::{RNNBase, RnnMode, RnnOptions};
use borch_tensor::{default_device, keep_alive, manual_seed, randn};
use serde_json::json;

struct Args {
    mode: RnnMode,
    seq: usize,
    batch: usize,
    input: usize,
    hidden: usize,
    layers: usize,
    bidirectional: bool,
    warmup: usize,
    steps: usize,
}

fn parse(args: &[&str]) -> Result<Args, String> {
    let mut o = Args {
        mode: RnnMode::Lstm,
        seq: 64,
        batch: 32,
        input: 256,
        hidden: 256,
        layers: 1,
        bidirectional: false,
        warmup: 3,
        steps: 0,
    };
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        if arg == "--bidirectional" {
            o.bidirectional = true;
            continue;
        }
        let value = it.next().copied().ok_or(format!("{arg} needs a value"))?;
        let bad = || format!("bad {arg}\n{}", crate::USAGE);
        let n = || value.parse::<usize>().map_err(|_| bad());
        match arg {
            "--mode" => {
                o.mode = match value {
                    "lstm" => RnnMode::Lstm,
                    "gru" => RnnMode::Gru,
                    "rnn" => RnnMode::Tanh,
                    _ => return Err(bad()),
                }
            }
            "--seq" => o.seq = n()?,
            "--batch" => o.batch = n()?,
            "--input" => o.input = n()?,
            "--hidden" => o.hidden = n()?,
            "--layers" => o.layers = n()?,
            "--warmup" => o.warmup = n()?,
            "--steps" => o.steps = n()?,
            other => return Err(format!("unknown option {other}\n{}", crate::USAGE)),
        }
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
        o.steps = if info.is_software { 3 } else { 30 };
    }
    eprintln!("adapter: {info}");
    manual_seed(0);
    let options = RnnOptions {
        num_layers: o.layers,
        bidirectional: o.bidirectional,
        ..RnnOptions::default()
    };
    let m = RNNBase::new(o.mode, o.input, o.hidden, options).map_err(e)?;
    let x = keep_alive(&randn(&[o.seq, o.batch, o.input], None).map_err(e)?);
    let train_step = || -> borch_tensor::Result<f32> {
        let (y, _) = m.forward_states(&x, None)?;
        let loss = y.sum(None, false)?;
        backward(&loss, None, false)?;
        Ok(loss.to_vec_blocking::<f32>()?[0])
    };
    let eval_step = || -> borch_tensor::Result<f32> {
        no_grad(|| {
            let (y, _) = m.forward_states(&x, None)?;
            Ok(y.sum(None, false)?.to_vec_blocking::<f32>()?[0])
        })
    };
    for _ in 0..o.warmup {
        train_step().map_err(e)?;
        eval_step().map_err(e)?;
    }
    let d0 = device.dispatches();
    let mut train = Vec::with_capacity(o.steps);
    for _ in 0..o.steps {
        let t = Instant::now();
        train_step().map_err(e)?;
        train.push(t.elapsed().as_secs_f64());
    }
    let dispatches = (device.dispatches() - d0) as f64 / o.steps as f64;
    let mut eval = Vec::with_capacity(o.steps);
    for _ in 0..o.steps {
        let t = Instant::now();
        eval_step().map_err(e)?;
        eval.push(t.elapsed().as_secs_f64());
    }
    let (train_ms, eval_ms) = (median(&train) * 1e3, median(&eval) * 1e3);
    let kind = format!("{:?}", o.mode).to_lowercase();
    let adapter = info.short();
    println!(
        "{kind} T{} N{} I{} H{} L{}{}: {train_ms:.2} ms/step train (forward + backward), \
         {eval_ms:.2} ms eval forward, {dispatches} dispatches per train step [{adapter}]",
        o.seq,
        o.batch,
        o.input,
        o.hidden,
        o.layers,
        if o.bidirectional {
            " bidirectional"
        } else {
            ""
        },
    );
    println!(
        "{}",
        json!({
            "bench": "lstm",
            "impl": "borch",
            "mode": kind,
            "adapter": adapter,
            "software": info.is_software,
            "seq": o.seq, "batch": o.batch, "input": o.input, "hidden": o.hidden,
            "layers": o.layers, "bidirectional": o.bidirectional,
            "warmup": o.warmup, "steps": o.steps,
            "train_ms": train_ms, "eval_ms": eval_ms,
            "dispatches_per_train_step": dispatches,
        })
    );
    Ok(())
}
