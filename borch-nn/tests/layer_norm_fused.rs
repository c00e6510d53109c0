//! LayerNorm's fused kernels: dispatch counts pinned (forward one; backward the input gradient,
//! the weight and bias gradients' chunk sums and their reduction), and against torch
//! (tests/nn/ln_double_backward.json, made by tests/nn/ln_double_backward.py) the output, the
//! first derivatives by the kernels and by the composed path that `create_graph` takes, and the
//! second derivatives through it.

use borch_autograd::grad;
use borch_nn::functional as F;
use borch_tensor::{Tensor, default_device};
use serde_json::Value as Json;

fn floats(v: &Json) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn near(label: &str, got: Option<&Tensor>, want: &[f32]) {
    let got = got.unwrap_or_else(|| panic!("{label}: no gradient"));
    let got = got.to_vec_blocking::<f32>().unwrap();
    assert_eq!(got.len(), want.len(), "{label}");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-4 + 1e-4 * b.abs(),
            "{label}[{i}]: {a} vs torch {b}"
        );
    }
}

/// One test: the device's dispatch counter is shared by every thread.
#[test]
fn layer_norm_fused() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/nn/ln_double_backward.json"
    );
    let data: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let device = default_device().unwrap();
    for case in data["cases"].as_array().unwrap() {
        let shape: Vec<usize> = case["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap() as usize)
            .collect();
        let k = case["dims"].as_u64().unwrap() as usize;
        let norm = shape[shape.len() - k..].to_vec();
        let affine = case["affine"].as_bool().unwrap();
        let leaf = |key: &str, s: &[usize]| {
            let t = Tensor::from_slice(&floats(&case[key]), s).unwrap();
            t.set_requires_grad(true).unwrap();
            t
        };
        let x = leaf("x", &shape);
        let g = Tensor::from_slice(&floats(&case["g"]), &shape).unwrap();
        let (w, b) = if affine {
            (Some(leaf("weight", &norm)), Some(leaf("bias", &norm)))
        } else {
            (None, None)
        };
        let mut params = vec![x.clone()];
        params.extend(w.iter().cloned());
        params.extend(b.iter().cloned());
        let label = |what: &str| format!("{shape:?} over {k} dims, affine {affine}: {what}");
        for create_graph in [false, true] {
            let d0 = device.dispatches();
            let y = F::layer_norm(&x, &norm, w.as_ref(), b.as_ref(), 1e-5).unwrap();
            if !create_graph {
                assert_eq!(
                    device.dispatches() - d0,
                    1,
                    "{}",
                    label("forward dispatches")
                );
            }
            near(&label("y"), Some(&y), &floats(&case["y"]));
            let loss = y.mul(&g).unwrap().sum(None, false).unwrap();
            let d1 = device.dispatches();
            let first = grad(&[loss], &params, &[None], None, create_graph, false).unwrap();
            if !create_graph {
                // The loss's own backward (mul and sum) adds its dispatches to the count.
                let most = if affine { 3 + 3 } else { 1 + 3 };
                let n = device.dispatches() - d1;
                assert!(n <= most, "{}: {n}", label("backward dispatches"));
            }
            let how = if create_graph { "composed" } else { "kernels" };
            near(
                &label(&format!("gx ({how})")),
                first[0].as_ref(),
                &floats(&case["gx"]),
            );
            if affine {
                near(
                    &label(&format!("gw ({how})")),
                    first[1].as_ref(),
                    &floats(&case["gw"]),
                );
                near(
                    &label(&format!("gb ({how})")),
                    first[2].as_ref(),
                    &floats(&case["gb"]),
                );
            }
            if create_graph {
                let sq = |t: &Option<Tensor>| {
                    let t = t.as_ref().unwrap();
                    t.mul(t).unwrap().sum(None, false).unwrap()
                };
                let mut total = sq(&first[0]);
                let mut wrt = vec![x.clone()];
                if let Some(w) = &w {
                    total = total.add(sq(&first[1])).unwrap();
                    wrt.push(w.clone());
                }
                let second = grad(&[total], &wrt, &[None], None, false, false).unwrap();
                near(&label("ggx"), second[0].as_ref(), &floats(&case["ggx"]));
                if affine {
                    near(&label("ggw"), second[1].as_ref(), &floats(&case["ggw"]));
                }
            }
        }
    }
}
