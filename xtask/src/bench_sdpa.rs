//! `cargo xtask bench sdpa`: `F.scaled_dot_product_attention` forward and forward+backward at
//! (batch 8, heads 8, seq 1024, dim 64) and a few more shapes (causal, longer, dim 128, GQA),
//! the fused kernels next to the math path (`--no-math` skips it), each result checked against
//! the other. `--small` runs two small shapes (for software adapters; CI proves the bench works).
//!
//! Timing: the first call (pipeline compile) separately, then `--warmup` calls, then `--reps`
//! calls each followed by a readback of one element (so a call is timed to its finish); the
//! median counts. Forward+backward is `borch_autograd::grad` of the output with respect to q, k
//! and v for a fixed output gradient.
//!
//! Output: a line per case and pass, `sdpa NAME PASS: fused X ms (Y GFLOP/s), math Z ms,
//! R.RRx [adapter]`, then one JSON line per case, pass and path (`{"bench":"sdpa","impl":
//! "borch",...}`) that `scripts/bench_sdpa_torch.py --compare` reads.

use borch_device::{Device, default_device};
use borch_nn::functional::{Sdpa, scaled_dot_product_attention};
use borch_tensor::{SdpaPath, Tensor, set_sdpa_path};
use serde_json::json;

use crate::bench_calls::{Timed, err, time_calls};

/// One shape: batch, query heads, key/value heads, sequence (L = S), head dim, causal.
#[derive(Clone, Copy)]
struct Shape {
    b: usize,
    h: usize,
    hkv: usize,
    l: usize,
    e: usize,
    causal: bool,
}

impl Shape {
    const fn new(b: usize, h: usize, l: usize, e: usize) -> Shape {
        Shape {
            b,
            h,
            hkv: h,
            l,
            e,
            causal: false,
        }
    }

    fn name(&self) -> String {
        let mut s = format!("b{}_h{}_l{}_e{}", self.b, self.h, self.l, self.e);
        if self.hkv != self.h {
            s.push_str(&format!("_kv{}", self.hkv));
        }
        if self.causal {
            s.push_str("_causal");
        }
        s
    }

    /// Multiply-adds times 2 of the forward (`QK^T` and `PV`), halved when causal; the
    /// backward counts 2.5 forwards (five products of the same size), as flash-attention does.
    fn flops(&self, pass: &str) -> f64 {
        let f = 4.0 * (self.b * self.h * self.l * self.l * self.e) as f64;
        let f = if self.causal { f / 2.0 } else { f };
        if pass == "forward" { f } else { 3.5 * f }
    }
}

/// The shapes of the default run; keep in step with scripts/bench_sdpa_torch.py.
fn shapes(small: bool) -> Vec<Shape> {
    if small {
        let mut c = Shape::new(1, 2, 128, 32);
        c.causal = true;
        return vec![Shape::new(1, 2, 128, 32), c];
    }
    let base = Shape::new(8, 8, 1024, 64);
    let mut causal = base;
    causal.causal = true;
    let mut gqa = base;
    gqa.hkv = 2;
    vec![
        base,
        causal,
        Shape::new(4, 8, 2048, 64),
        Shape::new(8, 8, 512, 128),
        gqa,
    ]
}

struct Options {
    small: bool,
    warmup: usize,
    reps: usize,
    math: bool,
    passes: Vec<String>,
    /// `--profile N`: one more call of each case and path profiled per kernel (top N printed).
    profile: usize,
}

