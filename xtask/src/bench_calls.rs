//! A call timed as a user sees it, shared by the benches that time one op or one forward: the
//! first call (pipeline compile) separately, then `warmup` calls, then `reps` calls each
//! followed by the readback of one element of the result (so a call is timed to its finish);
//! the median counts.

use std::time::Instant;

use borch_device::Device;
use borch_tensor::Tensor;

/// What [`time_calls`] measured.
pub struct Timed {
    pub first_ms: f64,
    pub median_ms: f64,
    /// Dispatches of the first call and of the last timed one.
    pub dispatches_first: u64,
    pub dispatches: u64,
    /// The first call's result, read back whole.
    pub result: Vec<f32>,
}

pub fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// One element of `t`, read back (the call that made it has then finished).
pub fn read_one(t: &Tensor) -> Result<f32, String> {
    let one = t
        .reshape(&[-1])
        .map_err(err)?
        .narrow(0, 0, 1)
        .map_err(err)?;
    Ok(one.to_vec_blocking::<f32>().map_err(err)?[0])
}

pub fn time_calls(
    device: &Device,
    warmup: usize,
    reps: usize,
    mut call: impl FnMut() -> Result<Tensor, String>,
) -> Result<Timed, String> {
    device.synchronize().map_err(err)?;
    let start = Instant::now();
    let d0 = device.dispatches();
    let first = call()?;
    let dispatches_first = device.dispatches() - d0;
    read_one(&first)?;
    let first_ms = start.elapsed().as_secs_f64() * 1e3;
    let result = first.to_vec_blocking::<f32>().map_err(err)?;
    drop(first);
    for _ in 0..warmup {
        read_one(&call()?)?;
    }
    let (mut times, mut dispatches) = (Vec::with_capacity(reps), 0);
    for _ in 0..reps.max(1) {
        let start = Instant::now();
        let d0 = device.dispatches();
        let out = call()?;
        dispatches = device.dispatches() - d0;
        read_one(&out)?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(Timed {
        first_ms,
        median_ms: times[times.len() / 2],
        dispatches_first,
        dispatches,
        result,
    })
}
