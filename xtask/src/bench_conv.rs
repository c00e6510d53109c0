//! `cargo xtask bench conv`: CIFAR ResNet-18's convolutions (3x3 stride 1 and 2, 1x1 stride-2
//! shortcuts, 32x32x64 down to 4x4x512) at several batch sizes, forward / input gradient /
//! weight gradient, borch's implicit-GEMM kernels next to the im2col + matmul path in the
//! same run, each result checked against the other.
//!
//! Timing as `bench matmul`: a first call (compile), then `--reps` runs of N calls between two
//! `synchronize()`s, N chosen so a run lasts about `--seconds`; the fastest run counts. The
//! gradients are timed through `borch_autograd::grad` on a retained graph, with only the input
//! (input gradient) or only the weight (weight gradient) requiring grad.
//!
//! Kernel choice: `BORCH_CONV_TILE=TXxTYxRxCxK` and `BORCH_CONV_SPLITS=S` (1: never split),
//! `BORCH_CONV_BAKED=0|1` (geometry as params or as shader constants), `BORCH_CONV_SLICED=0|1`
//! (a small grid's K split in two dispatches or in one)
//! override borch's pick for the whole run; `--tile A,B,...` also times the implicit path with
//! each of these tiles (the `sweep` of each JSON line).
//!
//! Output: one line per case and pass, `conv NAME PASS: implicit X GFLOP/s, im2col Y GFLOP/s,
//! Z.ZZx [adapter]`, then one JSON line per case and pass (`{"bench":"conv","impl":"borch",...}`)
//! with times, GFLOP/s, dispatches per call, the forward's peak memory above the live tensors,
//! the tile and split count, and the largest difference between the two paths.

use std::time::Instant;

use borch_device::{Device, default_device};
use borch_tensor::ops::conv_gemm::{
    ConvPath, conv_plan, set_conv_baked, set_conv_kernel, set_conv_path, set_conv_sliced,
    set_conv_winograd, set_conv_winograd_min_work,
};
use borch_tensor::ops::matmul::MatmulTile;
use borch_tensor::{Padding, Tensor, Window2d, conv2d};
use serde_json::json;

/// One convolution of the network: in channels, out channels, input plane, kernel, stride.
#[derive(Clone, Copy)]
struct Conv {
    c_in: usize,
    c_out: usize,
    size: usize,
    k: usize,
    stride: usize,
}

/// CIFAR ResNet-18's distinct convolutions (the 3x3 stem, 4 stages of basic blocks, the 1x1
/// stride-2 shortcuts).
const RESNET18: [Conv; 11] = [
    Conv {
        c_in: 3,
        c_out: 64,
        size: 32,
        k: 3,
        stride: 1,
    },
    Conv {
        c_in: 64,
        c_out: 64,
        size: 32,
        k: 3,
        stride: 1,
    },
    Conv {
        c_in: 64,
        c_out: 128,
        size: 32,
        k: 3,
        stride: 2,
    },
    Conv {
        c_in: 64,
        c_out: 128,
        size: 32,
        k: 1,
        stride: 2,
    },
    Conv {
        c_in: 128,
        c_out: 128,
        size: 16,
        k: 3,
        stride: 1,
    },
    Conv {
        c_in: 128,
        c_out: 256,
        size: 16,
        k: 3,
        stride: 2,
    },
    Conv {
        c_in: 128,
        c_out: 256,
        size: 16,
        k: 1,
        stride: 2,
    },
    Conv {
        c_in: 256,
        c_out: 256,
        size: 8,
        k: 3,
        stride: 1,
    },
    Conv {
        c_in: 256,
        c_out: 512,
        size: 8,
        k: 3,
        stride: 2,
    },
    Conv {
        c_in: 256,
        c_out: 512,
        size: 8,
        k: 1,
        stride: 2,
    },
    Conv {
        c_in: 512,
        c_out: 512,
        size: 4,
        k: 3,
        stride: 1,
    },
];

impl Conv {
    fn padding(&self) -> usize {
        self.k / 2
    }

    fn out(&self) -> usize {
        (self.size + 2 * self.padding() - self.k) / self.stride + 1
    }

    fn name(&self, batch: usize) -> String {
        format!(
            "b{batch}_{s}x{s}x{}_to_{}_k{}s{}",
            self.c_in,
            self.c_out,
            self.k,
            self.stride,
            s = self.size
        )
    }