fn parse(args: &[&str], software: bool) -> Result<Options, String> {
    let mut o = Options {
        small: software,
        warmup: 3,
        reps: if software { 5 } else { 20 },
        math: true,
        passes: vec!["forward".into(), "forward_backward".into()],
        profile: 0,
    };
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || it.next().copied().ok_or(format!("{arg} needs a value"));
        match arg {
            "--small" => o.small = true,
            "--full" => o.small = false,
            "--warmup" => o.warmup = value()?.parse().map_err(|_| "bad --warmup")?,
            "--reps" => o.reps = value()?.parse().map_err(|_| "bad --reps")?,
            "--no-math" => o.math = false,
            "--profile" => o.profile = value()?.parse().map_err(|_| "bad --profile")?,
            "--passes" => o.passes = value()?.split(',').map(String::from).collect(),
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

fn run_pass(device: &Device, o: &Options, s: &Shape, pass: &str) -> Result<Timed, String> {
    let t = |shape: &[usize], seed| {
        let n = shape.iter().product();
        let x = Tensor::from_slice(&values(n, seed), shape).map_err(err)?;
        x.set_requires_grad(pass != "forward").map_err(err)?;
        Ok::<Tensor, String>(x)
    };
    let q = t(&[s.b, s.h, s.l, s.e], 1)?;
    let k = t(&[s.b, s.hkv, s.l, s.e], 2)?;
    let v = t(&[s.b, s.hkv, s.l, s.e], 3)?;
    let n = s.b * s.h * s.l * s.e;
    let g = Tensor::from_slice(&values(n, 4), &[s.b, s.h, s.l, s.e]).map_err(err)?;
    let opts = Sdpa {
        is_causal: s.causal,
        enable_gqa: s.hkv != s.h,
        ..Sdpa::default()
    };
    let call = || -> Result<Tensor, String> {
        let out = scaled_dot_product_attention(&q, &k, &v, &opts).map_err(err)?;
        if pass == "forward" {
            return Ok(out);
        }
        let inputs = [q.clone(), k.clone(), v.clone()];
        let grads = borch_autograd::grad(&[out], &inputs, &[Some(g.clone())], None, false, false)
            .map_err(err)?;
        grads
            .into_iter()
            .next()
            .flatten()
            .ok_or_else(|| "no gradient for q".to_string())
    };
    let timed = time_calls(device, o.warmup, o.reps, call)?;
    if o.profile > 0 {
        println!(
            "sdpa {} {pass} ({:?}), profiled:",
            s.name(),
            borch_tensor::sdpa_path()
        );
        crate::bench_profile::report(device, o.profile, || call().map(drop))?;
    }
    Ok(timed)
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let device = default_device().map_err(err)?;
    let info = device.adapter_info();
    let o = parse(args, info.is_software)?;
    let adapter = info.short();
    let mut lines = Vec::new();
    for s in shapes(o.small) {
        for pass in &o.passes {
            set_sdpa_path(SdpaPath::Auto);
            let fused = run_pass(&device, &o, &s, pass);
            let math = if o.math {
                set_sdpa_path(SdpaPath::Math);
                let m = run_pass(&device, &o, &s, pass);
                set_sdpa_path(SdpaPath::Auto);
                Some(m)
            } else {
                None
            };
            // The same kernels with the one-row-per-thread forward (A/B of the tiled forward).
            set_sdpa_path(SdpaPath::Rows);
            let rows = run_pass(&device, &o, &s, pass);
            set_sdpa_path(SdpaPath::Auto);
            let fused = fused?;
            let tflops = |ms: f64| s.flops(pass) / (ms * 1e-3) / 1e12;
            let mut text = format!(
                "sdpa {} {pass}: fused {:.3} ms ({:.1} GFLOP/s, {} dispatches, first call {:.0} ms)",
                s.name(),
                fused.median_ms,
                tflops(fused.median_ms) * 1e3,
                fused.dispatches_first,
                fused.first_ms
            );
            let mut diff = None;
            let mut push = |path: &str, t: &Timed, diff: Option<f64>| {
                lines.push(json!({
                    "bench": "sdpa", "impl": "borch", "path": path, "case": s.name(),
                    "pass": pass, "median_ms": t.median_ms, "first_ms": t.first_ms,
                    "tflops": tflops(t.median_ms), "dispatches": t.dispatches_first,
                    "max_abs_diff_vs_other_path": diff, "adapter": adapter,
                }));
            };
            match rows {
                Ok(r) => {
                    text.push_str(&format!(
                        ", with the rows forward {:.3} ms ({:.2}x)",
                        r.median_ms,
                        r.median_ms / fused.median_ms
                    ));
                    push("fused_rows", &r, None);
                }
                Err(e) => text.push_str(&format!(", rows forward failed: {e}")),
            }
            match math {
                Some(Ok(m)) => {
                    let d = fused
                        .result
                        .iter()
                        .zip(&m.result)
                        .map(|(a, b)| f64::from((a - b).abs()))
                        .fold(0.0, f64::max);
                    diff = Some(d);
                    text.push_str(&format!(
                        ", math {:.3} ms, fused/math speed {:.2}x, max diff {d:.1e}",
                        m.median_ms,
                        m.median_ms / fused.median_ms
                    ));
                    push("math", &m, diff);
                }
                Some(Err(e)) => text.push_str(&format!(", math failed: {e}")),
                None => {}
            }
            push("fused", &fused, diff);
            println!("{text} [{adapter}]");
        }
    }
    for l in lines {
        println!("{l}");
    }
    Ok(())
}
