//! The cost of one MLP training step, pinned (issue 3: "count dispatches and submits for one MLP
//! training step and pin them in a test, so that a regression in cost fails CI").
//!
//! The step is the one `cargo xtask demo` runs, on a small MLP (8→16→4, ReLU, batch 4): forward
//! (two `addmm` layers as torch's `F.linear`), cross-entropy as `-log_softmax.gather.mean`,
//! backward, a fused Adam step, and the loss read back — all inside one memory scope. Counts
//! come from the device's counters around each phase, after two warm-up steps (Adam's state is
//! made on its first step). A change in any number below is a change in cost: if it is an
//! improvement, lower the pin and its comment; if not, find the op that got dearer.

use borch_autograd::Backward;
use borch_optim::{Adam, AdamOptions, Optimizer};
use borch_tensor::{
    DType, Device, Result, Tensor, default_device, empty, keep_alive, manual_seed, randint, randn,
    scope,
};

/// torch's `nn.Linear(fan_in, fan_out)` parameters: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
fn linear(fan_in: usize, fan_out: usize) -> Result<(Tensor, Tensor)> {
    let bound = 1.0 / (fan_in as f64).sqrt();
    let param = |shape: &[usize]| -> Result<Tensor> {
        let t = keep_alive(&empty(shape, DType::Float32)?);
        t.uniform_(-bound, bound, None)?;
        t.set_requires_grad(true)?;
        Ok(t)
    };
    Ok((param(&[fan_out, fan_in])?, param(&[fan_out])?))
}

/// Dispatches and submits of each phase of one step.
#[derive(Debug, Default, PartialEq)]
struct Cost {
    forward: (u64, u64),
    backward: (u64, u64),
    optimizer: (u64, u64),
    readback: (u64, u64),
}

struct Meter<'a> {
    device: &'a Device,
    last: (u64, u64),
}

impl Meter<'_> {
    /// Dispatches and submits since the last call.
    fn lap(&mut self) -> (u64, u64) {
        let now = (self.device.dispatches(), self.device.submits());
        let d = (now.0 - self.last.0, now.1 - self.last.1);
        self.last = now;
        d
    }
}

#[test]
fn one_mlp_training_step_costs_27_dispatches_and_1_submit() -> Result<()> {
    manual_seed(0);
    let device = default_device()?;
    let (w1, b1) = linear(8, 16)?;
    let (w2, b2) = linear(16, 4)?;
    let x = keep_alive(&randn(&[4, 8], None)?);
    let y = keep_alive(&randint(0, 4, &[4], None)?);
    let params = vec![w1.clone(), b1.clone(), w2.clone(), b2.clone()];
    let mut opt = Adam::new(params, AdamOptions::new(1e-2))?;

    let mut costs = Vec::new();
    let mut losses = Vec::new();
    let mut memory = Vec::new();
    for step in 0..5 {
        let cost = scope(|_| {
            let mut m = Meter {
                device: &device,
                last: (device.dispatches(), device.submits()),
            };
            opt.zero_grad(true)?;
            let h = b1.addmm(&x, &w1.t()?, 1.0, 1.0)?.relu()?;
            let logits = b2.addmm(&h, &w2.t()?, 1.0, 1.0)?;
            let loss = logits
                .log_softmax(1)?
                .gather(1, &y.unsqueeze(1)?)?
                .mean(None, false)?
                .neg()?;
            let forward = m.lap();
            loss.backward()?;
            let backward = m.lap();
            opt.step()?;
            let optimizer = m.lap();
            losses.push(loss.item_blocking()?.to_f64());
            let readback = m.lap();
            Ok(Cost {
                forward,
                backward,
                optimizer,
                readback,
            })
        })?;
        memory.push(device.memory());
        if step >= 2 {
            costs.push(cost);
        }
    }
    let pinned = Cost {
        // addmm ×2 (one GEMM kernel each; the bias is read through its stride-0 expand and
        // weight.t() through its strides, no copies) + relu + log_softmax (one kernel per call)
        // + gather + mean + neg.
        forward: (7, 0),
        // 16: the root gradient (ones: 1 fill); neg 1; mean 1 (g expanded, divided by n);
        // gather 3 (zeros of the logits' shape 1, scatter_add's copy of them 1, its add 1);
        // log_softmax 4 (g.sum(dim), y.exp(), mul, sub); addmm of layer 2: 2 GEMMs (grad of h,
        // and of w2.t() computed as (g.t() @ h).t(), so it is already in w2's layout and the
        // permute's backward makes it contiguous without a copy) and the bias's grad is g
        // itself; relu 1 (threshold_backward's one kernel); addmm of layer 1: 1 GEMM (w1's; x requires no
        // grad, so none is computed for it); the two biases' expand backward: a sum each (2).
        // zero_grad(set_to_none) means grads are assigned, not added: no accumulate kernels.
        backward: (16, 0),
        // One fused kernel per parameter; the grads are contiguous already (no copies).
        optimizer: (4, 0),
        // The loss's readback is the step's only submit: the whole step's dispatches, the loss
        // and the index-error flag (set by gather and scatter_add) go in one submit.
        readback: (0, 1),
    };
    for cost in &costs {
        assert_eq!(cost, &pinned);
    }
    let per_step = |c: &Cost| {
        let all = [c.forward, c.backward, c.optimizer, c.readback];
        (
            all.iter().map(|p| p.0).sum::<u64>(),
            all.iter().map(|p| p.1).sum::<u64>(),
        )
    };
    assert_eq!(per_step(&pinned), (27, 1));
    // The step's scope releases everything but parameters, grads and Adam's state.
    assert!(
        memory[1..].iter().all(|m| *m == memory[1]),
        "memory grew: {memory:?}"
    );
    assert!(losses.iter().all(|l| l.is_finite()));
    assert!(losses[4] < losses[0], "the loss did not fall: {losses:?}");
    println!(
        "one training step (8→16→4 MLP, batch 4, Adam): {:?} dispatches and submits per phase \
         (forward, backward, optimizer, readback) [{}]",
        pinned,
        device.adapter_info().short()
    );
    Ok(())
}
