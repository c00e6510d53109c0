//! The Lazy modules against torch (tests/nn/cases.json "lazy"): built without drawing, then
//! called right after `manual_seed(seed)`; the repr before and after, the state dict the first
//! forward initialised (torch's default init), the output and the gradients.

mod common;

use borch_autograd::backward;
use borch_tensor::{Tensor, manual_seed};
use common::{build, cases, compare, tensor};
use serde_json::Value as Json;

fn run(case: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let m = build(&case["module"]);
    if m.repr() != case["repr_before"].as_str().unwrap() {
        out.push(format!("repr before: {}", m.repr()));
    }
    if !m.named_parameters().is_empty() {
        out.push("parameters before the first forward".into());
    }
    let mut leaves = Vec::new();
    let mut args = Vec::new();
    for spec in case["inputs"].as_array().unwrap() {
        let leaf = tensor(spec);
        leaf.set_requires_grad(true).unwrap();
        args.push(if spec["transpose"].as_bool().unwrap() {
            leaf.transpose(-2, -1).unwrap()
        } else {
            leaf.clone()
        });
        leaves.push(leaf);
    }
    manual_seed(case["seed"].as_u64().unwrap());
    let refs: Vec<&Tensor> = args.iter().collect();
    let y = match m.forward_args(&refs) {
        Ok(y) => y,
        Err(e) => return vec![format!("forward failed: {e}")],
    };
    if m.repr() != case["repr_after"].as_str().unwrap() {
        out.push(format!("repr after: {}", m.repr()));
    }
    let state = m.state_dict();
    let expected = case["state_dict"].as_array().unwrap();
    let keys: Vec<String> = state.keys().iter().map(|k| k.to_string()).collect();
    let want: Vec<&str> = expected.iter().map(|e| e[0].as_str().unwrap()).collect();
    if keys != want {
        out.push(format!("state_dict keys {keys:?}, expected {want:?}"));
    } else {
        for e in expected {
            let key = e[0].as_str().unwrap();
            out.extend(compare(key, state.get(key).unwrap(), &e[1]));
        }
    }
    out.extend(compare("output", &y, &case["output"]));
    if let Err(e) = backward(&y, Some(&tensor(&case["gout"])), false) {
        return vec![format!("backward failed: {e}")];
    }
    for (i, (leaf, e)) in leaves
        .iter()
        .zip(case["input_grads"].as_array().unwrap())
        .enumerate()
    {
        match leaf.grad() {
            Some(g) => out.extend(compare(&format!("input {i} grad"), &g, e)),
            None => out.push(format!("input {i}: no grad")),
        }
    }
    let params = m.named_parameters();
    for e in case["param_grads"].as_array().unwrap() {
        let key = e[0].as_str().unwrap();
        match params
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, p)| p.grad())
        {
            Some(g) => out.extend(compare(&format!("{key} grad"), &g, &e[1])),
            None => out.push(format!("{key}: no grad")),
        }
    }
    out
}

#[test]
fn lazy_modules_infer_their_input_size_and_initialise_as_torch() {
    let _rng = common::rng_lock();
    let mut failures = Vec::new();
    let lazy = cases()["lazy"].as_array().unwrap().clone();
    for case in &lazy {
        let name = case["name"].as_str().unwrap();
        failures.extend(run(case).into_iter().map(|f| format!("{name}: {f}")));
    }
    assert!(lazy.len() >= 18);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("lazy: {} cases agree", lazy.len());
}

#[test]
fn lazy_conv_refuses_a_wrong_rank_as_torch() {
    let m = borch_nn::LazyConv2d::conv2d(4, &[3], borch_nn::ConvOptions::default());
    let x = borch_tensor::zeros(&[5, 5], borch_tensor::DType::Float32).unwrap();
    let e = borch_nn::Module::forward(&m, &x).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Expected 3D (unbatched) or 4D (batched) input to LazyConv2d, but got input of size: \
         torch.Size([5, 5])"
    );
    assert!(m.has_uninitialized_params());
}
