//! The GPU cost of one MLP training step (Linear-ReLU-Linear-ReLU-Linear, cross-entropy, Adam),
//! pinned: dispatches per phase and submits per step. A change that adds work fails here; if
//! the change is intended, update the numbers.

mod step_cost;

use borch_nn::{CrossEntropyLoss, Linear, Module, ReLU, sequential};
use borch_optim::{Adam, AdamOptions};
use borch_tensor::{Tensor, manual_seed, randn};
use step_cost::{Cost, measured_step};

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
    let mut costs = Vec::new();
    for _ in 0..3 {
        costs.push(measured_step(&model, &loss_fn, &mut opt, &x, &y).0);
    }
    println!("{costs:#?}");
    // Steady state (the first step also creates the optimizer state).
    assert_eq!(
        costs[2],
        Cost {
            forward: 5, // three addmm, two relu
            loss: 10,   // log_softmax, target prep (3), gather, product, sums and divisor (4)
            // No GEMM for the grad of x (it requires none); weights' grads come out of addmm's
            // backward in the weights' own layout (torch's mm_mat2_backward), so no copies; each
            // ReLU's derivative is one kernel (threshold_backward).
            backward: 20,
            step: 6,    // one fused Adam kernel per parameter (grads already contiguous)
            submits: 1, // the loss readback, which reads the index-error flag in the same submit
        }
    );
}
