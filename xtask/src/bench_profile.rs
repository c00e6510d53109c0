//! `--profile N` of the benches: one more step with every dispatch submitted and waited for on
//! its own (`Device::set_profiling`), then the N kernels that took the most wall time. The step
//! is not one of the timed ones; the table says where a step's GPU time goes (from timestamp
//! queries where the adapter has them, else wall time including a submit and wait each).

use borch_device::Device;

use crate::bench_calls::err;

/// Run `step` once profiled and print the `top` most expensive kernels.
pub fn report(
    device: &Device,
    top: usize,
    step: impl FnOnce() -> Result<(), String>,
) -> Result<(), String> {
    let overhead = device.profile_overhead().map_err(err)?;
    device.set_profiling(true).map_err(err)?;
    let ran = step();
    device.set_profiling(false).map_err(err)?;
    ran?;
    let kernels = device.take_profile();
    let total: f64 = kernels.iter().map(|k| k.total.as_secs_f64()).sum();
    let gpu: Option<f64> = kernels.iter().map(|k| k.gpu.map(|g| g.as_secs_f64())).sum();
    let dispatches: u64 = kernels.iter().map(|k| k.count).sum();
    let us = overhead.as_secs_f64() * 1e6;
    println!(
        "profile: one step, {dispatches} dispatches each submitted and waited for, {:.2} ms wall          in all (an empty submit and wait costs {us:.1} µs, included in each wall figure); {}",
        total * 1e3,
        match gpu {
            Some(g) => format!(
                "GPU time from timestamp queries {:.3} ms in all (each dispatch in a pass of its own)",
                g * 1e3
            ),
            None => "the adapter has no timestamp queries: rows are wall times".into(),
        }
    );
    let share_of = |k: &borch_device::KernelTime| match (k.gpu, gpu) {
        (Some(g), Some(all)) => g.as_secs_f64() / all.max(1e-12),
        _ => k.total.as_secs_f64() / total.max(1e-12),
    };
    println!(
        "  {:>8} {:>6} {:>6} {:>9} {:>9}  kernel",
        "GPU ms", "share", "count", "GPU µs ea", "wall µs ea"
    );
    for k in kernels.iter().take(top) {
        let gpu_ms = k.gpu.map(|g| g.as_secs_f64() * 1e3);
        let wall_us = k.total.as_secs_f64() * 1e6 / k.count as f64;
        println!(
            "  {:>8} {:>5.1}% {:>6} {:>9} {wall_us:>9.1}  {}",
            gpu_ms.map_or("-".into(), |g| format!("{g:.3}")),
            100.0 * share_of(k),
            k.count,
            gpu_ms.map_or("-".into(), |g| format!("{:.1}", g * 1e3 / k.count as f64)),
            k.key
        );
    }
    families(&kernels, gpu.is_some());
    Ok(())
}

/// The rows summed by kernel family: the key up to its second `|` (`conv_gemm|GradWeight`).
fn families(kernels: &[borch_device::KernelTime], gpu: bool) {
    let mut sums: Vec<(String, u64, f64)> = Vec::new();
    for k in kernels {
        let family: String = k.key.split('|').take(2).collect::<Vec<_>>().join("|");
        let family = family.split(" grid").next().unwrap_or_default().to_string();
        let ms = k.gpu.filter(|_| gpu).unwrap_or(k.total).as_secs_f64() * 1e3;
        match sums.iter_mut().find(|s| s.0 == family) {
            Some(s) => {
                s.1 += k.count;
                s.2 += ms;
            }
            None => sums.push((family, k.count, ms)),
        }
    }
    sums.sort_by(|a, b| b.2.total_cmp(&a.2));
    let what = if gpu { "GPU ms" } else { "wall ms" };
    println!("  by family ({what}, count):");
    for (family, count, ms) in sums.iter().take(16) {
        println!("  {ms:>8.3} {count:>6}  {family}");
    }
}
