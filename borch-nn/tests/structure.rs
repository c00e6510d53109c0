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

/// A user's own module: parameters of its fields and children by dotted name, train/eval over
/// the tree, the printed form.
struct Net {
    fc1: borch_nn::Linear,
    layers: borch_nn::ModuleList,
    scale: Tensor,
    training: bool,
}

impl Module for Net {
    fn forward(&self, x: &Tensor) -> borch_tensor::Result<Tensor> {
        let mut h = self.fc1.forward(x)?;
        for layer in self.layers.iter() {
            h = layer.forward(&h)?;
        }
        h.mul(&self.scale)
    }
    fn name(&self) -> String {
        "Net".into()
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        vec![("scale".into(), self.scale.clone())]
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        vec![("fc1".into(), &self.fc1), ("layers".into(), &self.layers)]
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        vec![
            ("fc1".into(), &mut self.fc1),
            ("layers".into(), &mut self.layers),
        ]
    }
    borch_nn::training_flag!();
}
borch_nn::display_as_repr!(Net);

#[test]
fn user_modules_get_dotted_names_and_train_eval() {
    let _rng = common::rng_lock();
    let scale = Tensor::new([1.0f32]).unwrap();
    scale.set_requires_grad(true).unwrap();
    let mut net = Net {
        fc1: borch_nn::Linear::new(3, 4).unwrap(),
        layers: borch_nn::ModuleList::new(vec![
            Box::new(borch_nn::ReLU::new()),
            Box::new(borch_nn::Linear::new(4, 2).unwrap()),
            Box::new(borch_nn::Dropout::new(0.5).unwrap()),
        ]),
        scale,
        training: true,
    };
    assert_eq!(
        keys(net.named_parameters()),
        [
            "scale",
            "fc1.weight",
            "fc1.bias",
            "layers.1.weight",
            "layers.1.bias"
        ]
    );
    assert_eq!(
        keys(net.named_modules()),
        ["", "fc1", "layers", "layers.0", "layers.1", "layers.2"]
    );
    net.eval();
    assert!(net.modules().iter().all(|m| !m.is_training()));
    net.train(true);
    assert!(net.modules().iter().all(|m| m.is_training()));
    assert_eq!(
        format!("{net}"),
        "Net(\n  (fc1): Linear(in_features=3, out_features=4, bias=True)\n  (layers): ModuleList(\n    \
         (0): ReLU()\n    (1): Linear(in_features=4, out_features=2, bias=True)\n    \
         (2): Dropout(p=0.5, inplace=False)\n  )\n)"
    );
    let linear = net
        .layers
        .get(1)
        .unwrap()
        .as_any()
        .downcast_ref::<borch_nn::Linear>();
    assert_eq!(linear.unwrap().out_features, 2);
    // apply visits children first, then the module; requires_grad_ freezes every parameter.
    let mut names = Vec::new();
    net.apply(&mut |m| {
        names.push(m.name());
        Ok(())
    })
    .unwrap();
    assert_eq!(
        names,
        ["Linear", "ReLU", "Linear", "Dropout", "ModuleList", "Net"]
    );
    net.requires_grad_(false).unwrap();
    assert!(net.parameters().iter().all(|p| !p.requires_grad()));
    net.requires_grad_(true).unwrap();
    // Shared tensors are listed once, under their first name.
    let shared = borch_nn::Linear::from_tensors(net.fc1.weight.clone(), None).unwrap();
    let seq = borch_nn::sequential![
        borch_nn::Linear::from_tensors(net.fc1.weight.clone(), None).unwrap(),
        shared
    ];
    assert_eq!(keys(seq.named_parameters()), ["0.weight"]);
    assert_eq!(seq.state_dict().keys(), ["0.weight", "1.weight"]);
}
