//! `cargo xtask bench vit`: timm's `vit_tiny_patch16_224` eval forward at batch 1 and 16, eager
//! and through `compiled(model)` (record once, replay), each call timed to the readback of one
//! logit. The weights are the seeded ones of `tests/vision/vit_cases.py` (after
//! `manual_seed(0)`, every state_dict entry refilled by `normal_(mean, 0.02)` after
//! `manual_seed(1)`) and each batch is `randn` after `manual_seed(2)`, so
//! `scripts/bench_vit_torch.py --compare` builds the same model and inputs in torch and checks the
//! logits before it prints the speed ratio.
//!
//! Output: a line per batch and mode, then one JSON line each (`{"bench":"vit",...}`).
//! `--export-weights PATH` instead writes that model's weights and a check input for
//! `scripts/make_bench_vit_onnx.py` (the browser bench's ONNX file; `bench_export.rs`).

use borch_device::default_device;
use borch_nn::{Module, compiled};
use borch_tensor::{Tensor, manual_seed, randn};
use borch_vision::models::{VisionTransformer, VitConfig};
use serde_json::json;

use crate::bench_calls::{err, time_calls};

struct Options {
    batches: Vec<usize>,
    modes: Vec<String>,
    warmup: usize,
    reps: usize,
    /// `--profile N`: after the timed calls of each batch, one eager call profiled per kernel.
    profile: usize,
    /// `--export-weights PATH`: write the weights (and a check input) instead of timing.
    export: Option<String>,
}

fn parse(args: &[&str], software: bool) -> Result<Options, String> {
    let mut o = Options {
        batches: if software { vec![1] } else { vec![1, 16] },
        modes: vec!["eager".into(), "compiled".into()],
        warmup: 3,
        reps: if software { 3 } else { 20 },
        profile: 0,
        export: None,
    };
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || it.next().copied().ok_or(format!("{arg} needs a value"));
        match arg {
            "--batches" => {
                o.batches = value()?
                    .split(',')
                    .map(|b| b.parse().map_err(|_| format!("bad batch {b}")))
                    .collect::<Result<_, _>>()?
            }
            "--modes" => o.modes = value()?.split(',').map(String::from).collect(),
            "--warmup" => o.warmup = value()?.parse().map_err(|_| "bad --warmup")?,
            "--reps" => o.reps = value()?.parse().map_err(|_| "bad --reps")?,
            "--profile" => o.profile = value()?.parse().map_err(|_| "bad --profile")?,
            "--export-weights" => o.export = Some(value()?.to_string()),
            other => return Err(format!("unknown option {other}\n{}", crate::USAGE)),
        }
    }
    Ok(o)
}

/// The model of `tests/vision/vit_cases.py`'s forward case, in eval mode.
pub(crate) fn model() -> Result<VisionTransformer, String> {
    manual_seed(0);
    let mut m = VisionTransformer::new(VitConfig::tiny()).map_err(err)?;
    m.eval();
    manual_seed(1);
    borch_autograd::no_grad(|| {
        for (k, v) in m.state_dict().iter() {
            let ln =
                k.ends_with("norm1.weight") || k.ends_with("norm2.weight") || k == "norm.weight";
            v.normal_(if ln { 1.0 } else { 0.0 }, 0.02, None)?;
        }
        Ok::<(), borch_tensor::BorchError>(())
    })
    .map_err(err)?;
    Ok(m)
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let device = default_device().map_err(err)?;
    let info = device.adapter_info();
    let o = parse(args, info.is_software)?;
    if let Some(path) = &o.export {
        return export_weights(path);
    }
    let adapter = info.short();
    let eager = model()?;
    let replayed = compiled(model()?);
    let mut lines = Vec::new();
    for &b in &o.batches {
        manual_seed(2);
        let x = randn(&[b, 3, 224, 224], None).map_err(err)?;
        for mode in &o.modes {
            let call = || -> Result<Tensor, String> {
                borch_autograd::no_grad(|| match mode.as_str() {
                    "eager" => eager.forward(&x),
                    _ => replayed.forward(&x),
                })
                .map_err(err)
            };
            if mode != "eager" && mode != "compiled" {
                return Err(format!("unknown mode {mode} (eager, compiled)"));
            }
            let t = time_calls(&device, o.warmup, o.reps, call)?;
            let (median, first_ms, logits) = (t.median_ms, t.first_ms, &t.result);
            let (dispatches, replay_dispatches) = (t.dispatches_first, t.dispatches);
            let sum: f64 = logits.iter().map(|&v| f64::from(v)).sum();
            println!(
                "vit_tiny_patch16_224 eval b{b} {mode}: {median:.3} ms per call to a read logit \
                 (first call {first_ms:.0} ms, {dispatches} dispatches first, {replay_dispatches} \
                 per timed call; logits sum {sum:.6}) [{adapter}]"
            );
            lines.push(json!({
                "bench": "vit", "impl": "borch", "model": "vit_tiny_patch16_224", "batch": b,
                "mode": mode, "median_ms": median, "first_ms": first_ms,
                "dispatches_first": dispatches, "dispatches": replay_dispatches,
                "logits_first": &logits[..8.min(logits.len())], "logits_sum": sum,
                "adapter": adapter,
            }));
        }
        if o.profile > 0 {
            println!("vit_tiny_patch16_224 eval b{b} eager, profiled:");
            crate::bench_profile::report(&device, o.profile, || {
                borch_autograd::no_grad(|| eager.forward(&x))
                    .map(drop)
                    .map_err(err)
            })?;
        }
    }
    for l in lines {
        println!("{l}");
    }
    Ok(())
}

/// The weights of [`model`] and a check input (`randn(2, 3, 224, 224)` after `manual_seed(3)`)
/// with borch's logits on it, for `scripts/make_bench_vit_onnx.py`.
pub(crate) fn export_weights(path: &str) -> Result<(), String> {
    let m = model()?;
    manual_seed(3);
    let x = randn(&[2, 3, 224, 224], None).map_err(err)?;
    let fields = json!({
        "model": "borch_vision::models::vit_tiny_patch16_224", "num_classes": 1000,
        "seeds": "manual_seed(0) construction, manual_seed(1) normal_(mean, 0.02) per entry",
    });
    crate::bench_export::export_weights(path, &m, &x, fields).map_err(err)
}
