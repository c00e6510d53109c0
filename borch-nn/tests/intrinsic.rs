//! `nn.intrinsic`'s fused modules against torch.ao.nn.intrinsic (tests/nn/intrinsic_cases.json,
//! frozen by tests/nn/intrinsic_cases.py): built from float modules through the catalog, state
//! loaded; repr, state dict keys, output, gradients of every input and parameter, buffers after
//! the forward (running statistics of a train-mode forward), and for train cases an eval-mode
//! forward afterwards (BatchNorm folded, with the updated statistics). Also torch's type checks.

mod common;

use borch_autograd::{backward, no_grad};
use borch_nn::Module;
use borch_nn::intrinsic::build_fused;
use borch_tensor::Tensor;
use common::{build, compare, state_dict, tensor};
use serde_json::Value as Json;

fn cases() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/nn/intrinsic_cases.json"
    );
    let text = std::fs::read_to_string(path).expect("tests/nn/intrinsic_cases.json");
    serde_json::from_str(&text).expect("intrinsic_cases.json parses")
}

fn fused(case: &Json) -> Box<dyn Module> {
    let mods = case["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(build)
        .collect();
    let class = case["class"].as_str().unwrap();
    build_fused(class, mods).unwrap_or_else(|e| panic!("{class}: {e}"))
}

fn run(case: &Json) -> Vec<String> {
    let name = case["name"].as_str().unwrap();
    let e = &case["expect"];
    let mut out = Vec::new();
    let mut m = fused(case);
    if let Err(err) = m.load_state_dict(&state_dict(&case["state_dict"]), true) {
        return vec![format!("{name}: load_state_dict: {err}")];
    }
    m.train(case["train"].as_bool().unwrap());
    if m.repr() != e["repr"].as_str().unwrap() {
        out.push(format!("repr:\n{}\nexpected\n{}", m.repr(), e["repr"]));
    }
    let keys: Vec<String> = m
        .state_dict()
        .keys()
        .iter()
        .map(|k| k.to_string())
        .collect();
    let want: Vec<&str> = e["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    if keys != want {
        out.push(format!("state_dict {keys:?}, expected {want:?}"));
    }
    let inputs: Vec<Tensor> = case["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let t = tensor(j);
            t.set_requires_grad(true).unwrap();
            t
        })
        .collect();
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let y = match m.forward_args(&refs) {
        Ok(y) => y,
        Err(err) => return vec![format!("{name}: forward failed: {err}")],
    };
    out.extend(compare("output", &y, &e["output"]));
    if let Err(err) = backward(&y, Some(&tensor(&e["gout"])), false) {
        return vec![format!("{name}: backward failed: {err}")];
    }
    for (i, (x, g)) in inputs
        .iter()
        .zip(e["input_grads"].as_array().unwrap())
        .enumerate()
    {
        match x.grad() {
            Some(got) => out.extend(compare(&format!("input {i} grad"), &got, g)),
            None => out.push(format!("input {i}: no grad")),
        }
    }
    let params = m.named_parameters();
    let expected = e["param_grads"].as_array().unwrap();
    if params.len() != expected.len() {
        out.push(format!(
            "{} parameters, torch {}",
            params.len(),
            expected.len()
        ));
    }
    for pe in expected {
        let key = pe[0].as_str().unwrap();
        match params
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, p)| p.grad())
        {
            Some(g) => out.extend(compare(&format!("{key} grad"), &g, &pe[1])),
            None => out.push(format!("{key}: no grad")),
        }
    }
    let buffers = m.named_buffers();
    for be in e["buffers"].as_array().unwrap() {
        let key = be[0].as_str().unwrap();
        match buffers.iter().find(|(k, _)| k == key) {
            Some((_, b)) => out.extend(compare(key, b, &be[1])),
            None => out.push(format!("no buffer {key}")),
        }
    }
    if let Some(eval) = e.get("eval_output") {
        m.eval();
        match no_grad(|| m.forward_args(&refs)) {
            Ok(y) => out.extend(compare("eval output", &y, eval)),
            Err(err) => out.push(format!("eval forward failed: {err}")),
        }
    }
    out.into_iter().map(|m| format!("{name}: {m}")).collect()
}

#[test]
fn intrinsic_modules_match_torch() {
    let _rng = common::rng_lock();
    let cases = cases();
    let all = cases["modules"].as_array().unwrap();
    assert!(all.len() >= 50);
    let failures: Vec<String> = all.iter().flat_map(run).collect();
    assert!(
        failures.is_empty(),
        "{} disagreements in {} cases:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

#[test]
fn intrinsic_constructors_check_types_as_torch() {
    let _rng = common::rng_lock();
    let cases = cases();
    for c in cases["construct_errors"].as_array().unwrap() {
        let err = build_fused(c["class"].as_str().unwrap(), {
            c["modules"].as_array().unwrap().iter().map(build).collect()
        })
        .expect_err("refused");
        assert_eq!(err.to_string(), c["error"].as_str().unwrap());
        assert_eq!(err.kind(), borch_tensor::ErrorKind::Runtime);
    }
    let e = build_fused("ConvReLU9d", vec![]).err().unwrap();
    assert_eq!(
        e.to_string(),
        "module 'torch.ao.nn.intrinsic' has no attribute 'ConvReLU9d'"
    );
}

#[test]
fn conv_add_takes_two_inputs() {
    let _rng = common::rng_lock();
    let conv = borch_nn::Conv2d::new(1, 1, &[1]).unwrap();
    let m = borch_nn::intrinsic::ConvAdd2d::new(conv);
    let x = borch_tensor::randn(&[1, 1, 2, 2], None).unwrap();
    let e = m.forward(&x).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ConvAdd2d.forward() missing 1 required positional argument: 'x2'"
    );
}

/// The eval fold is cached and refreshed when a source tensor is written.
#[test]
fn folded_weights_follow_parameter_writes() {
    use borch_nn::intrinsic::ConvBn2d;
    use borch_nn::{BatchNorm2d, Conv2d, ConvOptions};
    let _rng = common::rng_lock();
    borch_tensor::manual_seed(0);
    let conv = Conv2d::with_options(
        2,
        3,
        &[3],
        ConvOptions::default().padding(borch_tensor::Padding::Sizes(vec![1])),
    )
    .unwrap();
    let mut m = ConvBn2d::new(conv, BatchNorm2d::new(3).unwrap());
    let x = borch_tensor::randn(&[2, 2, 4, 4], None).unwrap();
    m.forward(&x).unwrap(); // train: updates the running statistics
    m.eval();
    let reference = |m: &ConvBn2d| -> Vec<f32> {
        let y = no_grad(|| m.bn.forward(&m.conv.forward(&x).unwrap())).unwrap();
        y.to_vec_blocking().unwrap()
    };
    let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-5);
    let y1: Vec<f32> = no_grad(|| m.forward(&x))
        .unwrap()
        .to_vec_blocking()
        .unwrap();
    assert!(close(&y1, &reference(&m)));
    // A write into a parameter (as an optimizer step does) must refresh the fold.
    no_grad(|| m.conv.weight.mul_(2.0)).unwrap();
    no_grad(|| m.bn.running_var().unwrap().add_(1.0, 1.0)).unwrap();
    let y2: Vec<f32> = no_grad(|| m.forward(&x))
        .unwrap()
        .to_vec_blocking()
        .unwrap();
    assert!(!close(&y1, &y2));
    assert!(close(&y2, &reference(&m)));
}