    fn window(&self) -> Window2d {
        let (o, p) = (self.out(), self.padding());
        Window2d {
            input: [self.size; 2],
            output: [o; 2],
            kernel: [self.k; 2],
            stride: [self.stride; 2],
            padding: [p; 2],
            dilation: [1; 2],
        }
    }

    /// Multiply-adds times 2 of each pass (the three are the same GEMM size).
    fn flops(&self, batch: usize) -> f64 {
        2.0 * (batch * self.c_out * self.out() * self.out() * self.c_in * self.k * self.k) as f64
    }
}

struct Options {
    batches: Vec<usize>,
    passes: Vec<String>,
    tiles: Vec<MatmulTile>,
    seconds: f64,
    reps: usize,
    im2col: bool,
    filter: Option<String>,
}

fn parse_tile(spec: &str) -> Result<MatmulTile, String> {
    spec.parse()
}

fn parse(args: &[&str], software: bool) -> Result<Options, String> {
    let mut o = Options {
        batches: if software {
            vec![1, 4]
        } else {
            vec![1, 16, 64]
        },
        passes: ["forward", "input_grad", "weight_grad"]
            .map(String::from)
            .to_vec(),
        tiles: Vec::new(),
        seconds: if software { 0.5 } else { 0.2 },
        reps: 3,
        im2col: true,
        filter: None,
    };
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || it.next().copied().ok_or(format!("{arg} needs a value"));
        match arg {
            "--batches" => {
                o.batches = value()?
                    .split(',')
                    .map(|s| s.parse().map_err(|_| format!("bad batch {s}")))
                    .collect::<Result<_, _>>()?;
            }
            "--passes" => o.passes = value()?.split(',').map(String::from).collect(),
            "--tile" => {
                o.tiles = value()?
                    .split(',')
                    .map(parse_tile)
                    .collect::<Result<_, _>>()?;
            }
            "--seconds" => o.seconds = value()?.parse().map_err(|_| "bad --seconds")?,
            "--reps" => o.reps = value()?.parse().map_err(|_| "bad --reps")?,
            "--no-im2col" => o.im2col = false,
            "--filter" => o.filter = Some(value()?.to_string()),
            other => return Err(format!("unknown option {other}\n{}", crate::USAGE)),
        }
    }
    Ok(o)
}

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Seconds per call of a warmed-up `call`, as `bench matmul` times it.
fn time(
    device: &Device,
    seconds: f64,
    reps: usize,
    mut call: impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    let sync = |d: &Device| d.synchronize().map_err(|e| e.to_string());
    sync(device)?;
    let t = Instant::now();
    call()?;
    sync(device)?;
    let once = t.elapsed().as_secs_f64();
    if once >= seconds {
        return Ok(once);
    }
    let n = ((seconds / once.max(1e-9)) as usize).clamp(1, 2000);
    let mut best = once;
    for _ in 0..reps {
        let t = Instant::now();
        for _ in 0..n {
            call()?;
        }
        sync(device)?;
        best = best.min(t.elapsed().as_secs_f64() / n as f64);
    }
    Ok(best)
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A timed pass on the current path: seconds per call, dispatches per call, the forward's
/// peak bytes above the live ones, and the result.
struct Timed {
    seconds: f64,
    dispatches: u64,
    peak_bytes: u64,
    result: Vec<f32>,
}

fn run_pass(
    device: &Device,
    o: &Options,
    conv: &Conv,
    batch: usize,
    pass: &str,
) -> Result<Timed, String> {
    let (s, p) = (conv.stride as isize, conv.padding() as isize);
    let xv = values(batch * conv.c_in * conv.size * conv.size, 1);
    let wv = values(conv.c_out * conv.c_in * conv.k * conv.k, 2);
    let x = Tensor::from_slice(&xv, &[batch, conv.c_in, conv.size, conv.size]).map_err(err)?;
    let w = Tensor::from_slice(&wv, &[conv.c_out, conv.c_in, conv.k, conv.k]).map_err(err)?;
    let pad = Padding::Sizes(vec![p]);
    let forward = || conv2d(&x, &w, None, &[s], &pad, &[1], 1);
    let out_elems = batch * conv.c_out * conv.out() * conv.out();
    let gv = values(out_elems, 3);
    let g = Tensor::from_slice(&gv, &[batch, conv.c_out, conv.out(), conv.out()]).map_err(err)?;
    match pass {
        "forward" => {
            device.synchronize().map_err(err)?;
            let live = device.memory().bytes;
            device.reset_peak_memory_stats();
            let d0 = device.dispatches();
            let out = forward().map_err(err)?;
            let dispatches = device.dispatches() - d0;
            let result = out.to_vec_blocking::<f32>().map_err(err)?;
            let peak_bytes = device.max_memory_allocated().saturating_sub(live);
            let seconds = time(device, o.seconds, o.reps, || {
                forward().map(drop).map_err(err)
            })?;
            Ok(Timed {
                seconds,
                dispatches,
                peak_bytes,
                result,
            })
        }
        _ => {
            let target = if pass == "input_grad" { &x } else { &w };
            target.set_requires_grad(true).map_err(err)?;
            let out = forward().map_err(err)?;
            let grad = || {
                borch_autograd::grad(
                    std::slice::from_ref(&out),
                    std::slice::from_ref(target),
                    &[Some(g.clone())],
                    Some(true),
                    false,
                    false,
                )
                .map_err(err)
            };
            device.synchronize().map_err(err)?;
            let d0 = device.dispatches();
            let first = grad()?;
            let dispatches = device.dispatches() - d0;
            let result = first[0]
                .as_ref()
                .ok_or("no gradient")?
                .to_vec_blocking::<f32>()
                .map_err(err)?;
            let seconds = time(device, o.seconds, o.reps, || grad().map(drop))?;
            Ok(Timed {
                seconds,
                dispatches,
                peak_bytes: 0,
                result,
            })
        }
    }
}

fn max_rel_diff(x: &[f32], y: &[f32]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(&a, &b)| f64::from((a - b).abs()) / f64::from(b.abs()).max(1.0))
        .fold(0.0, f64::max)
}

