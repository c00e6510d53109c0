//! BatchNorm's fused kernels: dispatch counts pinned (training forward: batch statistics with
//! the running update, then the normalisation; backward: per-channel sums, then the input
//! gradient; eval forward: one; one more each for the chunked reductions of large channels), and the kernels' first derivatives equal the composed ones
//! that double backward builds (values against torch are in the goldens and tests/nn), and
//! BatchNorm2d's double backward against torch (tests/nn/bn_double_backward.json, made by
//! tests/nn/bn_double_backward.py).

use borch_autograd::{grad, no_grad};
use borch_nn::{BatchNorm2d, Module};
use borch_tensor::{Tensor, default_device, manual_seed, randn};
use serde_json::Value as Json;

fn close(label: &str, a: &Tensor, b: &Tensor) {
    let a = a.to_vec_blocking::<f32>().unwrap();
    let b = b.to_vec_blocking::<f32>().unwrap();
    assert_eq!(a.len(), b.len(), "{label}");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-4 * (1.0 + y.abs()),
            "{label}[{i}]: {x} vs {y}"
        );
    }
}

/// One test: the device's dispatch counter is shared by every thread.
#[test]
fn batch_norm_fused() {
    dispatch_counts_are_pinned();
    fused_gradients_equal_composed_ones();
    double_backward_matches_torch();
}

fn floats(v: &Json) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn near(label: &str, got: Option<&Tensor>, want: &[f32]) {
    let got = match got {
        Some(t) => t.to_vec_blocking::<f32>().unwrap(),
        None => vec![0.0; want.len()],
    };
    assert_eq!(got.len(), want.len(), "{label}");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-4 + 1e-4 * b.abs(),
            "{label}[{i}]: {a} vs torch {b}"
        );
    }
}

/// First derivatives built with `create_graph` (the composed path), then the gradients of
/// `sum(gx^2) + sum(gw^2)` with respect to the input and the weight, as torch.
fn double_backward_matches_torch() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/nn/bn_double_backward.json"
    );
    let data: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in data["cases"].as_array().unwrap() {
        let training = case["training"].as_bool().unwrap();
        let shape: Vec<usize> = case["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let vec = |k: &str, s: &[usize]| Tensor::from_slice(&floats(&case[k]), s).unwrap();
        let mut bn = BatchNorm2d::new(shape[1]).unwrap();
        let c = [shape[1]];
        no_grad(|| {
            bn.weight().unwrap().copy_(&vec("weight", &c))?;
            bn.bias().unwrap().copy_(&vec("bias", &c))?;
            bn.running_mean().unwrap().copy_(&vec("running_mean", &c))?;
            bn.running_var().unwrap().copy_(&vec("running_var", &c))
        })
        .unwrap();
        if !training {
            bn.eval();
        }
        let x = vec("x", &shape);
        x.set_requires_grad(true).unwrap();
        let g = vec("g", &shape);
        let (w, b) = (bn.weight().unwrap().clone(), bn.bias().unwrap().clone());
        let y = bn.forward(&x).unwrap();
        let loss = y.mul(&g).unwrap().sum(None, false).unwrap();
        let first = grad(
            &[loss],
            &[x.clone(), w.clone(), b],
            &[None],
            None,
            true,
            false,
        )
        .unwrap();
        let label = |k: &str| format!("training {training} {k}");
        near(&label("gx"), first[0].as_ref(), &floats(&case["gx"]));
        near(&label("gw"), first[1].as_ref(), &floats(&case["gw"]));
        near(&label("gb"), first[2].as_ref(), &floats(&case["gb"]));
        let sq = |t: &Option<Tensor>| {
            let t = t.as_ref().unwrap();
            t.mul(t).unwrap().sum(None, false).unwrap()
        };
        let total = sq(&first[0]).add(sq(&first[1])).unwrap();
        let second = grad(&[total], &[x, w], &[None], None, false, true).unwrap();
        near(&label("ggx"), second[0].as_ref(), &floats(&case["ggx"]));
        near(&label("ggw"), second[1].as_ref(), &floats(&case["ggw"]));
    }
}

