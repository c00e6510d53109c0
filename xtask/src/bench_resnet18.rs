//! `cargo xtask bench resnet18`: a CIFAR ResNet-18 (`borch_vision::models::cifar_resnet18`:
//! 3×3 stem, 4×2 BasicBlocks, 1×1 conv + BatchNorm shortcuts, 10 classes) on the default
//! adapter, each case in each mode it supports:
//!
//! - `train` b16/32/64: zero_grad, forward, cross_entropy, backward, SGD (momentum 0.9, lr 0.05,
//!   weight decay 5e-4), the loss read back every step; modes `eager`, `compiled`. Peak memory
//!   (`Device::max_memory_allocated`) of one step, after `reset_peak_memory_stats()`.
//! - `eval` b1/b16: `eval()`, under `no_grad`, the logits read back; modes `eager`, `compiled`,
//!   `fused+compiled` (the compiled modes' logits are checked against eager's).
//!
//! Timing: a first call (pipeline compiles) reported on its own, `--warmup` calls, then `--steps`
//! calls timed one by one (each ends with a readback, so it is synchronous); the median counts.
//! Dispatches and submits are the device's counters over the timed calls, per call.
//!
//! Output: a line per case, then its JSON line (`{"bench":"resnet18","impl":"borch",...}`) that
//! `scripts/bench_resnet18_torch.py --compare` reads. `--export-weights PATH` instead writes the
//! seed-0 model's state_dict (PATH: JSON manifest, PATH.bin: float32) with a check input and its
//! eval logits, for `scripts/make_bench_resnet18_onnx.py`.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Instant;

use borch_autograd::{Backward, no_grad};
use borch_nn::utils::fusion::fuse_for_eval;
use borch_nn::{Module, Reduction, functional as F};
use borch_optim::{Optimizer, SGD, SgdOptions};
use borch_tensor::{
    BorchError, Result, Tensor, compiled, default_device, keep_alive, manual_seed, randint, randn,
    scope,
};
use serde_json::{Value, json};

/// The benchmarked network, the one place this bench names it (`width` base channels: 64 is
/// ResNet-18; smaller widths are for quick runs on software adapters).
pub(crate) fn model(width: usize) -> Result<Box<dyn Module>> {
    use borch_vision::models::{ResNetOptions, cifar_resnet18_with};
    Ok(Box::new(cifar_resnet18_with(ResNetOptions {
        num_classes: 10,
        width,
        ..ResNetOptions::default()
    })?))
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Eager,
    Compiled,
    FusedCompiled,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Eager => "eager",
            Mode::Compiled => "compiled",
            Mode::FusedCompiled => "fused+compiled",
        }
    }
    fn parse(s: &str) -> std::result::Result<Mode, String> {
        [Mode::Eager, Mode::Compiled, Mode::FusedCompiled]
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or(format!(
                "unknown mode {s:?} (eager, compiled, fused+compiled)"
            ))
    }
    /// Whether this build can run the mode (all three since the merges of `compiled` and
    /// `intrinsic`).
    fn wired(self) -> bool {
        true
    }
}

struct Args {
    batches: Vec<usize>,
    eval_batches: Vec<usize>,
    modes: Vec<Mode>,
    warmup: usize,
    steps: usize,
    width: usize,
    export: Option<String>,
    /// `--profile N`: one more eager train step per batch, and one eager forward of the fused
    /// eval model per eval batch (the kernels its compiled replay runs), profiled per kernel
    /// (top N).
    profile: usize,
}

fn parse(args: &[&str]) -> std::result::Result<Args, String> {
    let mut o = Args {
        batches: vec![16, 32, 64],
        eval_batches: vec![1, 16],
        modes: Vec::new(),
        warmup: 5,
        steps: 0,
        width: 64,
        export: None,
        profile: 0,
    };
    let list = |v: &str, what: &str| -> std::result::Result<Vec<usize>, String> {
        v.split(',')
            .filter(|s| !s.is_empty())
            .map(|s| match s.parse() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!("bad {what} {v:?}\n{}", crate::USAGE)),
            })
            .collect()
    };
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || it.next().copied().ok_or(format!("{arg} needs a value"));
        let bad = |what: &str| format!("bad {what}\n{}", crate::USAGE);
        match arg {
            "--batches" => o.batches = list(value()?, "--batches")?,
            "--eval-batches" => o.eval_batches = list(value()?, "--eval-batches")?,
            "--modes" => {
                o.modes = value()?
                    .split(',')
                    .map(Mode::parse)
                    .collect::<std::result::Result<_, _>>()?
            }
            "--warmup" => o.warmup = value()?.parse().map_err(|_| bad("--warmup"))?,
            "--steps" => o.steps = value()?.parse().map_err(|_| bad("--steps"))?,
            "--width" => o.width = value()?.parse().map_err(|_| bad("--width"))?,
            "--export-weights" => o.export = Some(value()?.to_string()),
            "--profile" => o.profile = value()?.parse().map_err(|_| bad("--profile"))?,
            other => return Err(format!("unknown option {other}\n{}", crate::USAGE)),
        }
    }
    if o.width == 0 || o.warmup == 0 {
        return Err(format!(
            "--width and --warmup must be positive\n{}",
            crate::USAGE
        ));
    }
    if let Some(m) = o.modes.iter().find(|m| !m.wired()) {
        return Err(format!(
            "mode {} is not wired into this build yet (see the SWITCH POINTs in \
             xtask/src/bench_resnet18.rs)",
            m.name()
        ));
    }
    if o.modes.is_empty() {
        o.modes = [Mode::Eager, Mode::Compiled, Mode::FusedCompiled]
            .into_iter()
            .filter(|m| m.wired())
            .collect();
    }
    Ok(o)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

