//! One training step measured per phase: dispatches of the forward, the loss, the backward and
//! the optimizer step, and submits of the whole step (the loss readback included).

use borch_autograd::backward;
use borch_nn::{CrossEntropyLoss, Module};
use borch_optim::Optimizer;
use borch_tensor::{Tensor, default_device};

#[derive(Debug, PartialEq, Eq)]
pub struct Cost {
    pub forward: u64,
    pub loss: u64,
    pub backward: u64,
    pub step: u64,
    pub submits: u64,
}

/// Run one step of `model` on `(x, y)` and return its cost and the loss read back.
pub fn measured_step(
    model: &dyn Module,
    loss_fn: &CrossEntropyLoss,
    opt: &mut dyn Optimizer,
    x: &Tensor,
    y: &Tensor,
) -> (Cost, f64) {
    let device = default_device().unwrap();
    let (d0, s0) = (device.dispatches(), device.submits());
    opt.zero_grad(true).unwrap();
    let out = model.forward(x).unwrap();
    let d1 = device.dispatches();
    let loss = loss_fn.forward(&out, y).unwrap();
    let d2 = device.dispatches();
    backward(&loss, None, false).unwrap();
    let d3 = device.dispatches();
    opt.step().unwrap();
    let d4 = device.dispatches();
    let value = loss.item_blocking().unwrap().to_f64();
    let cost = Cost {
        forward: d1 - d0,
        loss: d2 - d1,
        backward: d3 - d2,
        step: d4 - d3,
        submits: device.submits() - s0,
    };
    (cost, value)
}
