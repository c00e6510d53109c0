//! The recurrent layers' cost per time step, pinned: dispatches of a forward and of its backward
//! over T and T + 3 steps (the difference over 3 is one step's; the input projection, the
//! initial states and the output's layout are paid once). And the fused gate kernel's first
//! derivatives equal the composed ones that a `create_graph` backward builds (values against
//! torch are in tests/nn/cases.json, `tests/forward.rs`).

use borch_autograd::grad;
use borch_nn::{GRUCell, LSTMCell, Module, RNNBase, RNNCell, RnnMode, RnnOptions};
use borch_tensor::{Tensor, default_device, manual_seed, randn};

/// One test: the device's dispatch counter is shared by every thread.
#[test]
fn recurrent_dispatches() {
    dispatches_per_step_are_pinned();
    fused_gradients_equal_composed_ones();
}

/// `(forward, backward)` dispatches of `m` over `steps` time steps (batch 2, input 3).
fn cost(m: &RNNBase, steps: usize) -> (u64, u64) {
    let dev = default_device().unwrap();
    let x = randn(&[steps, 2, 3], None).unwrap();
    x.set_requires_grad(true).unwrap();
    let mut wrt = vec![x.clone()];
    wrt.extend(m.parameters());
    dev.synchronize().unwrap();
    let d0 = dev.dispatches();
    let (y, _) = m.forward_states(&x, None).unwrap();
    let forward = dev.dispatches() - d0;
    let g = randn(y.shape(), None).unwrap();
    let d0 = dev.dispatches();
    let grads = grad(&[y], &wrt, &[Some(g)], None, false, false).unwrap();
    let backward = dev.dispatches() - d0;
    assert!(grads.iter().all(Option::is_some));
    (forward, backward)
}

fn per_step(m: &RNNBase) -> (u64, u64) {
    cost(m, 2);
    let (f2, b2) = cost(m, 2);
    let (f5, b5) = cost(m, 5);
    assert_eq!((f5 - f2) % 3, 0, "forward {f2} at T=2, {f5} at T=5");
    assert_eq!((b5 - b2) % 3, 0, "backward {b2} at T=2, {b5} at T=5");
    ((f5 - f2) / 3, (b5 - b2) / 3)
}

fn dispatches_per_step_are_pinned() {
    manual_seed(0);
    let opts = RnnOptions::default();
    let mut seen = Vec::new();
    let proj = RnnOptions {
        proj_size: 2,
        ..opts
    };
    // Forward: addmm (h W_hh^T + b_hh), the gate kernel writing h' (and c') into the output.
    // Backward: the gate kernel, the matmul dG W_hh (addmm for a GRU). Before the fused gates
    // and layer (main at a258bed, composed pointwise ops): LSTM 12 forward and 44 backward, GRU
    // 13 and 47, RNN 4 and 13 (relu 12), LSTM with proj_size 13 and 47. With proj_size the LSTM
    // still runs step by step (cell_step): the gates fused, the projection and the output's
    // stack a dispatch each, and its backward pays the per-step views of the input projection.
    for (mode, o, forward, backward) in [
        (RnnMode::Lstm, opts, 2, 2),
        (RnnMode::Gru, opts, 2, 2),
        (RnnMode::Tanh, opts, 2, 2),
        (RnnMode::Relu, opts, 2, 2),
        (RnnMode::Lstm, proj, 4, 18),
    ] {
        let m = RNNBase::new(mode, 3, 4, o).unwrap();
        let (f, b) = per_step(&m);
        println!("{mode:?} {o:?}: {f} dispatches per step forward, {b} backward");
        seen.push((mode, f, b, forward, backward));
    }
    for (mode, f, b, forward, backward) in seen {
        assert_eq!(f, forward, "{mode:?} forward dispatches per step");
        assert_eq!(b, backward, "{mode:?} backward dispatches per step");
    }
}

fn close(label: &str, a: &Tensor, b: &Tensor) {
    let a = a.to_vec_blocking::<f32>().unwrap();
    let b = b.to_vec_blocking::<f32>().unwrap();
    assert_eq!(a.len(), b.len(), "{label}");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-5 * (1.0 + y.abs()),
            "{label}[{i}]: {x} vs {y}"
        );
    }
}

/// Each cell's gradients by the fused backward kernel and by the composed ops (what runs under
/// `create_graph`), with respect to the input, the states and every parameter.
fn fused_gradients_equal_composed_ones() {
    manual_seed(1);
    let x = randn(&[3, 4], None).unwrap();
    let h = randn(&[3, 5], None).unwrap();
    let c = randn(&[3, 5], None).unwrap();
    for t in [&x, &h, &c] {
        t.set_requires_grad(true).unwrap();
    }
    let lstm = LSTMCell::new(4, 5, true).unwrap();
    let gru = GRUCell::new(4, 5, true).unwrap();
    let tanh = RNNCell::new(4, 5, true, "tanh").unwrap();
    let relu = RNNCell::new(4, 5, false, "relu").unwrap();
    let mut cases: Vec<(&str, Vec<Tensor>, Vec<Tensor>)> = Vec::new();
    let (h2, c2) = lstm.forward(&x, Some((&h, &c))).unwrap();
    let mut wrt = vec![x.clone(), h.clone(), c.clone()];
    wrt.extend(lstm.parameters());
    cases.push(("LSTMCell", vec![h2, c2], wrt));
    for (name, m, y) in [
        (
            "GRUCell",
            gru.parameters(),
            gru.forward(&x, Some(&h)).unwrap(),
        ),
        (
            "RNNCell tanh",
            tanh.parameters(),
            tanh.forward(&x, Some(&h)).unwrap(),
        ),
        (
            "RNNCell relu",
            relu.parameters(),
            relu.forward(&x, Some(&h)).unwrap(),
        ),
    ] {
        let mut wrt = vec![x.clone(), h.clone()];
        wrt.extend(m);
        cases.push((name, vec![y], wrt));
    }
    for (name, ys, wrt) in cases {
        let gs: Vec<Option<Tensor>> = ys
            .iter()
            .map(|y| Some(randn(y.shape(), None).unwrap()))
            .collect();
        let fused = grad(&ys, &wrt, &gs, Some(true), false, false).unwrap();
        let composed = grad(&ys, &wrt, &gs, None, true, false).unwrap();
        for (i, (a, b)) in fused.iter().zip(&composed).enumerate() {
            close(
                &format!("{name} grad {i}"),
                a.as_ref().unwrap(),
                b.as_ref().unwrap(),
            );
        }
    }
}
