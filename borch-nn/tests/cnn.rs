//! A small CNN (Conv2d-ReLU-MaxPool2d-Conv2d-ReLU-AvgPool2d-Flatten-Linear, cross-entropy, Adam):
//! it learns a fixed batch, and the GPU cost of one training step is pinned per phase. A change
//! that adds work fails here; if the change is intended, update the numbers.

mod step_cost;

use borch_nn::{
    AvgPool2d, Conv2d, ConvOptions, CrossEntropyLoss, Flatten, Linear, MaxPool2d, Module, ReLU,
    Sequential, sequential,
};
use borch_optim::{Adam, AdamOptions};
use borch_tensor::{Padding, Tensor, manual_seed, randn};
use step_cost::{Cost, measured_step};

fn model() -> Sequential {
    let same = ConvOptions::default().padding(Padding::Same);
    sequential![
        Conv2d::with_options(1, 4, &[3], same).unwrap(),
        ReLU::new(),
        MaxPool2d::new(&[2]),
        Conv2d::new(4, 8, &[3]).unwrap(),
        ReLU::new(),
        AvgPool2d::new(&[2]),
        Flatten::new(),
        Linear::new(8, 3).unwrap()
    ]
}

#[test]
fn cnn_learns_a_batch_and_its_step_cost_is_pinned() {
    manual_seed(0);
    let model = model();
    let x = randn(&[4, 1, 8, 8], None).unwrap();
    let y = Tensor::from_slice(&[0i64, 1, 2, 1], &[4]).unwrap();
    let loss_fn = CrossEntropyLoss::new();
    let mut opt = Adam::new(model.parameters(), AdamOptions::new(0.02)).unwrap();
    let mut costs = Vec::new();
    let mut losses = Vec::new();
    for _ in 0..30 {
        let (cost, loss) = measured_step(&model, &loss_fn, &mut opt, &x, &y);
        costs.push(cost);
        losses.push(loss);
    }
    println!("losses {losses:?}");
    println!("{:#?}", costs[2]);
    // Steady state (the first step also creates the optimizer state).
    assert_eq!(
        costs[2],
        Cost {
            // conv: one implicit-GEMM dispatch with the bias (x2); relu (x2); max pool:
            // im2col, max; avg pool: im2col, mean; linear: addmm
            forward: 9,
            loss: 10,
            // conv: input grad (not for the first), weight grad, bias sum; relu: one kernel each
            backward: 27,
            step: 6, // one fused Adam kernel per parameter
            submits: 1,
        }
    );
    assert!(
        losses[29] < 0.2 * losses[0],
        "the CNN learns its batch: {losses:?}"
    );
}
