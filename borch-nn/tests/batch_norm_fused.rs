//! BatchNorm's fused kernels: dispatch counts pinned (training forward: batch statistics with
//! the running update, then the normalisation; backward: per-channel sums, then the input
//! gradient; eval forward: one), and the kernels' first derivatives equal the composed ones
//! that double backward builds (values against torch are in the goldens and tests/nn).

use borch_autograd::grad;
use borch_nn::{BatchNorm2d, Module};
use borch_tensor::{Tensor, default_device, manual_seed, randn};

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
