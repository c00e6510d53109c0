//! BatchNorm and InstanceNorm running statistics against torch: a module run in train mode on
//! several batches (output and buffers after each: running mean and variance,
//! num_batches_tracked), then in eval mode (tests/nn/cases.json "stats", atol 1e-4, rtol 1e-4).

mod common;

use common::{build, cases, compare, tensor};
use serde_json::Value as Json;

fn run(case: &Json) -> Vec<String> {
    let name = case["name"].as_str().unwrap();
    let mut out = Vec::new();
    let mut m = build(&case["module"]);
    m.train(true);
    for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
        match m.forward(&tensor(&step["input"])) {
            Ok(y) => out.extend(compare(&format!("step {i} output"), &y, &step["output"])),
            Err(e) => return vec![format!("{name}: step {i} failed: {e}")],
        }
        let buffers = m.named_buffers();
        let expected = step["buffers"].as_array().unwrap();
        let got: Vec<&str> = buffers.iter().map(|(k, _)| k.as_str()).collect();
        let want: Vec<&str> = expected.iter().map(|e| e[0].as_str().unwrap()).collect();
        if got != want {
            out.push(format!("step {i}: buffers {got:?}, expected {want:?}"));
            continue;
        }
        for ((key, b), e) in buffers.iter().zip(expected) {
            if b.dtype().name() != e[1]["dtype"].as_str().unwrap() {
                out.push(format!("step {i} {key}: dtype {}", b.dtype().name()));
            }
            out.extend(compare(&format!("step {i} {key}"), b, &e[1]));
        }
    }
    m.eval();
    let eval = &case["eval"];
    match m.forward(&tensor(&eval["input"])) {
        Ok(y) => out.extend(compare("eval output", &y, &eval["output"])),
        Err(e) => out.push(format!("eval failed: {e}")),
    }
    let keys: Vec<String> = m
        .state_dict()
        .keys()
        .iter()
        .map(|k| k.to_string())
        .collect();
    let want: Vec<&str> = case["state_dict"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    if keys != want {
        out.push(format!("state_dict {keys:?}, expected {want:?}"));
    }
    out.into_iter().map(|m| format!("{name}: {m}")).collect()
}

#[test]
fn running_stats_match_torch() {
    let _rng = common::rng_lock();
    let cases = cases();
    let all = cases["stats"].as_array().unwrap();
    assert!(!all.is_empty());
    let failures: Vec<String> = all.iter().flat_map(run).collect();
    assert!(
        failures.is_empty(),
        "{} disagreements in {} cases:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
