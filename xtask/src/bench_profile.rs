//! `--profile N` of the benches: one more step with every dispatch submitted and waited for on
//! its own (`Device::set_profiling`), then the N kernels that took the most wall time. The step
//! is not one of the timed ones; the table says where a step's GPU time goes.

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
    let dispatches: u64 = kernels.iter().map(|k| k.count).sum();
    let us = overhead.as_secs_f64() * 1e6;
    println!(
        "profile: one step, {dispatches} dispatches each submitted and waited for, {:.2} ms in \
         all (an empty submit and wait costs {us:.1} µs, included in each row)",
        total * 1e3
    );
    println!(
        "  {:>7} {:>6} {:>6} {:>9}  kernel",
        "ms", "share", "count", "µs each"
    );
    for k in kernels.iter().take(top) {
        let ms = k.total.as_secs_f64() * 1e3;
        println!(
            "  {ms:>7.3} {:>5.1}% {:>6} {:>9.1}  {}",
            100.0 * k.total.as_secs_f64() / total.max(1e-12),
            k.count,
            ms * 1e3 / k.count as f64,
            k.key
        );
    }
    Ok(())
}
