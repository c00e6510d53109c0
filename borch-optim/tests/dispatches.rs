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

/// The optimizers added with the catalog, built by name: one fused kernel per parameter for
/// each but Adafactor, whose step is a chain of tensor ops (pinned: its dispatches per step for
/// the 2-D and the 1-D parameter together).
#[test]
fn catalog_optimizers_dispatch_counts_are_pinned() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    use borch_optim::{Options, Params, Value, catalog};
    let with = |pairs: &[(&str, Value)]| -> Options {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    };
    let cases: Vec<(&str, Options, Vec<u64>)> = vec![
        (
            "Adamax",
            with(&[("weight_decay", Value::Float(0.1))]),
            vec![2, 2, 2],
        ),
        (
            "NAdam",
            with(&[
                ("weight_decay", Value::Float(0.1)),
                ("decoupled_weight_decay", Value::Bool(true)),
            ]),
            vec![2, 2, 2],
        ),
        (
            "RAdam",
            with(&[("weight_decay", Value::Float(0.1))]),
            vec![2, 2, 2],
        ),
        (
            "Adadelta",
            with(&[("weight_decay", Value::Float(0.1))]),
            vec![2, 2, 2],
        ),
        ("ASGD", with(&[("t0", Value::Float(1.0))]), vec![2, 2, 2]),
        (
            "Rprop",
            with(&[("maximize", Value::Bool(true))]),
            vec![2, 2, 2],
        ),
        (
            "Adafactor",
            with(&[("weight_decay", Value::Float(0.1))]),
            ADAFACTOR.to_vec(),
        ),
    ];
    for (name, options, pinned) in cases {
        let got = dispatches_per_step(|p| catalog::build(name, Params::Tensors(p), &options));
        assert_eq!(got, pinned, "{name}");
    }
}

/// Adafactor's dispatches per step over a [300, 5] and a [7] parameter: 46 (norms, moments,
/// the update and its clipping), plus 3 fills of its new moments on the first step.
const ADAFACTOR: [u64; 3] = [49, 46, 46];

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
