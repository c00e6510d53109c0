//! `compiled(fn)` / `compiled(model)`: replays equal eager bit for bit (an eval forward of a small
//! CNN; whole training steps with SGD momentum and with Adam), a replay that binds the recorded
//! buffers creates no bind group and is one submit, a new input shape records a second trace, and
//! a function whose op sequence changes between calls falls back to eager and stays correct.

use std::cell::Cell;
use std::sync::{Mutex, MutexGuard};

use borch_autograd::backward;
use borch_nn::functional::{Reduction, cross_entropy};
use borch_nn::{
    AvgPool2d, Conv2d, ConvOptions, Flatten, Linear, MaxPool2d, Module, ReLU, Sequential, compiled,
    sequential,
};
use borch_optim::{Adam, AdamOptions, Optimizer, SGD, SgdOptions};
use borch_tensor::{Padding, Result, Tensor, default_device, manual_seed, randn};

/// Traces are per device: the tests here take turns.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn cnn() -> Sequential {
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

fn bits(t: &Tensor) -> Vec<u32> {
    let v = t.to_vec_blocking::<f32>().unwrap();
    v.iter().map(|x| x.to_bits()).collect()
}

fn param_bits(model: &dyn Module) -> Vec<Vec<u32>> {
    model.parameters().iter().map(bits).collect()
}

#[test]
fn compiled_eval_forward_equals_eager_and_reuses_bind_groups() {
    let _serial = serial();
    manual_seed(0);
    let mut model = cnn();
    model.train(false);
    let x = randn(&[2, 1, 8, 8], None).unwrap();
    let eager = bits(&model.forward(&x).unwrap());
    let fast = compiled(model);
    let device = default_device().unwrap();
    for call in 0..4 {
        let (b0, s0) = (device.bind_groups_created(), device.submits());
        let out = fast.forward(&x).unwrap();
        let (made, submits) = (device.bind_groups_created() - b0, device.submits() - s0);
        assert_eq!(bits(&out), eager, "call {call}");
        assert_eq!(submits, 1, "call {call}: one submit");
        if call > 0 {
            assert_eq!(made, 0, "call {call}: a replay binds the recorded buffers");
        } else {
            assert!(made > 0);
        }
    }
    assert_eq!(
        (fast.recordings(), fast.replays(), fast.divergences()),
        (1, 3, 0)
    );
}

/// One training step; returns the loss read back.
fn step(model: &dyn Module, opt: &mut dyn Optimizer, x: &Tensor, y: &Tensor) -> Result<f64> {
    opt.zero_grad(true)?;
    let out = model.forward(x)?;
    let loss = cross_entropy(&out, y, None, -100, Reduction::Mean, 0.0)?;
    backward(&loss, None, false)?;
    opt.step()?;
    Ok(loss.item_blocking()?.to_f64())
}

fn train_compiled_equals_eager(make_opt: &dyn Fn(&Sequential) -> Box<dyn Optimizer>) {
    let _serial = serial();
    manual_seed(1);
    let x = randn(&[4, 1, 8, 8], None).unwrap();
    let y = Tensor::from_slice(&[0i64, 1, 2, 1], &[4]).unwrap();
    manual_seed(2);
    let eager_model = cnn();
    manual_seed(2);
    let fast_model = cnn();
    assert_eq!(param_bits(&eager_model), param_bits(&fast_model));

    let mut opt = make_opt(&eager_model);
    let eager_losses: Vec<u64> = (0..5)
        .map(|_| step(&eager_model, opt.as_mut(), &x, &y).unwrap().to_bits())
        .collect();

    let mut fast_opt = make_opt(&fast_model);
    let device = default_device().unwrap();
    let mut costs = Vec::new();
    let mut fast = borch_tensor::compiled(|xs: &[Tensor]| {
        step(&fast_model, fast_opt.as_mut(), &xs[0], &xs[1])
    });
    let mut fast_losses = Vec::new();
    for _ in 0..5 {
        let (b0, s0) = (device.bind_groups_created(), device.submits());
        fast_losses.push(fast.call(&[x.clone(), y.clone()]).unwrap().to_bits());
        costs.push((
            device.bind_groups_created() - b0,
            device.submits() - s0,
            fast.traces().last_outcome(),
        ));
    }
    println!("(bind groups, submits, outcome) per step: {costs:?}");
    assert_eq!(fast_losses, eager_losses);
    drop(fast);
    assert_eq!(param_bits(&fast_model), param_bits(&eager_model));
    // The first step also creates the optimizer state: the second diverges there and records the
    // steady sequence, which steps 3 to 5 replay.
    assert!(costs[4].2 == Some(borch_tensor::TraceOutcome::Replayed));
    for (made, submits, _) in &costs[2..] {
        assert_eq!((*made, *submits), (0, 1));
    }
}