fn dispatch_counts_are_pinned() {
    manual_seed(0);
    let dev = default_device().unwrap();
    let mut bn = BatchNorm2d::new(5).unwrap();
    let x = randn(&[3, 5, 4, 4], None).unwrap();
    x.set_requires_grad(true).unwrap();
    let g = randn(&[3, 5, 4, 4], None).unwrap();
    let params = [
        x.clone(),
        bn.weight().unwrap().clone(),
        bn.bias().unwrap().clone(),
    ];
    dev.synchronize().unwrap();
    let d0 = dev.dispatches();
    let y = bn.forward(&x).unwrap();
    let forward = dev.dispatches() - d0;
    let d0 = dev.dispatches();
    let grads = grad(&[y], &params, &[Some(g.clone())], None, false, false).unwrap();
    let backward = dev.dispatches() - d0;
    assert!(grads.iter().all(Option::is_some));
    bn.eval();
    let d0 = dev.dispatches();
    let _ = bn.forward(&x).unwrap();
    let eval = dev.dispatches() - d0;
    println!("train forward {forward}, backward {backward}, eval forward {eval}");
    // Training forward: statistics with the running update, normalisation (which also adds 1
    // to num_batches_tracked).
    assert_eq!(forward, 2, "BatchNorm2d train forward");
    assert_eq!(backward, 2, "BatchNorm2d backward: sums, input gradient");
    assert_eq!(eval, 1, "BatchNorm2d eval forward");
    // More than 2048 values per channel: chunked statistics and sums (partials, combine).
    let mut bn = BatchNorm2d::new(3).unwrap();
    let x = randn(&[2, 3, 31, 41], None).unwrap();
    x.set_requires_grad(true).unwrap();
    let g = randn(&[2, 3, 31, 41], None).unwrap();
    let d0 = dev.dispatches();
    let y = bn.forward(&x).unwrap();
    assert_eq!(dev.dispatches() - d0, 3, "split train forward");
    let d0 = dev.dispatches();
    let params = [x.clone(), bn.weight().unwrap().clone()];
    let _ = grad(&[y], &params, &[Some(g)], None, false, false).unwrap();
    assert_eq!(dev.dispatches() - d0, 3, "split backward");
    bn.eval();
    let d0 = dev.dispatches();
    let _ = bn.forward(&x).unwrap();
    assert_eq!(dev.dispatches() - d0, 1, "split eval forward");
}

/// The fused first derivatives equal those composed from differentiable ops (which is what
/// runs under `create_graph`), in training and eval, and a second derivative goes through.
fn fused_gradients_equal_composed_ones() {
    manual_seed(1);
    for training in [true, false] {
        let mut bn = BatchNorm2d::new(3).unwrap();
        // Odd sizes: 2 x 3 x 5 x 7 (non-contiguous: made from a permuted tensor).
        let x = randn(&[2, 5, 7, 3], None)
            .unwrap()
            .permute(&[0, 3, 1, 2])
            .unwrap();
        x.set_requires_grad(true).unwrap();
        if !training {
            bn.forward(&x).unwrap();
            bn.eval();
        }
        let g = randn(&[2, 3, 5, 7], None).unwrap();
        let params = [
            x.clone(),
            bn.weight().unwrap().clone(),
            bn.bias().unwrap().clone(),
        ];
        let y = bn.forward(&x).unwrap();
        let fused = grad(
            std::slice::from_ref(&y),
            &params,
            &[Some(g.clone())],
            Some(true),
            false,
            false,
        )
        .unwrap();
        let composed = grad(&[y], &params, &[Some(g.clone())], None, true, false).unwrap();
        for (i, (a, b)) in fused.iter().zip(&composed).enumerate() {
            close(
                &format!("training {training} grad {i}"),
                a.as_ref().unwrap(),
                b.as_ref().unwrap(),
            );
        }
        let gx = composed[0].as_ref().unwrap();
        let second = grad(
            &[gx.mul(gx).unwrap().sum(None, false).unwrap()],
            std::slice::from_ref(&x),
            &[None],
            None,
            false,
            true,
        )
        .unwrap();
        // In eval the input gradient does not depend on the input.
        match &second[0] {
            Some(s) => assert!(training && s.shape() == [2, 3, 5, 7]),
            None => assert!(!training, "training: a second derivative through the input"),
        }
    }
}
