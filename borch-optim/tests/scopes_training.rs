//! A training step per memory scope keeps `memory()` flat for 1,000 steps (issue 3, part 5):
//! a linear model y = x·w + b, MSE written with tensor ops, borch-autograd's backward and
//! borch-optim's SGD with momentum, whose state and the parameters' grads must outlive each
//! step's scope. The same loop without scopes is measured and printed, and so are both loops
//! when every step's loss handle is kept, as a JS or Python caller's handles are until their
//! garbage collector runs. One #[test]: `memory()` counts the whole device.

use borch_autograd::Backward;
use borch_device::MemoryStats;
use borch_optim::{Optimizer, SGD, SgdOptions};
use borch_tensor::{Result, Tensor, default_device, keep_alive, manual_seed, randn, scope};

const STEPS: usize = 1000;
const WARM_UP: usize = 10;

struct Problem {
    x: Tensor,
    y: Tensor,
    w: Tensor,
    b: Tensor,
    opt: SGD,
}

/// Data y = x·w_true + b_true (x of shape 8x4, two outputs) and a fresh model at zero.
fn problem() -> Result<Problem> {
    manual_seed(0);
    let x = randn(&[8, 4], None)?;
    let w_true = Tensor::new([[1.0f32, -2.0], [0.5, 0.0], [-1.0, 1.5], [2.0, 0.25]])?;
    let b_true = Tensor::new([0.5f32, -1.0])?;
    let y = forward(&x, &w_true, &b_true)?;
    let w = keep_alive(&Tensor::new([[0.0f32; 2]; 4])?);
    let b = keep_alive(&Tensor::new([0.0f32; 2])?);
    w.set_requires_grad(true)?;
    b.set_requires_grad(true)?;
    let opt = SGD::new(
        vec![w.clone(), b.clone()],
        SgdOptions::new(0.05).momentum(0.9),
    )?;
    Ok(Problem { x, y, w, b, opt })
}

/// x·w + b from broadcasting ops: (8,4,1) * (4,2) summed over dim 1, plus b.
fn forward(x: &Tensor, w: &Tensor, b: &Tensor) -> Result<Tensor> {
    x.unsqueeze(-1)?.mul(w)?.sum(Some(&[1]), false)?.add(b)
}

/// One step; returns the loss (before the update).
fn step(p: &mut Problem) -> Result<Tensor> {
    p.opt.zero_grad(true)?;
    let pred = forward(&p.x, &p.w, &p.b)?;
    let loss = pred.sub(&p.y)?.square()?.mean(None, false)?;
    loss.backward()?;
    p.opt.step()?;
    Ok(loss)
}

fn loss_value(loss: &Tensor) -> Result<f64> {
    Ok(loss.item_blocking()?.to_f64())
}

/// Run `steps` steps, in a scope each or not, keeping every loss handle or not; returns the
/// memory after warm-up and after every later step, and the first and last loss.
fn train(steps: usize, scoped: bool, hold_handles: bool) -> Result<(Vec<MemoryStats>, f64, f64)> {
    let dev = default_device()?;
    let mut p = problem()?;
    let mut held = Vec::new();
    let mut memory = Vec::new();
    let (mut first, mut last) = (0.0, 0.0);
    for i in 0..steps {
        let read = i == 0 || i + 1 == steps;
        let loss = if scoped {
            scope(|_| {
                let loss = step(&mut p)?;
                if read {
                    last = loss_value(&loss)?;
                }
                Ok(loss)
            })?
        } else {
            let loss = step(&mut p)?;
            if read {
                last = loss_value(&loss)?;
            }
            loss
        };
        if i == 0 {
            first = last;
        }
        if hold_handles {
            held.push(loss);
        }
        dev.flush()?;
        if i + 1 >= WARM_UP {
            memory.push(dev.memory());
        }
    }
    assert!(
        p.w.grad().is_some_and(|g| !g.is_released()),
        "grads outlive the step's scope"
    );
    assert!(p.b.grad().is_some_and(|g| !g.is_released()));
    Ok((memory, first, last))
}

fn report(name: &str, memory: &[MemoryStats]) {
    let (a, z) = (memory[0], memory[memory.len() - 1]);
    let max = memory.iter().map(|m| m.bytes).max().unwrap_or(0);
    println!(
        "{name}: memory after step {WARM_UP}: {} buffers / {} bytes; after step {}: {} buffers / \
         {} bytes (peak {max} bytes)",
        a.buffers,
        a.bytes,
        WARM_UP + memory.len() - 1,
        z.buffers,
        z.bytes
    );
}

#[test]
fn training_in_scopes_keeps_memory_flat() {
    let dev = default_device().unwrap();
    let start = std::time::Instant::now();
    let baseline = dev.memory();

    let (scoped, first, last) = train(STEPS, true, false).unwrap();
    report("1,000 steps, one scope per step", &scoped);
    println!("  loss {first:.4e} -> {last:.4e}");
    assert!(
        last < first * 1e-3,
        "the model learns: loss {first} -> {last}"
    );
    assert!(
        scoped.iter().all(|m| *m == scoped[0]),
        "memory() stays flat after warm-up in scopes"
    );

    let (plain, first_plain, last_plain) = train(STEPS, false, false).unwrap();
    report("1,000 steps, no scope (Rust drops free each step)", &plain);
    assert_eq!(
        (first_plain, last_plain),
        (first, last),
        "scopes change no numbers"
    );

    let held_steps = 200;
    let (held_scoped, ..) = train(held_steps, true, true).unwrap();
    report(
        "200 steps, one scope per step, every loss handle kept",
        &held_scoped,
    );
    assert!(
        held_scoped.iter().all(|m| *m == held_scoped[0]),
        "scopes release what live handles still point to"
    );
    let (held_plain, ..) = train(held_steps, false, true).unwrap();
    report("200 steps, no scope, every loss handle kept", &held_plain);
    let (a, z) = (held_plain[0], held_plain[held_plain.len() - 1]);
    assert!(
        z.bytes > a.bytes,
        "without scopes, held handles keep each step's graph alive"
    );

    assert_eq!(dev.memory(), baseline, "nothing outlives the loops");
    println!("took {:.1?}", start.elapsed());
}
