//! Names, printed forms, state dicts and error messages, against torch (tests/nn/cases.json).

mod common;

use borch_nn::{Module, Reduction, functional as F, init};
use borch_tensor::{BorchError, DType, ErrorKind, Tensor, empty, randn, zeros};
use common::{build, cases, state_dict};
use serde_json::Value as Json;

fn strings(j: &Json) -> Vec<String> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn keys(items: Vec<(String, impl Sized)>) -> Vec<String> {
    items.into_iter().map(|(k, _)| k).collect()
}

#[test]
fn reprs_and_names_match_torch() {
    let _rng = common::rng_lock();
    let mut failures = Vec::new();
    for case in cases()["structure"].as_array().unwrap() {
        let m = build(&case["module"]);
        let expected = case["repr"].as_str().unwrap();
        if m.repr() != expected {
            failures.push(format!("repr:\n{}\nexpected:\n{expected}", m.repr()));
        }
        assert_eq!(format!("{m}"), m.repr());
        let checks = [
            (
                "state_dict",
                m.state_dict()
                    .keys()
                    .iter()
                    .map(|k| k.to_string())
                    .collect(),
            ),
            ("named_parameters", keys(m.named_parameters())),
            ("named_buffers", keys(m.named_buffers())),
            ("named_children", keys(m.named_children())),
            ("named_modules", keys(m.named_modules())),
        ];
        for (what, got) in checks {
            if got != strings(&case[what]) {
                failures.push(format!(
                    "{expected}: {what} {got:?}, expected {}",
                    case[what]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn load_state_dict_matches_torch() {
    let _rng = common::rng_lock();
    for case in cases()["load_errors"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let m = build(&case["module"]);
        let result = m.load_state_dict(
            &state_dict(&case["state_dict"]),
            case["strict"].as_bool().unwrap(),
        );
        match (&case["error"], result) {
            (Json::String(expected), Err(e)) => {
                assert_eq!(e.kind(), ErrorKind::Runtime, "{name}");
                assert_eq!(&e.to_string(), expected, "{name}");
            }
            (Json::Null, Ok(keys)) => {
                assert_eq!(keys.missing_keys, strings(&case["missing_keys"]), "{name}");
                assert_eq!(
                    keys.unexpected_keys,
                    strings(&case["unexpected_keys"]),
                    "{name}"
                );
            }
            (expected, got) => panic!("{name}: expected {expected}, got {got:?}"),
        }
    }
}

#[test]
fn loaded_values_are_copied_in() {
    let m = borch_nn::Linear::new(3, 2).unwrap();
    let mut sd = m.state_dict();
    sd.insert(
        "weight",
        Tensor::new([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]).unwrap(),
    );
    sd.insert("bias", zeros(&[2], DType::Float32).unwrap());
    m.load_state_dict(&sd, true).unwrap();
    assert_eq!(
        m.weight.to_vec_blocking::<f32>().unwrap(),
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    assert!(m.weight.requires_grad() && m.weight.is_leaf());
    // state_dict values share storage with the parameters, as torch's detached tensors do.
    let sd = m.state_dict();
    borch_autograd::no_grad(|| sd.get("bias").unwrap().fill_(7.0)).unwrap();
    assert_eq!(
        m.bias.as_ref().unwrap().to_vec_blocking::<f32>().unwrap(),
        vec![7.0, 7.0]
    );
}

fn kind_of(name: &str) -> ErrorKind {
    match name {
        "RuntimeError" => ErrorKind::Runtime,
        "ValueError" => ErrorKind::Value,
        "TypeError" => ErrorKind::Type,
        "IndexError" => ErrorKind::Index,
        other => panic!("{other}"),
    }
}

/// The call each error case of cases.py makes, in borch.
fn call(name: &str) -> Result<Tensor, BorchError> {
    let x = randn(&[3, 4], None)?;
    let long = |v: &[i64]| Tensor::from_slice(v, &[v.len()]);
    let mean = Reduction::Mean;
    match name {
        "mse_bad_reduction" => F::mse_loss(&x, &x, "batchmean".parse()?),
        "l1_bad_reduction" => F::l1_loss(&x, &x, "avg".parse()?),
        "ce_batch" => F::cross_entropy(&x, &long(&[1, 2])?, None, -100, mean, 0.0),
        "nll_float_target" => F::nll_loss(&x, &Tensor::new([1.0f32, 2.0, 3.0])?, None, -100, mean),
        "ce_multi_target" => {
            let t = Tensor::from_slice(&[1i64, 2, 3], &[1, 3])?;
            F::cross_entropy(&x, &t, None, -100, mean, 0.0)
        }
        "ce_smoothing_range" => F::cross_entropy(&x, &long(&[1, 2, 3])?, None, -100, mean, 1.5),
        "ce_weight_size" => {
            let w = Tensor::new([1.0f32, 1.0, 1.0])?;
            F::cross_entropy(&x, &long(&[1, 2, 3])?, Some(&w), -100, mean, 0.0)
        }
        "layer_norm_shape" => F::layer_norm(&randn(&[2, 3, 4], None)?, &[5], None, None, 1e-5),
        "layer_norm_shape_2" => F::layer_norm(&randn(&[2, 3, 4], None)?, &[2, 4], None, None, 1e-5),
        "embedding_float" => F::embedding(&x, &x, None),
        "dropout_p" => F::dropout(&x, 1.5, true),
        "dropout_p_negative" => F::dropout(&x, -0.1, true),
        "bce_size" => F::binary_cross_entropy(&x.sigmoid()?, &randn(&[3], None)?, None, mean),
        "bce_logits_size" => {
            F::binary_cross_entropy_with_logits(&x, &randn(&[3], None)?, None, mean, None)
        }
        "smooth_l1_beta" => F::smooth_l1_loss(&x, &x, mean, -1.0),
        "huber_delta" => F::huber_loss(&x, &x, mean, 0.0),
        "linear_shape" => F::linear(
            &randn(&[2, 5], None)?,
            &randn(&[3, 4], None)?,
            Some(&randn(&[3], None)?),
        ),
        "bilinear_size" => F::bilinear(
            &randn(&[2, 3], None)?,
            &randn(&[2, 3], None)?,
            &randn(&[4, 2, 3], None)?,
            None,
        ),
        "xavier_1d" => init::xavier_uniform_(&empty(&[3], DType::Float32)?, 1.0),
        "gain" => init::calculate_gain("foo", None).map(|_| x.clone()),
        "kaiming_mode" => {
            init::kaiming_uniform_(&empty(&[3, 4], DType::Float32)?, 0.0, "fan_x", "leaky_relu")
        }
        "kl_div_bad_reduction" => F::kl_div(&x, &x, "avg".parse()?, false),
        "softmax_dim" => F::softmax(&x, Some(2)),
        "gelu_approximate" => F::gelu(&x, "fast"),
        other => panic!("no call for error case {other}"),
    }
}

#[test]
fn errors_match_torch() {
    let _rng = common::rng_lock();
    let mut failures = Vec::new();
    for case in cases()["errors"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let expected = case["message"].as_str().unwrap();
        match call(name) {
            Ok(_) => failures.push(format!("{name}: accepted")),
            Err(e) => {
                if e.to_string() != expected || e.kind() != kind_of(case["kind"].as_str().unwrap())
                {
                    failures.push(format!(
                        "{name}: {:?} {e}\n   expected {expected}",
                        e.kind()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn forward_with_the_wrong_arity_says_so() {
    let loss = borch_nn::MSELoss::new();
    let x = randn(&[2], None).unwrap();
    let e = Module::forward(&loss, &x).unwrap_err();
    assert_eq!(
        e.to_string(),
        "MSELoss.forward() missing 1 required positional argument: 'target'"
    );
    let list = borch_nn::ModuleList::new(vec![Box::new(borch_nn::ReLU::new())]);
    assert_eq!(
        list.forward(&x).unwrap_err().to_string(),
        "Module [ModuleList] is missing the required \"forward\" function"
    );
}
