//! The GPU cost of one MLP training step (Linear-ReLU-Linear-ReLU-Linear, cross-entropy, Adam),
//! pinned: dispatches per phase and submits per step. A change that adds work fails here; if
//! the change is intended, update the numbers.

use borch_autograd::backward;
use borch_nn::{CrossEntropyLoss, Linear, Module, ReLU, sequential};
use borch_optim::{Adam, AdamOptions, Optimizer};
use borch_tensor::{Tensor, default_device, manual_seed, randn};

#[derive(Debug, PartialEq, Eq)]
struct Cost {
    forward: u64,
    loss: u64,
    backward: u64,
    step: u64,
    submits: u64,
}

#[test]
fn mlp_training_step_cost() {
    manual_seed(0);
    let model = sequential![
        Linear::new(16, 32).unwrap(),
        ReLU::new(),
        Linear::new(32, 32).unwrap(),
        ReLU::new(),
        Linear::new(32, 10).unwrap()
    ];
    let x = randn(&[8, 16], None).unwrap();
    let y = Tensor::from_slice(&[1i64, 2, 3, 4, 5, 6, 7, 8], &[8]).unwrap();
    let loss_fn = CrossEntropyLoss::new();
    let mut opt = Adam::new(model.parameters(), AdamOptions::new(1e-3)).unwrap();
    let device = default_device().unwrap();
    let mut costs = Vec::new();
    for _ in 0..3 {
        let (d0, s0) = (device.dispatches(), device.submits());
        opt.zero_grad(true).unwrap();
        let out = model.forward(&x).unwrap();
        let d1 = device.dispatches();
        let loss = loss_fn.forward(&out, &y).unwrap();
        let d2 = device.dispatches();
        backward(&loss, None, false).unwrap();
        let d3 = device.dispatches();
        opt.step().unwrap();
        let d4 = device.dispatches();
        loss.item_blocking().unwrap();
        costs.push(Cost {
            forward: d1 - d0,
            loss: d2 - d1,
            backward: d3 - d2,
            step: d4 - d3,
            submits: device.submits() - s0,
        });
    }
    println!("{costs:#?}");
    // Steady state (the first step also creates the optimizer state).
    assert_eq!(
        costs[2],
        Cost {
            forward: 5, // three addmm, two relu
            loss: 10,   // log_softmax, target prep (3), gather, product, sums and divisor (4)
            // No GEMM for the grad of x (it requires none); weights' grads come out of addmm's
            // backward in the weights' own layout (torch's mm_mat2_backward), so no copies.
            backward: 22,
            step: 6,    // one fused Adam kernel per parameter (grads already contiguous)
            submits: 1, // the loss readback, which reads the index-error flag in the same submit
        }
    );
}
