//! Double backward through the implicit-GEMM convolution: with `create_graph`, its backward is
//! built from differentiable ops on the recorded inputs, so the gradient of a function of the
//! input gradient (a gradient penalty) reaches the weight. Checked against central differences:
//! without ReLU the penalty `P(w) = sum((dL/dx)^2)` is quadratic in the weight, so the difference
//! quotient along any direction is exact up to rounding.

use borch_autograd::{Backward, grad};
use borch_tensor::{Padding, Tensor, conv2d_fused};

fn values(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let h = (i as u32)
                .wrapping_mul(2654435761)
                .wrapping_add(seed.wrapping_mul(40503));
            ((h >> 8) % 1000) as f32 / 500.0 - 1.0
        })
        .collect()
}

struct Setup {
    x: Tensor,
    b: Tensor,
    r: Tensor,
    c: Tensor,
}

/// `dL/dx` for `L = sum((conv(x, w, b) + r) * c)`, with or without a graph.
fn input_grad(s: &Setup, w: &Tensor, create_graph: bool) -> Tensor {
    let p = Padding::Sizes(vec![1]);
    let y = conv2d_fused(&s.x, w, Some(&s.b), Some(&s.r), false, &[2], &p, &[1], 1).unwrap();
    let loss = y.mul(&s.c).unwrap().sum(None, false).unwrap();
    let g = grad(
        &[loss],
        std::slice::from_ref(&s.x),
        &[None],
        None,
        create_graph,
        false,
    )
    .unwrap();
    g[0].clone().unwrap()
}

fn penalty(g: &Tensor) -> Tensor {
    g.mul(g).unwrap().sum(None, false).unwrap()
}

#[test]
fn gradient_penalty_reaches_the_weight() {
    let t =
        |n: usize, seed: u32, shape: &[usize]| Tensor::from_slice(&values(n, seed), shape).unwrap();
    let s = Setup {
        x: t(2 * 3 * 5 * 6, 1, &[2, 3, 5, 6]),
        b: t(4, 3, &[4]),
        r: t(2 * 4 * 3 * 3, 4, &[2, 4, 3, 3]),
        c: t(2 * 4 * 3 * 3, 5, &[2, 4, 3, 3]),
    };
    s.x.set_requires_grad(true).unwrap();
    let wv = values(4 * 3 * 3 * 3, 2);
    let w = Tensor::from_slice(&wv, &[4, 3, 3, 3]).unwrap();
    w.set_requires_grad(true).unwrap();
    let gx = input_grad(&s, &w, true);
    assert!(gx.requires_grad(), "the input gradient carries a graph");
    penalty(&gx).backward().unwrap();
    let dw = w.grad().expect("the weight gets a second-order gradient");
    let dw = dw.to_vec_blocking::<f32>().unwrap();
    // Central differences along a direction d: (P(w + e d) - P(w - e d)) / 2e = <dP/dw, d>.
    let d = values(wv.len(), 9);
    let e = 0.05f32;
    let at = |sign: f32| {
        let moved: Vec<f32> = wv.iter().zip(&d).map(|(a, b)| a + sign * e * b).collect();
        let wm = Tensor::from_slice(&moved, &[4, 3, 3, 3]).unwrap();
        let p = penalty(&input_grad(&s, &wm, false));
        f64::from(p.item_blocking().unwrap().to_f64() as f32)
    };
    let numeric = (at(1.0) - at(-1.0)) / (2.0 * f64::from(e));
    let analytic: f64 = dw
        .iter()
        .zip(&d)
        .map(|(a, b)| f64::from(*a) * f64::from(*b))
        .sum();
    assert!(
        (numeric - analytic).abs() <= 1e-3 * analytic.abs().max(1.0),
        "dP/dw along d: double backward {analytic}, central difference {numeric}"
    );
}
