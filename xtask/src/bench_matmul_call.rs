//! `cargo xtask bench matmul-call`: what one `c = a.matmul(b)` costs a user who then reads one
//! element of `c`, split into its parts, next to the same matmuls back to back (issue 11: 4096³
//! took 4.55 ms per matmul in a loop but 13–18 ms as one call and a read on the H200).
//!
//! Per case, medians of `--reps` calls after `--warmup`:
//! - `call+read`: `a.matmul(&b)` then `c[0, 0].item()`; also its parts: the host time of the
//!   matmul call (recording only), and the time of the read (submit, wait, map);
//! - `call+sync`: the matmul then `synchronize()` (no readback);
//! - `sync+read`: a read of an already finished `c` (the readback path alone);
//! - `loop`: `--loop` matmuls back to back, then one read, per matmul.
//!
//! `scripts/bench_matmul_call_torch.py --compare` times the same in torch.

use std::time::Instant;

use borch_tensor::{Tensor, default_device, manual_seed, randn};
use serde_json::json;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn read_one(c: &Tensor) -> Result<f64, String> {
    let e = |e: borch_tensor::BorchError| e.to_string();
    let x = c.select(0, 0).map_err(e)?.select(0, 0).map_err(e)?;
    Ok(x.item_blocking().map_err(e)?.to_f64())
}

struct Options {
    sizes: Vec<usize>,
    warmup: usize,
    reps: usize,
    looped: usize,
}

fn parse(args: &[&str]) -> Result<Options, String> {
    let mut o = Options {
        sizes: vec![1024, 4096],
        warmup: 3,
        reps: 20,
        looped: 10,
    };
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        let mut value = || it.next().copied().ok_or(format!("{a} needs a value"));
        let num = |s: &str| {
            s.parse::<usize>()
                .map_err(|_| format!("{a}: not a number: {s}"))
        };
        match a {
            "--sizes" => {
                o.sizes = value()?.split(',').map(num).collect::<Result<_, _>>()?;
            }
            "--warmup" => o.warmup = num(value()?)?,
            "--reps" => o.reps = num(value()?)?.max(1),
            "--loop" => o.looped = num(value()?)?.max(1),
            _ => return Err(format!("unknown option {a}\n{}", crate::USAGE)),
        }
    }
    Ok(o)
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let e = |e: borch_tensor::BorchError| e.to_string();
    let o = parse(args)?;
    let device = default_device().map_err(|e| e.to_string())?;
    let info = device.adapter_info().clone();
    eprintln!("adapter: {info}");
    manual_seed(0);
    for &n in &o.sizes {
        let a = randn(&[n, n], None).map_err(e)?;
        let b = randn(&[n, n], None).map_err(e)?;
        device.synchronize().map_err(|e| e.to_string())?;
        let first = Instant::now();
        read_one(&a.matmul(&b).map_err(e)?)?;
        let first_ms = ms(first);
        let (mut total, mut issue, mut read) = (vec![], vec![], vec![]);
        let (mut synced, mut reread, mut looped) = (vec![], vec![], vec![]);
        let (d0, s0) = (device.dispatches(), device.submits());
        for rep in 0..o.warmup + o.reps {
            let keep = rep >= o.warmup;
            let t = Instant::now();
            let c = a.matmul(&b).map_err(e)?;
            let issued = ms(t);
            let r = Instant::now();
            read_one(&c)?;
            if keep {
                issue.push(issued);
                read.push(ms(r));
                total.push(ms(t));
            }
        }
        let per_call = (device.dispatches() - d0, device.submits() - s0);
        for rep in 0..o.warmup + o.reps {
            let t = Instant::now();
            let c = a.matmul(&b).map_err(e)?;
            device.synchronize().map_err(|e| e.to_string())?;
            let s = ms(t);
            let r = Instant::now();
            read_one(&c)?;
            if rep >= o.warmup {
                synced.push(s);
                reread.push(ms(r));
            }
        }
        for rep in 0..o.warmup.min(1) + o.reps.div_ceil(4) {
            let t = Instant::now();
            let mut c = a.matmul(&b).map_err(e)?;
            for _ in 1..o.looped {
                c = a.matmul(&b).map_err(e)?;
            }
            read_one(&c)?;
            if rep >= o.warmup.min(1) {
                looped.push(ms(t) / o.looped as f64);
            }
        }
        let flops = 2.0 * (n as f64).powi(3);
        let (total, issue, read) = (median(&mut total), median(&mut issue), median(&mut read));
        let (synced, reread, looped) = (
            median(&mut synced),
            median(&mut reread),
            median(&mut looped),
        );
        println!(
            "matmul-call {n}³: call+read {total:.2} ms (host issue {issue:.3} ms, read {read:.2} ms), \
             call+sync {synced:.2} ms, read of a finished result {reread:.2} ms, back to back \
             {looped:.2} ms per matmul ({:.0} GFLOP/s), first call {first_ms:.0} ms, \
             {} dispatches / {} submits per {} calls [{}]",
            flops / looped / 1e6,
            per_call.0,
            per_call.1,
            o.warmup + o.reps,
            info.short()
        );
        println!(
            "{}",
            json!({"bench": "matmul-call", "impl": "borch", "n": n, "call_read_ms": total,
                   "issue_ms": issue, "read_ms": read, "call_sync_ms": synced,
                   "reread_ms": reread, "loop_ms": looped, "first_call_ms": first_ms,
                   "adapter": info.short()})
        );
    }
    Ok(())
}