/// `BORCH_CONV_BAKED=0|1` (geometry read from the params or baked into the shaders),
/// `BORCH_CONV_SLICED=0|1` (a small grid's K split in two dispatches or in one),
/// `BORCH_CONV_SPLITS=S` (every implicit-GEMM convolution's K in S splits; 1: never split) and
/// `BORCH_CONV_WINOGRAD=0|1|auto` with `BORCH_CONV_WINOGRAD_MIN_TILES=N` (3 x 3 stride-1
/// convolutions by Winograd's F(2 x 2, 3 x 3): never, always, or borch's pick with at least N
/// 2 x 2 output tiles; `BORCH_CONV_WINOGRAD_MIN_WORK=N`: the fewest tiles x C_in x C_out),
/// `BORCH_CONV_PATH=im2col` (every convolution as im2col + matmul), for every bench that runs
/// convolutions.
pub fn apply_conv_env() {
    if std::env::var("BORCH_CONV_PATH").is_ok_and(|v| v == "im2col") {
        set_conv_path(ConvPath::Im2col);
        eprintln!("convolutions as im2col + matmul");
    }
    if let Ok(v) = std::env::var("BORCH_CONV_BAKED") {
        set_conv_baked(Some(v != "0"));
        eprintln!("geometry baked into the conv shaders: {}", v != "0");
    }
    let winograd = std::env::var("BORCH_CONV_WINOGRAD").ok();
    let min_tiles = std::env::var("BORCH_CONV_WINOGRAD_MIN_TILES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    if winograd.is_some() || min_tiles.is_some() {
        let mode = winograd.as_deref().and_then(|v| match v {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        });
        set_conv_winograd(mode, min_tiles);
        eprintln!(
            "3x3 stride-1 convolutions by Winograd: {mode:?} (None: borch's pick), fewest tiles {min_tiles:?}"
        );
    }
    let min_work = std::env::var("BORCH_CONV_WINOGRAD_MIN_WORK")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    if min_work.is_some() {
        set_conv_winograd_min_work(min_work);
        eprintln!("Winograd's fewest tiles x C_in x C_out: {min_work:?}");
    }
    if let Some(splits) = std::env::var("BORCH_CONV_SPLITS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        set_conv_kernel(None, Some(splits));
        eprintln!("K splits of every implicit-GEMM convolution: {splits}");
    }
    if let Ok(v) = std::env::var("BORCH_CONV_SLICED") {
        set_conv_sliced(Some(v != "0"));
        eprintln!("small grids' K split inside one dispatch: {}", v != "0");
    }
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let device = default_device().map_err(err)?;
    let info = device.adapter_info().clone();
    let adapter = info.short();
    let o = parse(args, info.is_software)?;
    eprintln!("adapter: {info}");
    let env_tile = std::env::var("BORCH_CONV_TILE")
        .ok()
        .map(|t| parse_tile(&t))
        .transpose()?;
    let env_splits = std::env::var("BORCH_CONV_SPLITS")
        .ok()
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("bad BORCH_CONV_SPLITS {s}"))
        })
        .transpose()?;
    apply_conv_env();
    let mut failed = false;
    for &batch in &o.batches {
        for conv in &RESNET18 {
            if o.filter
                .as_ref()
                .is_some_and(|f| !conv.name(batch).contains(f.as_str()))
            {
                continue;
            }
            for pass in &o.passes {
                let flops = conv.flops(batch);
                set_conv_path(ConvPath::Auto);
                set_conv_kernel(env_tile, env_splits);
                let plan = conv_plan(
                    &device,
                    [batch, conv.c_in, conv.c_out, 1],
                    &conv.window(),
                    pass,
                )
                .map_err(err)?;
                let first = Instant::now();
                let implicit = run_pass(&device, &o, conv, batch, pass)?;
                let first_ms = first.elapsed().as_secs_f64() * 1e3;
                let mut sweep = Vec::new();
                for &tile in &o.tiles {
                    set_conv_kernel(Some(tile), env_splits);
                    match run_pass(&device, &o, conv, batch, pass) {
                        Ok(t) => sweep.push(json!({
                            "tile": tile.to_string(),
                            "gflops": flops / t.seconds / 1e9,
                            "max_rel_diff": max_rel_diff(&t.result, &implicit.result),
                        })),
                        Err(e) => sweep.push(json!({"tile": tile.to_string(), "error": e})),
                    }
                }
                set_conv_kernel(env_tile, env_splits);
                let im2col = if o.im2col {
                    set_conv_path(ConvPath::Im2col);
                    let t = run_pass(&device, &o, conv, batch, pass)?;
                    set_conv_path(ConvPath::Auto);
                    Some(t)
                } else {
                    None
                };
                let diff = im2col
                    .as_ref()
                    .map_or(0.0, |t| max_rel_diff(&implicit.result, &t.result));
                let k = (conv.c_in * conv.k * conv.k).max(batch * conv.out() * conv.out());
                let ok = diff <= 1e-3 * (k as f64 / 1024.0).sqrt().max(1.0);
                failed |= !ok;
                let gflops = flops / implicit.seconds / 1e9;
                let old = im2col.as_ref().map(|t| flops / t.seconds / 1e9);
                println!(
                    "conv {} {pass}: implicit {gflops:.1} GFLOP/s{}{} [{adapter}]",
                    conv.name(batch),
                    old.map_or(String::new(), |g| format!(
                        ", im2col {g:.1} GFLOP/s, {:.2}x",
                        gflops / g
                    )),
                    if ok {
                        String::new()
                    } else {
                        format!(", WRONG (max rel diff {diff:.1e})")
                    }
                );
                println!(
                    "{}",
                    json!({
                        "bench": "conv", "impl": "borch", "adapter": adapter,
                        "case": conv.name(batch), "pass": pass, "batch": batch,
                        "c_in": conv.c_in, "c_out": conv.c_out, "size": conv.size,
                        "kernel": conv.k, "stride": conv.stride, "padding": conv.padding(),
                        "flops": flops,
                        "implicit_ms": implicit.seconds * 1e3,
                        "implicit_gflops": gflops,
                        "implicit_first_call_ms": first_ms,
                        "implicit_dispatches": implicit.dispatches,
                        "implicit_peak_bytes": implicit.peak_bytes,
                        "im2col_ms": im2col.as_ref().map(|t| t.seconds * 1e3),
                        "im2col_gflops": old,
                        "im2col_dispatches": im2col.as_ref().map(|t| t.dispatches),
                        "im2col_peak_bytes": im2col.as_ref().map(|t| t.peak_bytes),
                        "speedup_vs_im2col": old.map(|g| gflops / g),
                        "tile": plan.0.to_string(), "splits": plan.1, "slices": plan.2,
                        "max_rel_diff": diff,
                        "sweep": sweep,
                    })
                );
            }
        }
    }
    set_conv_kernel(None, None);
    if failed {
        return Err("the implicit-GEMM convolution disagreed with im2col".into());
    }
    Ok(())
}
