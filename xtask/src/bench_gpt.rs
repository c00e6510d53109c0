//! `cargo xtask bench gpt`: one training step of a character-level GPT (nanoGPT's shape,
//! `borch_nn::models::Gpt`, on data/sonnets): zero_grad, forward, cross-entropy, backward, AdamW
//! step, and the loss read back, so each step is synchronous and its wall time is its cost.
//! The model is built after `manual_seed(0)` (torch's init) and the batch of every step is drawn
//! by `randint` after `manual_seed(1)`, as in `tests/trajectories/char_gpt.py`, so
//! `scripts/bench_gpt_torch.py --compare` builds the same model and batches in torch and checks
//! the first losses before it prints the speed ratio.
//!
//! Presets: `baby` (nanoGPT's shakespeare_char: 6 layers, 6 heads, width 384, context 256, batch
//! 64; the default on a GPU) and `tiny` (the trajectory's 2 x 32, context 32, batch 8; the default
//! on a software adapter); `--n-layer` etc. override a preset. `--sdpa math` sends attention
//! through torch's math path instead of the fused kernels (an A/B of the whole step).
//!
//! Output: a line with the median step, the first step separately, dispatches and submits per
//! step, then one JSON line (`{"bench":"gpt","impl":"borch",...}`).

use std::time::Instant;

use borch_autograd::Backward;
use borch_nn::functional::cross_entropy;
use borch_nn::models::{CharCorpus, Gpt, GptConfig};
use borch_nn::{Module, Reduction};
use borch_optim::{AdamW, AdamWOptions, Optimizer};
use borch_tensor::{SdpaPath, Tensor, default_device, manual_seed, set_sdpa_path};
use serde_json::json;

use crate::bench_calls::err;

struct Options {
    preset: String,
    /// `--sdpa math`: torch's math path for attention instead of the fused kernels (A/B).
    math: bool,
    config: GptConfig,
    batch: usize,
    warmup: usize,
    reps: usize,
    /// `--profile N`: after the timed steps, one step profiled per kernel (top N printed).
    profile: usize,
}

fn preset(name: &str) -> Result<(GptConfig, usize), String> {
    let c = |n_layer, n_head, n_embd, block_size| GptConfig {
        vocab_size: 0,
        block_size,
        n_layer,
        n_head,
        n_embd,
    };
    match name {
        "baby" => Ok((c(6, 6, 384, 256), 64)),
        "tiny" => Ok((c(2, 4, 32, 32), 8)),
        other => Err(format!("unknown preset {other} (baby, tiny)")),
    }
}

fn parse(args: &[&str], software: bool) -> Result<Options, String> {
    let name = if software { "tiny" } else { "baby" };
    let (config, batch) = preset(name)?;
    let mut o = Options {
        preset: name.into(),
        math: false,
        config,
        batch,
        warmup: 3,
        reps: if software { 5 } else { 20 },
        profile: 0,
    };
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let value = it.next().copied().ok_or(format!("{arg} needs a value"))?;
        let n = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("bad {arg} {value}"))
        };
        match arg {
            "--preset" => {
                (o.config, o.batch) = preset(value)?;
                o.preset = value.into();
            }
            "--n-layer" => o.config.n_layer = n()?,
            "--n-head" => o.config.n_head = n()?,
            "--n-embd" => o.config.n_embd = n()?,
            "--block-size" => o.config.block_size = n()?,
            "--batch" => o.batch = n()?,
            "--sdpa" => match value {
                "fused" => o.math = false,
                "math" => o.math = true,
                other => return Err(format!("unknown --sdpa {other} (fused, math)")),
            },
            "--warmup" => o.warmup = n()?,
            "--reps" => o.reps = n()?.max(1),
            "--profile" => o.profile = n()?,
            other => return Err(format!("unknown option {other}\n{}", crate::USAGE)),
        }
    }
    Ok(o)
}

