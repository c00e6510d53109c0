//! Every layer, activation and loss on inputs frozen from torch: outputs and the gradients of
//! the inputs and parameters (tests/nn/cases.json and the option sweep of the sequence modules,
//! tests/nn/sequence_sweep.json; atol 1e-4, rtol 1e-4). Modules are called
//! through `Module::forward_values`, as the bindings call them: positional inputs (a tensor, a
//! list of them, None), optional `forward_kwargs`, and an output that is a tensor or a tree.

mod common;

use borch_autograd::backward_all;
use borch_tensor::api::Value;
use borch_tensor::{Tensor, manual_seed};
use common::{build, cases, compare, state_dict, tensor, value};
use serde_json::Value as Json;

/// An input spec as a forward argument: a frozen tensor (a leaf, maybe transposed), a list of
/// them (LSTM's `(h_0, c_0)`, nested), null (None) or a plain value. Every leaf slot, in order,
/// goes to `leaves` (None for a null).
fn argument(spec: &Json, leaves: &mut Vec<Option<Tensor>>) -> Value {
    match spec {
        Json::Null => {
            leaves.push(None);
            Value::None
        }
        Json::Array(items) => Value::List(items.iter().map(|s| argument(s, leaves)).collect()),
        Json::Object(_) => {
            let leaf = tensor(spec);
            if spec["requires_grad"].as_bool().unwrap() {
                leaf.set_requires_grad(true).unwrap();
            }
            let arg = if spec["transpose"].as_bool().unwrap() {
                leaf.transpose(-2, -1).unwrap()
            } else {
                leaf.clone()
            };
            leaves.push(Some(leaf));
            Value::Tensor(arg)
        }
        other => value(other),
    }
}

/// The leaves' expected gradients in the order [`argument`] visits them.
fn flatten<'a>(expected: &'a Json, out: &mut Vec<&'a Json>) {
    match expected {
        Json::Array(items) => items.iter().for_each(|e| flatten(e, out)),
        e => out.push(e),
    }
}

/// Compare an output tree (a tensor, a tuple as a list, None) with the frozen one, collecting
/// `(output, gout)` for every tensor output with a gout.
fn outputs(
    what: &str,
    y: &Value,
    expected: &Json,
    gout: &Json,
    roots: &mut Vec<(Tensor, Option<Tensor>)>,
    out: &mut Vec<String>,
) {
    match (y, expected) {
        (Value::None, Json::Null) => {}
        (Value::List(items), Json::Array(e)) if items.len() == e.len() => {
            for (i, (y, e)) in items.iter().zip(e).enumerate() {
                let g = gout.get(i).unwrap_or(&Json::Null);
                outputs(&format!("{what}[{i}]"), y, e, g, roots, out);
            }
        }
        (Value::Tensor(t), e) if e.is_object() => {
            out.extend(compare(what, t, e));
            if t.requires_grad() {
                roots.push((t.clone(), (!gout.is_null()).then(|| tensor(gout))));
            }
        }
        (y, e) => out.push(format!("{what}: got {}, expected {e:.60}", y.type_name())),
    }
}

/// Run one case; the disagreements found. A case's output is a tensor or a tree of them (a
/// tuple, None items); gradients are of `sum(output · gout)` over every tensor output (or of
/// the scalar output).
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
    let args: Vec<Value> = case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| argument(s, &mut leaves))
        .collect();
    let keywords: Vec<(String, Value)> =
        case["forward_kwargs"].as_object().map_or(Vec::new(), |o| {
            o.iter().map(|(k, v)| (k.clone(), value(v))).collect()
        });
    manual_seed(seed);
    let y = match m.forward_values(args, keywords) {
        Ok(y) => y,
        Err(e) => return vec![format!("{name}: forward failed: {e}")],
    };
    let mut roots = Vec::new();
    outputs(
        "output",
        &y,
        &case["output"],
        &case["gout"],
        &mut roots,
        &mut out,
    );
    if !roots.is_empty() {
        let (ys, gs): (Vec<Tensor>, Vec<Option<Tensor>>) = roots.into_iter().unzip();
        if let Err(e) = backward_all(&ys, &gs, false, false) {
            return vec![format!("{name}: backward failed: {e}")];
        }
    }
    let mut expected = Vec::new();
    flatten(&case["input_grads"], &mut expected);
    if expected.len() != leaves.len() {
        out.push(format!(
            "{} input grads frozen for {} input tensors",
            expected.len(),
            leaves.len()
        ));
    }
    for (i, (leaf, expected)) in leaves.iter().zip(expected).enumerate() {
        match (leaf.as_ref().and_then(Tensor::grad), expected.is_null()) {
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
    run_file(cases(), include);
}

fn run_file(cases: Json, include: impl Fn(&str) -> bool) {
    let _rng = common::rng_lock();
    let mut failures = Vec::new();
    let mut count = 0;
    for case in cases["forward"].as_array().unwrap() {
        if include(case["name"].as_str().unwrap()) {
            count += 1;
            failures.extend(run(case));
        }
    }
    assert!(count > 0);
    let adapter = borch_tensor::default_device().map(|d| d.adapter_info().short());
    println!(
        "{count} cases, {} disagreements [{}]",
        failures.len(),
        adapter.unwrap_or_else(|e| e.to_string())
    );
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

/// The option sweep of the recurrent, attention and transformer modules
/// (tests/nn/sequence_sweep.json, frozen by tests/nn/sequence_sweep.py).
#[test]
fn sequence_sweep_matches_torch() {
    let filter = std::env::var("SWEEP_FILTER").unwrap_or_default();
    run_file(
        common::fixture("sequence_sweep.json", "sequence_sweep.py"),
        |n| n.contains(&filter),
    );
}