/// A case's calls, and for a compiled mode its trace counters after the latest call
/// (recordings, replays, divergences).
struct Runner<'a, T> {
    call: Box<dyn FnMut() -> Result<T> + 'a>,
    traces: Rc<Cell<Option<[u64; 3]>>>,
}

impl<'a, T: 'a> Runner<'a, T> {
    fn eager(call: impl FnMut() -> Result<T> + 'a) -> Runner<'a, T> {
        Runner {
            call: Box::new(call),
            traces: Rc::default(),
        }
    }

    /// `f` (over `inputs`) through `borch_tensor::compiled`: recorded on the first call,
    /// replayed after.
    fn compiled(
        inputs: Vec<Tensor>,
        mut f: impl FnMut(&[Tensor]) -> Result<T> + 'a,
        grad: bool,
    ) -> Runner<'a, T> {
        let traces: Rc<Cell<Option<[u64; 3]>>> = Rc::default();
        let seen = traces.clone();
        let mut fast = compiled(move |xs: &[Tensor]| f(xs));
        let call = move || {
            let out = if grad {
                fast.call(&inputs)
            } else {
                no_grad(|| fast.call(&inputs))
            };
            seen.set(Some([
                fast.recordings(),
                fast.replays(),
                fast.divergences(),
            ]));
            out
        };
        Runner {
            call: Box::new(call),
            traces,
        }
    }
}

/// One training step: zero_grad, forward, cross_entropy, backward, SGD step, the loss read back.
fn train_step(model: &dyn Module, opt: &mut SGD, x: &Tensor, y: &Tensor) -> Result<f64> {
    scope(|_| {
        opt.zero_grad(true)?;
        let logits = model.forward(x)?;
        let loss = F::cross_entropy(&logits, y, None, -100, Reduction::Mean, 0.0)?;
        loss.backward()?;
        opt.step()?;
        Ok(loss.item_blocking()?.to_f64())
    })
}

/// One training step's runner in `mode` (`eager`, or the whole step in `compiled(fn)`).
fn train_call<'a>(
    mode: Mode,
    model: &'a dyn Module,
    opt: &'a mut SGD,
    x: &'a Tensor,
    y: &'a Tensor,
) -> Result<Runner<'a, f64>> {
    match mode {
        Mode::Eager => Ok(Runner::eager(move || train_step(model, opt, x, y))),
        Mode::Compiled => Ok(Runner::compiled(
            vec![x.clone(), y.clone()],
            move |xs: &[Tensor]| train_step(model, opt, &xs[0], &xs[1]),
            true,
        )),
        Mode::FusedCompiled => Err(unwired(mode)),
    }
}

/// One eval forward under no_grad, the logits read back.
fn eval_forward(model: &dyn Module, x: &Tensor) -> Result<Vec<f32>> {
    scope(|_| no_grad(|| model.forward(x))?.to_vec_blocking::<f32>())
}

/// One eval forward's runner in `mode`: `eager`, or the forward in `compiled(fn)` (the logits'
/// readback inside the compiled call); `model` is the fused copy for `fused+compiled`
/// (see `fused_copy`).
fn eval_call<'a>(mode: Mode, model: &'a dyn Module, x: &'a Tensor) -> Result<Runner<'a, Vec<f32>>> {
    match mode {
        Mode::Eager => Ok(Runner::eager(move || eval_forward(model, x))),
        Mode::Compiled | Mode::FusedCompiled => Ok(Runner::compiled(
            vec![x.clone()],
            move |xs: &[Tensor]| eval_forward(model, &xs[0]),
            false,
        )),
    }
}

