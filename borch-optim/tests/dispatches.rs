//! Cost pinned: one `step()` records exactly one dispatch per parameter that has a gradient, on
//! the first step (state is made without fill kernels) and after, for every optimizer.

use borch_optim::{
    Adagrad, AdagradOptions, Adam, AdamOptions, AdamW, AdamWOptions, Optimizer, RMSprop,
    RMSpropOptions, SGD, SgdOptions,
};
use borch_tensor::{Result, Tensor, default_device, randn};

/// The device's counters are global: tests of this file run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn params() -> Vec<Tensor> {
    [vec![300, 5], vec![7], vec![3]]
        .iter()
        .map(|s| randn(s, None).unwrap())
        .collect()
}

/// Dispatches recorded by each of three steps; the last parameter never has a gradient.
fn dispatches_per_step(make: impl Fn(Vec<Tensor>) -> Result<Box<dyn Optimizer>>) -> Vec<u64> {
    let ps = params();
    let mut opt = make(ps.clone()).unwrap();
    let device = default_device().unwrap();
    let mut out = Vec::new();
    for _ in 0..3 {
        for p in &ps[..2] {
            p.set_grad(Some(randn(p.shape(), None).unwrap()));
        }
        let before = device.dispatches();
        opt.step().unwrap();
        out.push(device.dispatches() - before);
    }
    out
}

#[test]
fn one_fused_dispatch_per_parameter_per_step() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let pinned = vec![2, 2, 2];
    let sgd = SgdOptions::new(0.1);
    assert_eq!(
        dispatches_per_step(|p| Ok(Box::new(SGD::new(p, sgd.clone())?))),
        pinned
    );
    let sgd_all = sgd.momentum(0.9).nesterov(true).weight_decay(0.01);
    assert_eq!(
        dispatches_per_step(|p| Ok(Box::new(SGD::new(p, sgd_all.clone())?))),
        pinned
    );
    let adam = AdamOptions::new(0.1).amsgrad(true).weight_decay(0.1);
    assert_eq!(
        dispatches_per_step(|p| Ok(Box::new(Adam::new(p, adam.clone())?))),
        pinned
    );
    let adamw = AdamWOptions::default();
    assert_eq!(
        dispatches_per_step(|p| Ok(Box::new(AdamW::new(p, adamw.clone())?))),
        pinned
    );
    let rms = RMSpropOptions::default().centered(true).momentum(0.9);
    assert_eq!(
        dispatches_per_step(|p| Ok(Box::new(RMSprop::new(p, rms.clone())?))),
        pinned
    );
    let ada = AdagradOptions::default();
    assert_eq!(
        dispatches_per_step(|p| Ok(Box::new(Adagrad::new(p, ada.clone())?))),
        pinned
    );
}

#[test]
fn zero_grad_set_to_none_dispatches_nothing() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let ps = params();
    let mut opt = Adam::new(ps.clone(), AdamOptions::default()).unwrap();
    for p in &ps {
        p.set_grad(Some(randn(p.shape(), None).unwrap()));
    }
    let device = default_device().unwrap();
    let before = device.dispatches();
    opt.zero_grad(true).unwrap();
    assert_eq!(device.dispatches() - before, 0);
    assert!(ps.iter().all(|p| p.grad().is_none()));
    for p in &ps {
        p.set_grad(Some(randn(p.shape(), None).unwrap()));
    }
    opt.zero_grad(false).unwrap();
    for p in &ps {
        let g = p.grad().unwrap().to_vec_blocking::<f32>().unwrap();
        assert!(g.iter().all(|x| *x == 0.0));
    }
}
