//! Every layer, activation and loss on inputs frozen from torch: outputs and the gradients of
//! the inputs and parameters (tests/nn/cases.json, atol 1e-4, rtol 1e-4).

mod common;

use borch_autograd::backward;
use borch_tensor::{Tensor, manual_seed};
use common::{build, cases, compare, state_dict, tensor};
use serde_json::Value as Json;

/// Run one case; the disagreements found.
fn run(case: &Json) -> Vec<String> {
    let name = case["name"].as_str().unwrap();
    let mut out = Vec::new();
    let seed = case["seed"].as_u64().unwrap();
    manual_seed(seed);
    let mut m = build(&case["module"]);
    m.load_state_dict(&state_dict(&case["state_dict"]), true)
        .unwrap();
    m.train(case["train"].as_bool().unwrap());
    let mut leaves = Vec::new();
    let mut args = Vec::new();
    for spec in case["inputs"].as_array().unwrap() {
        let leaf = tensor(spec);
        if spec["requires_grad"].as_bool().unwrap() {
            leaf.set_requires_grad(true).unwrap();
        }
        let arg = if spec["transpose"].as_bool().unwrap() {
            leaf.transpose(-2, -1).unwrap()
        } else {
            leaf.clone()
        };
        leaves.push(leaf);
        args.push(arg);
    }
    manual_seed(seed);
    let refs: Vec<&Tensor> = args.iter().collect();
    let y = match m.forward_args(&refs) {
        Ok(y) => y,
        Err(e) => return vec![format!("{name}: forward failed: {e}")],
    };
    out.extend(compare("output", &y, &case["output"]));
    if y.requires_grad() {
        let gout = (!case["gout"].is_null()).then(|| tensor(&case["gout"]));
        if let Err(e) = backward(&y, gout.as_ref(), false) {
            return vec![format!("{name}: backward failed: {e}")];
        }
    }
    for (i, (leaf, expected)) in leaves
        .iter()
        .zip(case["input_grads"].as_array().unwrap())
        .enumerate()
    {
        match (leaf.grad(), expected.is_null()) {
            (Some(g), false) => out.extend(compare(&format!("input {i} grad"), &g, expected)),
            (None, true) => {}
            (Some(_), true) => out.push(format!("input {i}: a grad torch does not have")),
            (None, false) => out.push(format!("input {i}: no grad")),
        }
    }
    let params = m.named_parameters();
    for e in case["param_grads"].as_array().unwrap() {
        let key = e[0].as_str().unwrap();
        let p = params.iter().find(|(k, _)| k == key).map(|(_, p)| p);
        match p.and_then(Tensor::grad) {
            Some(g) => out.extend(compare(&format!("{key} grad"), &g, &e[1])),
            None => out.push(format!("{key}: no grad")),
        }
    }
    out.into_iter().map(|m| format!("{name}: {m}")).collect()
}

fn run_prefixes(include: impl Fn(&str) -> bool) {
    let _rng = common::rng_lock();
    let cases = cases();
    let mut failures = Vec::new();
    let mut count = 0;
    for case in cases["forward"].as_array().unwrap() {
        if include(case["name"].as_str().unwrap()) {
            count += 1;
            failures.extend(run(case));
        }
    }
    assert!(count > 0);
    assert!(
        failures.is_empty(),
        "{} disagreements in {count} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

const LOSSES: &[&str] = &[
    "mse",
    "l1",
    "smooth_l1",
    "huber",
    "bce",
    "ce_",
    "nll",
    "kl_div",
];

fn is_loss(name: &str) -> bool {
    LOSSES.iter().any(|p| name.starts_with(p))
}

#[test]
fn activations_match_torch() {
    run_prefixes(|n| n.starts_with("act_"));
}

#[test]
fn layers_match_torch() {
    run_prefixes(|n| !n.starts_with("act_") && !is_loss(n));
}

#[test]
fn losses_match_torch() {
    run_prefixes(is_loss);
}
