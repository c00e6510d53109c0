//! A small CNN (Conv2d-ReLU-MaxPool2d-Conv2d-ReLU-AvgPool2d-Flatten-Linear, cross-entropy, Adam):
//! it learns a fixed batch, and the GPU cost of one training step is pinned per phase. A change
//! that adds work fails here; if the change is intended, update the numbers.

use borch_autograd::backward;
use borch_nn::{
    AvgPool2d, Conv2d, ConvOptions, CrossEntropyLoss, Flatten, Linear, MaxPool2d, Module, ReLU,
    Sequential, sequential,
};
use borch_optim::{Adam, AdamOptions, Optimizer};
use borch_tensor::{Padding, Tensor, default_device, manual_seed, randn};

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

#[derive(Debug, PartialEq, Eq)]
struct Cost {
    forward: u64,
    loss: u64,
    backward: u64,
    step: u64,
    submits: u64,
}

#[test]
fn cnn_learns_a_batch_and_its_step_cost_is_pinned() {
    manual_seed(0);
    let model = model();
    let x = randn(&[4, 1, 8, 8], None).unwrap();
    let y = Tensor::from_slice(&[0i64, 1, 2, 1], &[4]).unwrap();
    let loss_fn = CrossEntropyLoss::new();
    let mut opt = Adam::new(model.parameters(), AdamOptions::new(0.02)).unwrap();
    let device = default_device().unwrap();
    let mut costs = Vec::new();
    let mut losses = Vec::new();
    for _ in 0..30 {
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
        losses.push(loss.item_blocking().unwrap().to_f64());
        costs.push(Cost {
            forward: d1 - d0,
            loss: d2 - d1,
            backward: d3 - d2,
            step: d4 - d3,
            submits: device.submits() - s0,
        });
    }
    println!("losses {losses:?}");
    println!("{:#?}", costs[2]);
    // Steady state (the first step also creates the optimizer state).
    assert_eq!(
        costs[2],
        Cost {
            // conv: im2col, matmul, bias (x2); relu (x2); max pool: im2col, max; avg pool:
            // im2col, mean; linear: addmm
            forward: 13,
            loss: 10,
            backward: 34,
            step: 6, // one fused Adam kernel per parameter
            submits: 1,
        }
    );
    assert!(
        losses[29] < 0.2 * losses[0],
        "the CNN learns its batch: {losses:?}"
    );
}