/// The eval model for `fused+compiled`: a fresh network with `model`'s state_dict, in eval mode,
/// its Conv-BN(-Add)(-ReLU) patterns fused by `nn.utils.fusion`'s `fuse_for_eval`.
fn fused_copy(model: &dyn Module, width: usize) -> Result<Box<dyn Module>> {
    let mut fused = self::model(width)?;
    fused.load_state_dict(&model.state_dict(), true)?;
    fused.eval();
    fuse_for_eval(fused.as_mut())?;
    Ok(fused)
}

fn unwired(mode: Mode) -> BorchError {
    BorchError::NotImplemented(format!(
        "bench resnet18: mode {} is not wired yet",
        mode.name()
    ))
}

/// What timing one case measured.
struct Timed<T> {
    first_ms: f64,
    times: Vec<f64>,
    first: T,
    last: T,
    dispatches: f64,
    submits: f64,
}

fn time_calls<T>(
    device: &borch_device::Device,
    call: &mut dyn FnMut() -> Result<T>,
    warmup: usize,
    steps: usize,
) -> Result<Timed<T>> {
    let t = Instant::now();
    let first = call()?;
    let first_ms = t.elapsed().as_secs_f64() * 1e3;
    for _ in 1..warmup {
        call()?;
    }
    let (d0, s0) = (device.dispatches(), device.submits());
    let mut times = Vec::with_capacity(steps);
    let mut last = None;
    for _ in 0..steps {
        let t = Instant::now();
        last = Some(call()?);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let n = steps as f64;
    Ok(Timed {
        first_ms,
        dispatches: (device.dispatches() - d0) as f64 / n,
        submits: (device.submits() - s0) as f64 / n,
        times,
        first,
        last: last.ok_or(BorchError::Value("no timed step".into()))?,
    })
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from((x - y).abs()))
        .fold(if a.len() == b.len() { 0.0 } else { f64::NAN }, f64::max)
}

pub fn run(args: &[&str]) -> std::result::Result<(), String> {
    let o = parse(args)?;
    if let Some(path) = &o.export {
        return export_weights(path, o.width).map_err(|e| e.to_string());
    }
    crate::bench_conv::apply_conv_env();
    bench(&o).map_err(|e| e.to_string())
}

