//! A small MLP trained with SGD on a toy problem: the loss falls and the model learns it.

mod common;

use borch_nn::{CrossEntropyLoss, Dropout, Linear, Module, ReLU, sequential};
use borch_optim::{Optimizer, SGD, SgdOptions};
use borch_tensor::{Tensor, manual_seed, randn};

#[test]
fn mlp_with_sgd_learns_two_blobs() {
    let _rng = common::rng_lock();
    manual_seed(0);
    // Two Gaussian blobs in 2-D centred at (-1, -1) and (1, 1).
    let n = 32;
    let noise = randn(&[2 * n, 2], None).unwrap().mul(0.5).unwrap();
    let centres: Vec<f32> = (0..2 * n)
        .flat_map(|i| if i < n { [-1.0, -1.0] } else { [1.0, 1.0] })
        .collect();
    let x = Tensor::from_slice(&centres, &[2 * n, 2])
        .unwrap()
        .add(&noise)
        .unwrap();
    let labels: Vec<i64> = (0..2 * n).map(|i| i64::from(i >= n)).collect();
    let y = Tensor::from_slice(&labels, &[2 * n]).unwrap();

    let mut model = sequential![
        Linear::new(2, 16).unwrap(),
        ReLU::new(),
        Dropout::new(0.1).unwrap(),
        Linear::new(16, 2).unwrap(),
    ];
    assert_eq!(model.parameters().len(), 4);
    let loss_fn = CrossEntropyLoss::new();
    let mut opt = SGD::new(model.parameters(), SgdOptions::new(0.2).momentum(0.9)).unwrap();

    let mut losses = Vec::new();
    for _ in 0..40 {
        opt.zero_grad(true).unwrap();
        let loss = loss_fn.forward(&model.forward(&x).unwrap(), &y).unwrap();
        borch_autograd::backward(&loss, None, false).unwrap();
        opt.step().unwrap();
        losses.push(loss.item_blocking().unwrap().to_f64());
    }
    let (first, last) = (losses[0], *losses.last().unwrap());
    assert!(last < 0.3 * first, "loss {first} -> {last}: {losses:?}");

    model.eval();
    let logits = borch_autograd::no_grad(|| model.forward(&x)).unwrap();
    assert!(!logits.requires_grad());
    let predicted = logits.argmax(Some(1), false).unwrap();
    let correct: i64 = predicted
        .eq(&y)
        .unwrap()
        .to_vec_blocking::<bool>()
        .unwrap()
        .iter()
        .map(|&b| i64::from(b))
        .sum();
    assert!(correct >= 60, "{correct} / 64 correct");

    model.zero_grad(true).unwrap();
    assert!(model.parameters().iter().all(|p| p.grad().is_none()));
}

#[test]
fn training_steps_inside_scopes_keep_parameters() {
    let _rng = common::rng_lock();
    manual_seed(1);
    let model = sequential![
        Linear::new(3, 4).unwrap(),
        ReLU::new(),
        Linear::new(4, 1).unwrap()
    ];
    let x = randn(&[8, 3], None).unwrap();
    let y = randn(&[8, 1], None).unwrap();
    let mut opt = SGD::new(model.parameters(), SgdOptions::new(0.05)).unwrap();
    let loss_fn = borch_nn::MSELoss::new();
    let device = borch_tensor::default_device().unwrap();
    let mut live = Vec::new();
    let mut losses = Vec::new();
    for _ in 0..20 {
        let loss = borch_tensor::scope(|s| {
            opt.zero_grad(true)?;
            let loss = loss_fn.forward(&model.forward(&x)?, &y)?;
            borch_autograd::backward(&loss, None, false)?;
            opt.step()?;
            Ok(s.keep(&loss.detach()))
        })
        .unwrap();
        losses.push(loss.item_blocking().unwrap().to_f64());
        drop(loss);
        live.push(device.memory());
    }
    assert!(losses[19] < losses[0], "{losses:?}");
    // After the first steps (gradients allocated), the memory in use stays flat.
    assert_eq!(live[5], live[19], "{live:?}");
    assert!(model.parameters().iter().all(|p| !p.is_released()));
}