/// nanoGPT's loss on the logits (what `Gpt::loss` computes after its forward).
fn lm_loss(logits: &Tensor, y: &Tensor) -> borch_tensor::Result<Tensor> {
    let v = logits.shape()[2] as isize;
    let (l, t) = (logits.view(&[-1, v])?, y.view(&[-1])?);
    cross_entropy(&l, &t, None, -100, Reduction::Mean, 0.0)
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let device = default_device().map_err(err)?;
    let info = device.adapter_info();
    let mut o = parse(args, info.is_software)?;
    let adapter = info.short();
    crate::submit_every_from_env(&device);
    if o.math {
        set_sdpa_path(SdpaPath::Math);
    }
    let sdpa = if o.math { "math" } else { "fused" };
    // Built in, so the binary carried to a lent machine needs no checkout path.
    let text = include_str!("../../data/sonnets/sonnets.txt");
    let corpus = CharCorpus::new(text);
    o.config.vocab_size = corpus.vocab.len();
    manual_seed(0);
    let model = Gpt::new(o.config.clone()).map_err(err)?;
    let params = model.parameters();
    let n_params: usize = params.iter().map(|p| p.numel()).sum();
    let mut opt = AdamW::new(
        params,
        AdamWOptions::new(3e-3).betas(0.9, 0.99).weight_decay(0.1),
    )
    .map_err(err)?;
    manual_seed(1);
    let block = o.config.block_size;
    // Dispatches of the last step's forward (logits), loss, backward and optimizer step.
    let mut phases = [0u64; 4];
    let mut step = || -> Result<f64, String> {
        let offsets = corpus.draw_offsets(o.batch, block).map_err(err)?;
        let (x, y) = corpus.batch(&offsets, block).map_err(err)?;
        opt.zero_grad(true).map_err(err)?;
        let mut marks = [device.dispatches(); 5];
        let logits = model.forward(&x).map_err(err)?;
        marks[1] = device.dispatches();
        let loss = lm_loss(&logits, &y).map_err(err)?;
        marks[2] = device.dispatches();
        loss.backward().map_err(err)?;
        marks[3] = device.dispatches();
        opt.step().map_err(err)?;
        marks[4] = device.dispatches();
        for (i, p) in phases.iter_mut().enumerate() {
            *p = marks[i + 1] - marks[i];
        }
        Ok(loss.item_blocking().map_err(err)?.to_f64())
    };
    device.synchronize().map_err(err)?;
    let mut losses = Vec::new();
    let start = Instant::now();
    let (d0, s0) = (device.dispatches(), device.submits());
    losses.push(step()?);
    let first_ms = start.elapsed().as_secs_f64() * 1e3;
    let (dispatches_first, submits_first) = (device.dispatches() - d0, device.submits() - s0);
    for _ in 0..o.warmup {
        losses.push(step()?);
    }
    let (mut times, mut dispatches, mut submits) = (Vec::new(), 0, 0);
    for _ in 0..o.reps {
        let (d0, s0) = (device.dispatches(), device.submits());
        let t = Instant::now();
        losses.push(step()?);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        (dispatches, submits) = (device.dispatches() - d0, device.submits() - s0);
    }
    if o.profile > 0 {
        crate::bench_profile::report(&device, o.profile, || step().map(drop))?;
    }
    let [forward, loss_d, backward, optimizer] = phases;
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let c = &o.config;
    let shape = format!(
        "{} layers x {} heads x {} wide, context {}, batch {}",
        c.n_layer, c.n_head, c.n_embd, c.block_size, o.batch
    );
    println!(
        "gpt {} ({shape}, {n_params} parameters, sdpa {sdpa}) AdamW training step: {median:.3} \
         ms median to a read loss (first step {first_ms:.0} ms; {dispatches} dispatches and \
         {submits} submits per step, first {dispatches_first} and {submits_first}; forward \
         {forward}, loss {loss_d}, backward {backward}, optimizer {optimizer}); loss {:.4} -> \
         {:.4} over {} steps [{adapter}]",
        o.preset,
        losses[0],
        losses[losses.len() - 1],
        losses.len()
    );
    println!(
        "{}",
        json!({
            "bench": "gpt", "impl": "borch", "preset": o.preset, "sdpa": sdpa, "n_layer": c.n_layer,
            "n_head": c.n_head, "n_embd": c.n_embd, "block_size": c.block_size,
            "batch": o.batch, "parameters": n_params, "median_ms": median,
            "first_ms": first_ms, "times_ms": times, "dispatches": dispatches,
            "submits": submits, "dispatches_first": dispatches_first,
            "submits_first": submits_first, "losses": losses,
            "dispatches_phases": {"forward": forward, "loss": loss_d, "backward": backward,
                                  "optimizer": optimizer}, "adapter": adapter,
        })
    );
    Ok(())
}
