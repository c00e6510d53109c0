//! The fused recurrent layers and cells: the cost per time step, pinned (dispatches of a
//! forward and of its backward over T and T + 3 steps; the difference over 3 is one step's, the
//! input projection, the initial states and the output's layout are paid once); and double
//! backward through them refused (NotImplemented). Values against torch, forward and backward,
//! are in tests/nn/cases.json (`tests/forward.rs`).

use borch_autograd::grad;
use borch_nn::{GRUCell, LSTMCell, Module, RNNBase, RNNCell, RnnMode, RnnOptions};
use borch_tensor::api::Value;
use borch_tensor::{BorchError, default_device, manual_seed, randn};
use serde_json::Value as Json;

/// One test: the device's dispatch counter is shared by every thread.
#[test]
fn recurrent_fused() {
    dispatches_per_step_are_pinned();
    double_backward_is_refused();
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
    // The cells: two addmm (x W_ih^T + b_ih, h W_hh^T + b_hh) and the gate kernel (before: an
    // LSTMCell forward was 12, GRUCell 13, RNNCell 4 at main a258bed).
    let dev = default_device().unwrap();
    let x = randn(&[2, 3], None).unwrap();
    let h = randn(&[2, 4], None).unwrap();
    let c = randn(&[2, 4], None).unwrap();
    let lstm = LSTMCell::new(3, 4, true).unwrap();
    let gru = GRUCell::new(3, 4, true).unwrap();
    let rnn = RNNCell::new(3, 4, true, "tanh").unwrap();
    dev.synchronize().unwrap();
    let d0 = dev.dispatches();
    lstm.forward(&x, Some((&h, &c))).unwrap();
    let d1 = dev.dispatches();
    gru.forward(&x, Some(&h)).unwrap();
    let d2 = dev.dispatches();
    rnn.forward(&x, Some(&h)).unwrap();
    let d3 = dev.dispatches();
    println!(
        "cells: LSTMCell {}, GRUCell {}, RNNCell {}",
        d1 - d0,
        d2 - d1,
        d3 - d2
    );
    assert_eq!(
        [d1 - d0, d2 - d1, d3 - d2],
        [3, 3, 3],
        "cell forward dispatches"
    );
    for (mode, f, b, forward, backward) in seen {
        assert_eq!(f, forward, "{mode:?} forward dispatches per step");
        assert_eq!(b, backward, "{mode:?} backward dispatches per step");
    }
}

/// A backward that builds a graph through the fused gates is refused (torch gives second
/// derivatives there; borch's composed ones disagreed with torch's in
/// tests/nn/rnn_double_backward.json, so they are not offered): each case of that file, the
/// cells and the layers, gets NotImplemented naming it, never a number.
fn double_backward_is_refused() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/nn/rnn_double_backward.json"
    );
    let data: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in data["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let kw = &case["kwargs"];
        let mode = match (case["type"].as_str().unwrap(), kw["nonlinearity"].as_str()) {
            ("LSTM", _) => RnnMode::Lstm,
            ("GRU", _) => RnnMode::Gru,
            (_, Some("relu")) => RnnMode::Relu,
            _ => RnnMode::Tanh,
        };
        let o = RnnOptions {
            num_layers: kw["num_layers"].as_u64().unwrap_or(1) as usize,
            bidirectional: kw["bidirectional"].as_bool().unwrap_or(false),
            bias: kw["bias"].as_bool().unwrap_or(true),
            ..RnnOptions::default()
        };
        let args: Vec<usize> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let m: Box<dyn Module> = match case["type"].as_str().unwrap() {
            "RNNCell" => Box::new(RNNCell::new(args[0], args[1], true, "tanh").unwrap()),
            "GRUCell" => Box::new(GRUCell::new(args[0], args[1], true).unwrap()),
            "LSTMCell" => Box::new(LSTMCell::new(args[0], args[1], true).unwrap()),
            _ => Box::new(RNNBase::new(mode, args[0], args[1], o).unwrap()),
        };
        let x_shape: Vec<usize> = case["x"][0]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let x = randn(&x_shape, None).unwrap();
        x.set_requires_grad(true).unwrap();
        let y = match m.forward_values(vec![Value::Tensor(x.clone())], vec![]) {
            Ok(Value::Tensor(y)) => y,
            Ok(Value::List(v)) => match &v[0] {
                Value::Tensor(y) => y.clone(),
                _ => panic!("{name}: no output tensor"),
            },
            _ => panic!("{name}: forward failed"),
        };
        let loss = y.sum(None, false).unwrap();
        match grad(&[loss], &[x], &[None], None, true, false) {
            Err(BorchError::NotImplemented(msg)) => {
                assert!(msg.contains("double backward"), "{name}: {msg}")
            }
            Err(e) => panic!("{name}: {e}"),
            Ok(_) => panic!("{name}: create_graph through the fused gates was not refused"),
        }
    }
}
