//! `checkpoint(function, inputs, params)` (torch.utils.checkpoint, use_reentrant=False): the
//! gradients of a deep tanh MLP with its blocks checkpointed equal those of the plain run bit
//! for bit (the recompute runs the same kernels), a dropout inside a block draws the same mask
//! in the recompute, and the peak memory of forward + backward is lower; the same through
//! `checkpoint_capturing` (what the bindings call: the captured weights found from the graph of
//! one recorded forward, which is released at once), whose peak is no higher.

use borch_autograd::{Backward, checkpoint, checkpoint_capturing};
use borch_tensor::{Result, Tensor, default_device, manual_seed, randn};

const DEPTH: usize = 12;
const WIDTH: usize = 256;
const BATCH: usize = 64;

/// `DEPTH` tanh layers `x W + b` of width `WIDTH`.
fn weights() -> Result<Vec<(Tensor, Tensor)>> {
    (0..DEPTH)
        .map(|_| {
            let w = randn(&[WIDTH, WIDTH], None)?.mul(1.0 / (WIDTH as f64).sqrt())?;
            let b = randn(&[WIDTH], None)?.mul(0.1)?;
            w.set_requires_grad(true)?;
            b.set_requires_grad(true)?;
            Ok((w, b))
        })
        .collect()
}

fn layer(x: &Tensor, w: &Tensor, b: &Tensor) -> Result<Tensor> {
    x.matmul(w)?.add(b)?.tanh()
}

/// Loss and every gradient, the blocks of `per_block` layers checkpointed or not.
fn run(
    ws: &[(Tensor, Tensor)],
    x: &Tensor,
    per_block: Option<usize>,
    capturing: bool,
) -> Result<(f32, Vec<Vec<f32>>, u64)> {
    let device = default_device()?;
    for (w, b) in ws {
        w.set_grad(None);
        b.set_grad(None);
    }
    device.synchronize()?;
    device.reset_peak_memory_stats();
    let base = device.memory().bytes;
    let mut h = x.clone();
    match per_block {
        None => {
            for (w, b) in ws {
                h = layer(&h, w, b)?;
            }
        }
        Some(n) => {
            for block in ws.chunks(n) {
                let block: Vec<(Tensor, Tensor)> = block.to_vec();
                let params: Vec<Tensor> = block
                    .iter()
                    .flat_map(|(w, b)| [w.clone(), b.clone()])
                    .collect();
                let f = move |inputs: &[Tensor]| {
                    let mut h = inputs[0].clone();
                    for (w, b) in &block {
                        h = layer(&h, w, b)?;
                    }
                    Ok(h)
                };
                h = if capturing {
                    checkpoint_capturing(f, &[h])?
                } else {
                    checkpoint(f, &[h], &params)?
                };
            }
        }
    }
    let loss = h.square()?.mean(None, false)?;
    loss.backward()?;
    let value = loss.to_vec_blocking::<f32>()?[0];
    device.synchronize()?;
    let peak = device.max_memory_allocated() - base;
    let grads = ws
        .iter()
        .flat_map(|(w, b)| [w, b])
        .map(|t| t.grad().expect("grad").to_vec_blocking::<f32>())
        .collect::<Result<_>>()?;
    Ok((value, grads, peak))
}

/// Held by every test of this binary: they share the process's generator (a checkpoint saves
/// and restores its state) and the device's peak-memory statistics.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn checkpointed_blocks_give_the_same_gradients_with_less_memory() -> Result<()> {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    manual_seed(0);
    let ws = weights()?;
    let x = randn(&[BATCH, WIDTH], None)?;
    let (loss, grads, peak) = run(&ws, &x, None, false)?;
    let (loss_c, grads_c, peak_c) = run(&ws, &x, Some(4), false)?;
    assert_eq!(loss, loss_c, "loss");
    assert_eq!(grads, grads_c, "gradients");
    assert!(peak_c < peak, "peak {peak_c} B checkpointed vs {peak} B");
    let (loss_k, grads_k, peak_k) = run(&ws, &x, Some(4), true)?;
    assert_eq!(loss, loss_k, "loss (capturing)");
    assert_eq!(grads, grads_k, "gradients (capturing)");
    assert!(peak_k <= peak_c, "peak {peak_k} B capturing vs {peak_c} B");
    println!(
        "checkpoint_capturing: the same blocks, weights found from the graph: gradients equal bit \
         for bit, peak {peak_k} B"
    );
    println!(
        "checkpoint: {DEPTH}-layer tanh MLP (batch {BATCH}, width {WIDTH}) in blocks of 4: \
         gradients equal bit for bit, peak memory of forward + backward {peak_c} B vs {peak} B \
         ({:.0}% saved) [{}]",
        100.0 * (1.0 - peak_c as f64 / peak as f64),
        default_device()?.adapter_info().short()
    );
    Ok(())
}

#[test]
fn the_recompute_draws_the_same_random_values() -> Result<()> {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    manual_seed(1);
    let x = randn(&[8, 16], None)?;
    x.set_requires_grad(true)?;
    let f = |inputs: &[Tensor]| -> Result<Tensor> {
        let noise = randn(inputs[0].shape(), None)?;
        inputs[0].mul(&noise)
    };
    manual_seed(5);
    f(std::slice::from_ref(&x))?.sum(None, false)?.backward()?;
    let plain = x.grad().expect("grad").to_vec_blocking::<f32>()?;
    x.set_grad(None);
    manual_seed(5);
    checkpoint(f, std::slice::from_ref(&x), &[])?
        .sum(None, false)?
        .backward()?;
    let recomputed = x.grad().expect("grad").to_vec_blocking::<f32>()?;
    assert_eq!(
        plain, recomputed,
        "the recompute's noise differs from the forward's"
    );
    Ok(())
}
