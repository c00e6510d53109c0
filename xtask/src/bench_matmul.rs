//! `cargo xtask bench matmul`: GFLOP/s of borch's tiled matmul next to a naive WGSL kernel
//! measured in the same run on the same adapter, each result checked against the other.
//!
//! Timing: a first call (pipeline compile included, reported as `first_call_ms`), then one
//! synchronized call to size the run, then `--reps` runs of N calls recorded back to back between
//! two `synchronize()`s, N chosen so a run lasts about `--seconds`; the fastest run counts.
//! `--tiles` also measures other kernel tiles (the ones `--tile TXxTYxRxCxK,...` names too).
//!
//! Output: one line per shape, `matmul MxKxN: borch X GFLOP/s, naive Y GFLOP/s [adapter]`
//! (batched shapes are `BxMxKxN`), then one JSON line (`{"bench":"matmul",...}`).

use std::time::Instant;

use borch_device::{Binding, Device, Kernel, PooledBuffer, default_device};
use borch_tensor::Tensor;
use borch_tensor::ops::matmul::MatmulTile;
use serde_json::json;

/// Naive matmul: one thread per output, a plain loop over K reading global memory.
/// Params: M, N, K. Batched through workgroup z (contiguous operands).
const NAIVE_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let M = p[0]; let N = p[1]; let K = p[2];
    let row = gid.y; let col = gid.x;
    if (row >= M || col >= N) { return; }
    let ab = gid.z * M * K; let bb = gid.z * K * N;
    var acc = 0.0;
    for (var k = 0u; k < K; k = k + 1u) {
        acc = acc + a[ab + row * K + k] * b[bb + k * N + col];
    }
    out[gid.z * M * N + row * N + col] = acc;
}
"#;

/// Tiles tried by `--tiles` on a GPU, besides borch's own pick.
const GPU_SWEEP: [MatmulTile; 10] = [
    MatmulTile::new(16, 16, 8, 8, 8),
    MatmulTile::new(16, 16, 8, 8, 8).double_buffered(),
    MatmulTile::new(16, 16, 8, 8, 16).double_buffered(),
    MatmulTile::new(16, 8, 16, 8, 8).double_buffered(),
    MatmulTile::new(16, 16, 8, 8, 16),
    MatmulTile::new(16, 16, 4, 8, 16),
    MatmulTile::new(16, 16, 8, 4, 16),
    MatmulTile::new(16, 16, 4, 4, 16),
    MatmulTile::new(8, 8, 8, 8, 16),
    MatmulTile::new(16, 8, 16, 8, 8),
];

/// Tiles tried by `--tiles` on a software adapter.
const SOFTWARE_SWEEP: [MatmulTile; 4] = [
    MatmulTile::new(8, 8, 32, 32, 8),
    MatmulTile::new(8, 8, 16, 16, 8),
    MatmulTile::new(8, 8, 8, 8, 8),
    MatmulTile::strip(8, 16, 4),
];

struct Options {
    sizes: Vec<usize>,
    batched: Vec<[usize; 4]>,
    tiles: bool,
    naive: bool,
    reps: usize,
    extra_tiles: Vec<MatmulTile>,
    seconds: f64,
}