fn bench(o: &Args) -> Result<()> {
    let device = default_device()?;
    crate::submit_every_from_env(&device);
    let info = device.adapter_info().clone();
    let steps = if o.steps > 0 {
        o.steps
    } else if info.is_software {
        3
    } else {
        20
    };
    let adapter = info.short();
    eprintln!("adapter: {info}");
    manual_seed(0);
    let mut model = model(o.width)?;
    let params = model.parameters();
    let mut opt = SGD::new(
        params,
        SgdOptions::new(0.05).momentum(0.9).weight_decay(5e-4),
    )?;
    let base = json!({
        "bench": "resnet18", "impl": "borch", "width": o.width, "adapter": adapter,
        "device": info.device, "software": info.is_software, "warmup": o.warmup, "steps": steps,
    });
    let print = |case: &str, batch: usize, mode: Mode, t: &Timed<()>, extra: Value| {
        let ms = median(&t.times);
        let mut r = base.clone();
        let fields = json!({
            "case": case, "batch": batch, "mode": mode.name(), "ms": ms,
            "mean_ms": t.times.iter().sum::<f64>() / t.times.len() as f64,
            "min_ms": t.times.iter().copied().fold(f64::INFINITY, f64::min),
            "first_ms": t.first_ms, "dispatches": t.dispatches, "submits": t.submits,
        });
        for (k, v) in fields.as_object().into_iter().flatten() {
            r[k] = v.clone();
        }
        for (k, v) in extra.as_object().into_iter().flatten() {
            r[k] = v.clone();
        }
        let mut line = format!(
            "resnet18 {case} b{batch} borch {}: {ms:.2} ms (median of {steps}; first call \
             {:.0} ms), {} dispatches, {} submits per call",
            mode.name(),
            t.first_ms,
            t.dispatches,
            t.submits
        );
        if let Some(p) = r["peak_bytes"].as_u64() {
            line += &format!(", peak {:.1} MiB", p as f64 / 1048576.0);
        }
        if let (Some(a), Some(b)) = (r["first_loss"].as_f64(), r["last_loss"].as_f64()) {
            line += &format!(", loss {a:.4} → {b:.4}");
        }
        if let Some(d) = r["diff_vs_eager"].as_f64() {
            line += &format!(", logits max abs diff vs eager {d:.1e}");
        }
        if let Value::Object(t) = &r["traces"] {
            line += &format!(
                ", trace: {} recordings, {} replays, {} divergences",
                t["recordings"], t["replays"], t["divergences"]
            );
        }
        println!("{line} [{adapter}]");
        println!("{r}");
    };

    model.train(true);
    for &batch in &o.batches {
        manual_seed(1000 + batch as u64);
        let x = keep_alive(&randn(&[batch, 3, 32, 32], None)?);
        let y = keep_alive(&randint(0, 10, &[batch], None)?);
        for &mode in o.modes.iter().filter(|m| **m != Mode::FusedCompiled) {
            let mut run = train_call(mode, model.as_ref(), &mut opt, &x, &y)?;
            let t = time_calls(&device, &mut run.call, o.warmup, steps)?;
            device.reset_peak_memory_stats();
            (run.call)()?;
            let peak = device.max_memory_allocated();
            if !t.last.is_finite() {
                return Err(BorchError::Value(format!(
                    "train b{batch} {}: the loss is not finite ({})",
                    mode.name(),
                    t.last
                )));
            }
            let extra = json!({"first_loss": t.first, "last_loss": t.last, "peak_bytes": peak,
                "traces": traces(&run.traces)});
            print("train", batch, mode, &strip(t), extra);
            if o.profile > 0 && mode == Mode::Eager {
                crate::bench_profile::report(&device, o.profile, || {
                    (run.call)().map(drop).map_err(|e| e.to_string())
                })
                .map_err(BorchError::Value)?;
            }
        }
    }

    model.eval();
    let fused = if o.modes.contains(&Mode::FusedCompiled) {
        Some(fused_copy(model.as_ref(), o.width)?)
    } else {
        None
    };
    for &batch in &o.eval_batches {
        manual_seed(2000 + batch as u64);
        let x = keep_alive(&randn(&[batch, 3, 32, 32], None)?);
        let mut eager_logits: Option<Vec<f32>> = None;
        for &mode in &o.modes {
            let net = match (&fused, mode) {
                (Some(f), Mode::FusedCompiled) => f.as_ref(),
                _ => model.as_ref(),
            };
            let mut run = eval_call(mode, net, &x)?;
            let t = time_calls(&device, &mut run.call, o.warmup, steps)?;
            let reference = match &eager_logits {
                Some(r) => r.clone(),
                None => eval_forward(model.as_ref(), &x)?,
            };
            let diff = max_abs_diff(&t.last, &reference);
            if mode == Mode::Eager {
                eager_logits = Some(t.last.clone());
            }
            // Relative to the logits' size: folding BatchNorm into the weights rounds
            // differently (the bound: the fused model within 1e-5 of the unfused).
            let scale = reference.iter().fold(1.0f32, |m, v| m.max(v.abs()));
            if diff.is_nan() || diff > 1e-5 * f64::from(scale) {
                return Err(BorchError::Value(format!(
                    "eval b{batch} {}: logits differ from eager by {diff} (largest logit {scale})",
                    mode.name()
                )));
            }
            print(
                "eval",
                batch,
                mode,
                &strip(t),
                json!({"diff_vs_eager": diff, "traces": traces(&run.traces)}),
            );
            if o.profile > 0 && mode == Mode::FusedCompiled {
                crate::bench_profile::report(&device, o.profile, || {
                    eval_forward(net, &x).map(drop).map_err(|e| e.to_string())
                })
                .map_err(BorchError::Value)?;
            }
        }
    }
    Ok(())
}

/// A compiled runner's trace counters as JSON (`null` for eager).
fn traces(t: &Rc<Cell<Option<[u64; 3]>>>) -> Value {
    match t.get() {
        Some([recordings, replays, divergences]) => {
            json!({"recordings": recordings, "replays": replays, "divergences": divergences})
        }
        None => Value::Null,
    }
}

fn strip<T>(t: Timed<T>) -> Timed<()> {
    Timed {
        first_ms: t.first_ms,
        times: t.times,
        first: (),
        last: (),
        dispatches: t.dispatches,
        submits: t.submits,
    }
}

/// Writes the seed-0 model's state_dict: `path` (JSON: `tensors` as [name, shape, offset in
/// floats], a `check` input and its eval logits) and `path.bin` (little-endian float32).
pub(crate) fn export_weights(path: &str, width: usize) -> Result<()> {
    manual_seed(0);
    let mut model = model(width)?;
    model.eval();
    manual_seed(1);
    let x = randn(&[2, 3, 32, 32], None)?;
    let fields = json!({
        "model": "borch_vision::models::cifar_resnet18", "width": width, "num_classes": 10, "seed": 0,
    });
    crate::bench_export::export_weights(path, model.as_ref(), &x, fields)
}