#[test]
fn compiled_training_step_sgd_momentum_equals_eager() {
    train_compiled_equals_eager(&|m| {
        Box::new(SGD::new(m.parameters(), SgdOptions::new(0.1).momentum(0.9)).unwrap())
    });
}

#[test]
fn compiled_training_step_adam_equals_eager() {
    // Adam's bias correction changes every step: parameters are rewritten on replay.
    train_compiled_equals_eager(&|m| {
        Box::new(Adam::new(m.parameters(), AdamOptions::new(0.01)).unwrap())
    });
}

#[test]
fn replays_counted_over_five_steps() {
    let _serial = serial();
    manual_seed(3);
    let model = cnn();
    let mut opt = SGD::new(model.parameters(), SgdOptions::new(0.1).momentum(0.9)).unwrap();
    let x = randn(&[4, 1, 8, 8], None).unwrap();
    let y = Tensor::from_slice(&[0i64, 1, 2, 1], &[4]).unwrap();
    let mut fast = borch_tensor::compiled(|xs: &[Tensor]| step(&model, &mut opt, &xs[0], &xs[1]));
    for _ in 0..5 {
        fast.call(&[x.clone(), y.clone()]).unwrap();
    }
    assert!(fast.replays() >= 3, "replays {}", fast.replays());
    assert_eq!(fast.recordings(), 1);
}

#[test]
fn a_new_input_shape_records_a_second_trace() {
    let _serial = serial();
    manual_seed(4);
    let model = cnn();
    let small = randn(&[2, 1, 8, 8], None).unwrap();
    let large = randn(&[3, 1, 8, 8], None).unwrap();
    let want = [
        bits(&model.forward(&small).unwrap()),
        bits(&model.forward(&large).unwrap()),
    ];
    let fast = compiled(model);
    for round in 0..2 {
        for (x, want) in [&small, &large].iter().zip(&want) {
            assert_eq!(&bits(&fast.forward(x).unwrap()), want, "round {round}");
        }
    }
    assert_eq!(
        (fast.recordings(), fast.replays(), fast.divergences()),
        (2, 2, 0)
    );
}

#[test]
fn a_changing_op_sequence_falls_back_to_eager() {
    let _serial = serial();
    manual_seed(5);
    let x = randn(&[64], None).unwrap();
    let flag = Cell::new(false);
    // The flag changes an op in the middle (then more follow) ...
    let middle = |x: &Tensor| -> Result<Tensor> {
        let y = x.relu()?;
        let y = if flag.get() { y.mul(2)? } else { y };
        y.add(1)
    };
    // ... or at the end (a call with more or fewer ops than the recording).
    let tail = |x: &Tensor| -> Result<Tensor> {
        let y = x.relu()?;
        if flag.get() { y.mul(2) } else { Ok(y) }
    };
    for f in [&middle as &dyn Fn(&Tensor) -> Result<Tensor>, &tail] {
        let mut fast = borch_tensor::compiled(|xs: &[Tensor]| f(&xs[0]));
        let flags = [false, false, true, true, false, false];
        for (i, &on) in flags.iter().enumerate() {
            flag.set(on);
            let eager = bits(&f(&x).unwrap());
            assert_eq!(bits(&fast.call(&[x.clone()]).unwrap()), eager, "call {i}");
        }
        // Recorded once; each flip diverges (and records the new sequence), then replays.
        assert_eq!(
            (fast.recordings(), fast.replays(), fast.divergences()),
            (1, 3, 2)
        );
    }
}