fn parse(args: &[&str], software: bool) -> Result<Options, String> {
    let mut o = Options {
        sizes: if software {
            vec![256, 512, 1024]
        } else {
            vec![256, 512, 1024, 2048, 4096]
        },
        batched: vec![[32, 256, 256, 256]],
        tiles: false,
        naive: true,
        reps: 3,
        extra_tiles: Vec::new(),
        seconds: if software { 1.0 } else { 0.3 },
    };
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || it.next().copied().ok_or(format!("{arg} needs a value"));
        match arg {
            "--sizes" => {
                o.sizes = value()?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().map_err(|_| format!("bad size {s}")))
                    .collect::<Result<_, _>>()?;
            }
            "--batched" => {
                o.batched = value()?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| {
                        let d: Vec<usize> = s.split('x').filter_map(|x| x.parse().ok()).collect();
                        <[usize; 4]>::try_from(d).map_err(|_| format!("bad batched shape {s}"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--tiles" => o.tiles = true,
            "--no-naive" => o.naive = false,
            "--tile" => {
                // threads_x x threads_y x rows x cols x bk (bk 0: a register strip), `d` at
                // the end for double-buffered staging
                for spec in value()?.split(',') {
                    o.extra_tiles.push(spec.parse()?);
                }
            }
            "--reps" => o.reps = value()?.parse().map_err(|_| "bad --reps".to_string())?,
            "--seconds" => {
                o.seconds = value()?.parse().map_err(|_| "bad --seconds".to_string())?;
            }
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

/// Seconds per call of an already warmed-up `call` (pipeline compiled): one synchronized call
/// sizes the run, then `reps` runs of `n` calls recorded back to back (each between two
/// `synchronize()`s, `n` chosen so a run lasts about `seconds`); the fastest run counts, as other
/// work on the machine only ever slows a run. A call slower than `seconds` is timed once.
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

struct Naive {
    a: PooledBuffer,
    b: PooledBuffer,
    out: PooledBuffer,
    params: [u32; 3],
    groups: [u32; 3],
}

impl Naive {
    fn new(
        device: &Device,
        av: &[f32],
        bv: &[f32],
        [batch, m, k, n]: [usize; 4],
    ) -> Result<Naive, String> {
        let e = |e: borch_device::DeviceError| e.to_string();
        Ok(Naive {
            a: device.upload(bytes(av)).map_err(e)?,
            b: device.upload(bytes(bv)).map_err(e)?,
            out: device.alloc((batch * m * n * 4) as u64).map_err(e)?,
            params: [m as u32, n as u32, k as u32],
            groups: [n.div_ceil(16) as u32, m.div_ceil(16) as u32, batch as u32],
        })
    }

    /// One output only: compiles the pipeline without the cost of a full product.
    fn warm_up(&self, device: &Device) -> Result<(), String> {
        self.dispatch(device, &[1, 1, 1], [1, 1, 1])?;
        device.synchronize().map_err(|e| e.to_string())
    }

    fn run(&self, device: &Device) -> Result<(), String> {
        self.dispatch(device, &self.params, self.groups)
    }

    fn dispatch(&self, device: &Device, params: &[u32], groups: [u32; 3]) -> Result<(), String> {
        let source = || NAIVE_WGSL.to_string();
        let kernel = Kernel {
            key: "xtask|naive-matmul",
            source: &source,
            // Every access is guarded by `row < M && col < N`, k < K, z < batch.
            bounds_checked: false,
        };
        let bindings = [&self.out, &self.a, &self.b].map(|b| Binding { buffer: b.buffer() });
        device
            .dispatch(&kernel, &bindings, params, groups)
            .map_err(|e| e.to_string())
    }

    fn read(&self, device: &Device, len: usize) -> Result<Vec<f32>, String> {
        let raw = pollster::block_on(device.read(self.out.buffer(), 0, (len * 4) as u64))
            .map_err(|e| e.to_string())?;
        Ok(raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

fn bytes(v: &[f32]) -> &[u8] {
    // SAFETY: f32 has no padding or invalid bit patterns; the slice covers exactly v's memory.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v)) }
}

/// Largest |borch - naive| relative to max(1, |naive|); the run fails above
/// 1e-3 * max(1, sqrt(K / 1024)).
fn max_rel_diff(x: &[f32], y: &[f32]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(&a, &b)| f64::from((a - b).abs()) / f64::from(b.abs()).max(1.0))
        .fold(0.0, f64::max)
}

fn shape_name([batch, m, k, n]: [usize; 4]) -> String {
    if batch == 1 {
        format!("{m}x{k}x{n}")
    } else {
        format!("{batch}x{m}x{k}x{n}")
    }
}

pub fn run(args: &[&str]) -> Result<(), String> {
    let device = default_device().map_err(|e| e.to_string())?;
    let info = device.adapter_info().clone();
    let adapter = info.short();
    let o = parse(args, info.is_software)?;
    eprintln!("adapter: {info}");
    let mut shapes: Vec<[usize; 4]> = o.sizes.iter().map(|&s| [1, s, s, s]).collect();
    shapes.extend(o.batched.iter().copied());
    let mut results = Vec::new();
    let mut failed = false;
    for shape in shapes {
        let [batch, m, k, n] = shape;
        let flops = 2.0 * (batch * m * k * n) as f64;
        let av = values(batch * m * k, 1 + m as u64);
        let bv = values(batch * k * n, 2 + n as u64);
        let (a, b) = if batch == 1 {
            (
                Tensor::from_slice(&av, &[m, k]).map_err(|e| e.to_string())?,
                Tensor::from_slice(&bv, &[k, n]).map_err(|e| e.to_string())?,
            )
        } else {
            (
                Tensor::from_slice(&av, &[batch, m, k]).map_err(|e| e.to_string())?,
                Tensor::from_slice(&bv, &[batch, k, n]).map_err(|e| e.to_string())?,
            )
        };
        let product = |tile: Option<MatmulTile>| {
            if batch == 1 {
                a.mm_with_tile(&b, tile)
            } else {
                a.bmm_with_tile(&b, tile)
            }
        };
        let (naive_s, want) = if o.naive {
            let naive = Naive::new(&device, &av, &bv, shape)?;
            naive.warm_up(&device)?;
            let s = time(&device, o.seconds, o.reps, || naive.run(&device))?;
            (Some(s), Some(naive.read(&device, batch * m * n)?))
        } else {
            (None, None)
        };
        let mut tiles: Vec<Option<MatmulTile>> = vec![None];
        if o.tiles {
            let sweep: &[MatmulTile] = if info.is_software {
                &SOFTWARE_SWEEP
            } else {
                &GPU_SWEEP
            };
            tiles.extend(sweep.iter().map(|&t| Some(t)));
        }
        tiles.extend(o.extra_tiles.iter().map(|&t| Some(t)));
        let mut borch_s = f64::INFINITY;
        let mut borch_first_ms = 0.0;
        let mut sweep = Vec::new();
        let mut worst = 0.0f64;
        for tile in tiles {
            if let Some(t) = tile
                && t.check(device.limits()).is_err()
            {
                continue;
            }
            let first = Instant::now();
            let first_out = product(tile).map_err(|e| e.to_string())?;
            device.synchronize().map_err(|e| e.to_string())?;
            let first_ms = first.elapsed().as_secs_f64() * 1e3;
            let s = time(&device, o.seconds, o.reps, || {
                product(tile).map(drop).map_err(|e| e.to_string())
            })?;
            let got = first_out
                .to_vec_blocking::<f32>()
                .map_err(|e| e.to_string())?;
            let diff = want.as_ref().map_or(0.0, |w| max_rel_diff(&got, w));
            worst = worst.max(diff);
            if let Some(t) = tile {
                println!(
                    "  matmul {} tile {t}: {:.1} GFLOP/s, first call {first_ms:.0} ms, max rel diff {diff:.1e}",
                    shape_name(shape),
                    flops / s / 1e9
                );
                sweep.push(json!({"tile": t.to_string(), "gflops": flops / s / 1e9, "first_call_ms": first_ms}));
            } else {
                borch_s = s;
                borch_first_ms = first_ms;
            }
        }
        // f32 sums of K products differ by rounding order; the error grows like sqrt(K).
        let tolerance = 1e-3 * (k as f64 / 1024.0).sqrt().max(1.0);
        let ok = worst <= tolerance;
        failed |= !ok;
        let borch = flops / borch_s / 1e9;
        let naive_g = naive_s.map(|s| flops / s / 1e9);
        let naive_text = naive_g.map_or("naive not run".to_string(), |g| {
            format!("naive {g:.1} GFLOP/s")
        });
        println!(
            "matmul {}: borch {borch:.1} GFLOP/s, {naive_text}{} [{adapter}]",
            shape_name(shape),
            if ok {
                String::new()
            } else {
                format!(", WRONG (max rel diff {worst:.1e})")
            }
        );
        results.push(json!({
            "shape": shape_name(shape),
            "batch": batch, "m": m, "k": k, "n": n,
            "borch_gflops": borch,
            "naive_gflops": naive_g,
            "borch_ms": borch_s * 1e3,
            "borch_first_call_ms": borch_first_ms,
            "naive_ms": naive_s.map(|s| s * 1e3),
            "max_rel_diff": worst,
            "tile": borch_tensor::ops::matmul::default_tile(&device, batch, m, k, n).to_string(),
            "sweep": sweep,
        }));
    }
    println!(
        "{}",
        json!({
            "bench": "matmul",
            "impl": "borch",
            "adapter": adapter,
            "device": info.device,
            "software": info.is_software,
            "results": results,
        })
    );
    if failed {
        return Err("borch's matmul disagreed with the naive kernel".into());
    }
    Ok(())
}
