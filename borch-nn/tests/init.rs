//! torch's default initialisation of each layer and nn.init's functions after `manual_seed`,
//! replayed from tests/nn/cases.json (frozen from real torch).

mod common;

use borch_nn::{Module, init};
use borch_tensor::{DType, empty, manual_seed};
use common::{build, cases, compare};
use serde_json::Value as Json;

#[test]
fn default_inits_match_torch() {
    let _rng = common::rng_lock();
    let cases = cases();
    let mut failures = Vec::new();
    for case in cases["init"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        manual_seed(case["seed"].as_u64().unwrap());
        let modules: Vec<Box<dyn Module>> = case["modules"]
            .as_array()
            .unwrap()
            .iter()
            .map(build)
            .collect();
        for (m, expected) in modules.iter().zip(case["state_dicts"].as_array().unwrap()) {
            let sd = m.state_dict();
            let keys: Vec<&str> = expected
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e[0].as_str().unwrap())
                .collect();
            assert_eq!(sd.keys(), keys, "{name}: state_dict keys");
            for e in expected.as_array().unwrap() {
                let key = e[0].as_str().unwrap();
                if let Some(m) = compare(key, sd.get(key).unwrap(), &e[1]) {
                    failures.push(format!("{name}: {m}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn run_init(name: &str, kwargs: &Json, t: &borch_tensor::Tensor) {
    let f = |k: &str, d: f64| kwargs.get(k).and_then(Json::as_f64).unwrap_or(d);
    let s = |k: &str, d: &'static str| {
        kwargs
            .get(k)
            .and_then(Json::as_str)
            .map(str::to_string)
            .unwrap_or(d.to_string())
    };
    match name {
        "uniform_" => init::uniform_(t, f("a", 0.0), f("b", 1.0)),
        "normal_" => init::normal_(t, f("mean", 0.0), f("std", 1.0)),
        "constant_" => init::constant_(t, f("val", 0.0)),
        "zeros_" => init::zeros_(t),
        "ones_" => init::ones_(t),
        "xavier_uniform_" => init::xavier_uniform_(t, f("gain", 1.0)),
        "xavier_normal_" => init::xavier_normal_(t, f("gain", 1.0)),
        "kaiming_uniform_" => init::kaiming_uniform_(
            t,
            f("a", 0.0),
            &s("mode", "fan_in"),
            &s("nonlinearity", "leaky_relu"),
        ),
        "kaiming_normal_" => init::kaiming_normal_(
            t,
            f("a", 0.0),
            &s("mode", "fan_in"),
            &s("nonlinearity", "leaky_relu"),
        ),
        other => panic!("init fn {other}"),
    }
    .unwrap();
}

#[test]
fn init_functions_match_torch() {
    let _rng = common::rng_lock();
    let cases = cases();
    let mut failures = Vec::new();
    for case in cases["init_fns"].as_array().unwrap() {
        let name = case["fn"].as_str().unwrap();
        manual_seed(case["seed"].as_u64().unwrap());
        let t = empty(&common::shape(&case["shape"]), DType::Float32).unwrap();
        run_init(name, &case["kwargs"], &t);
        if let Some(m) = compare(name, &t, &case["result"]) {
            failures.push(format!("{name} {} {:?}: {m}", case["kwargs"], t.shape()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gains_match_torch() {
    for case in cases()["gains"].as_array().unwrap() {
        let nl = case["nonlinearity"].as_str().unwrap();
        let gain = init::calculate_gain(nl, case["param"].as_f64()).unwrap();
        assert_eq!(gain, case["gain"].as_f64().unwrap(), "{nl}");
    }
}

#[test]
fn init_runs_without_recording_on_parameters() {
    let t = empty(&[3, 4], DType::Float32).unwrap();
    t.set_requires_grad(true).unwrap();
    init::kaiming_uniform_(&t, 0.0, "fan_in", "relu").unwrap();
    assert!(t.is_leaf() && t.requires_grad());
}
