//! A small CNN with BatchNorm2d and a residual add trained 30 steps with SGD momentum, step for
//! step against torch (tests/trajectories/cnn_batchnorm.py → cnn_batchnorm_residual.json): the
//! layers built through the module catalog by torch's names, torch's initial state_dict loaded,
//! every step's loss within 1e-4 relative, and the final state_dict (parameters and BatchNorm
//! buffers, num_batches_tracked included) within 1e-4 relative plus 1e-5 absolute.

use borch_autograd::Backward;
use borch_nn::api::modules::build_module;
use borch_nn::{Module, StateDict};
use borch_optim::{Params, Value as OptionValue, catalog};
use borch_tensor::api::Value;
use borch_tensor::{Result, Tensor, default_device};
use serde_json::Value as Json;

const LOSS_RTOL: f64 = 1e-4;
const RTOL: f64 = 1e-4;
const ATOL: f64 = 1e-5;

fn tensor(j: &Json) -> Result<Tensor> {
    let shape: Vec<usize> = j["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("dim") as usize)
        .collect();
    let data = j["data"].as_array().expect("data");
    if j["dtype"] == "int64" {
        let v: Vec<i64> = data.iter().map(|x| x.as_i64().expect("int")).collect();
        Tensor::from_slice(&v, &shape)
    } else {
        let v: Vec<f32> = data
            .iter()
            .map(|x| x.as_f64().expect("float") as f32)
            .collect();
        Tensor::from_slice(&v, &shape)
    }
}

struct Net {
    layers: Vec<(&'static str, Box<dyn Module>)>,
}

fn ints(v: &[i64]) -> Vec<Value> {
    v.iter().map(|&i| Value::Int(i)).collect()
}

impl Net {
    fn new() -> Result<Net> {
        let conv = |cin| {
            build_module(
                "Conv2d",
                ints(&[cin, 4, 3]),
                vec![
                    ("padding".into(), Value::Int(1)),
                    ("bias".into(), Value::Bool(false)),
                ],
            )
        };
        let bn = || build_module("BatchNorm2d", ints(&[4]), vec![]);
        Ok(Net {
            layers: vec![
                ("conv1", conv(1)?),
                ("bn1", bn()?),
                ("conv2", conv(4)?),
                ("bn2", bn()?),
                ("fc", build_module("Linear", ints(&[4, 3]), vec![])?),
            ],
        })
    }

    fn layer(&self, name: &str) -> &dyn Module {
        &*self
            .layers
            .iter()
            .find(|(n, _)| *n == name)
            .expect("layer")
            .1
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let h = self
            .layer("bn1")
            .forward(&self.layer("conv1").forward(x)?)?
            .relu()?;
        let r = self
            .layer("bn2")
            .forward(&self.layer("conv2").forward(&h)?)?
            .add(&h)?
            .relu()?;
        self.layer("fc").forward(&r.mean(Some(&[2, 3]), false)?)
    }

    fn parameters(&self) -> Vec<Tensor> {
        self.layers
            .iter()
            .flat_map(|(_, m)| m.parameters())
            .collect()
    }

    fn state(&self) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        for (name, m) in &self.layers {
            for (k, v) in m.state_dict().iter() {
                out.push((format!("{name}.{k}"), v.clone()));
            }
        }
        out
    }

    fn load(&self, entries: &[Json]) -> Result<()> {
        for (name, m) in &self.layers {
            let mut sd = StateDict::new();
            for e in entries {
                let key = e["name"].as_str().expect("name");
                if let Some(k) = key.strip_prefix(&format!("{name}.")) {
                    sd.insert(k, tensor(e)?);
                }
            }
            m.load_state_dict(&sd, true)?;
        }
        Ok(())
    }
}

#[test]
fn cnn_with_batchnorm_and_a_residual_add_follows_torch() -> Result<()> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/trajectories/cnn_batchnorm_residual.json"
    );
    let recipe: Json =
        serde_json::from_str(&std::fs::read_to_string(path).expect("recipe")).unwrap();
    let x = tensor(&recipe["data"]["x"])?;
    let y = tensor(&recipe["data"]["y"])?;
    let net = Net::new()?;
    net.load(recipe["init"].as_array().expect("init"))?;
    let options = recipe["config"]["options"]
        .as_object()
        .expect("options")
        .iter()
        .map(|(k, v)| (k.clone(), OptionValue::Float(v.as_f64().expect("number"))))
        .collect();
    let mut opt = catalog::build("SGD", Params::Tensors(net.parameters()), &options)?;
    let mut worst = 0.0f64;
    for (step, want) in recipe["loss"].as_array().expect("loss").iter().enumerate() {
        opt.zero_grad(true)?;
        let logits = net.forward(&x)?;
        let loss = match borch_nn::api::call(
            "cross_entropy",
            vec![Value::Tensor(logits), Value::Tensor(y.clone())],
            vec![],
        )? {
            Value::Tensor(t) => t,
            other => panic!("cross_entropy returned {other:?}"),
        };
        loss.backward()?;
        opt.step()?;
        let (got, want) = (loss.item_blocking()?.to_f64(), want.as_f64().expect("loss"));
        let diff = (got - want).abs() / want.abs().max(1e-12);
        assert!(
            diff <= LOSS_RTOL,
            "step {step}: loss {got} but torch had {want}"
        );
        worst = worst.max(diff);
    }
    let finals = recipe["final"].as_array().expect("final");
    let state = net.state();
    assert_eq!(state.len(), finals.len(), "state_dict entries");
    for ((key, got), want) in state.iter().zip(finals) {
        assert_eq!(
            key,
            want["name"].as_str().expect("name"),
            "state_dict order"
        );
        let want_t = tensor(want)?;
        assert_eq!(got.shape(), want_t.shape(), "{key}");
        let g = got
            .to_dtype(borch_tensor::DType::Float32)?
            .to_vec_blocking::<f32>()?;
        let w = want_t
            .to_dtype(borch_tensor::DType::Float32)?
            .to_vec_blocking::<f32>()?;
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            let (a, b) = (f64::from(*a), f64::from(*b));
            assert!(
                (a - b).abs() <= ATOL + RTOL * b.abs(),
                "final {key}[{i}] is {a} but torch had {b}"
            );
        }
    }
    let adapter = default_device()?.adapter_info().short();
    println!(
        "trajectory cnn_batchnorm_residual: 30 steps agree (max rel diff {worst:.2e}), final parameters and BatchNorm buffers agree [{adapter}]"
    );
    Ok(())
}
