//! borch's CIFAR ResNet-18 (with BatchNorm) trained 20 steps with SGD momentum + weight decay in
//! train mode, step for step against torch (tests/trajectories/cifar_resnet18.py →
//! cifar_resnet18_w<width>.json): the model built through the catalog after `manual_seed(0)`
//! (torch's init bit for bit, tests/init.rs), the data drawn by `randn` after `manual_seed(1)`
//! (torch's values), then per step the loss and every parameter's gradient norm, and at the end
//! each BatchNorm's running_mean / running_var norms and num_batches_tracked, every parameter's
//! norm and the eval-mode logits, each within the recipe's relative tolerance.
//!
//! Width 8 runs in CI; width 64 (the benchmarks' network) is `#[ignore]`d:
//! `cargo test -p borch-vision --test trajectory -- --ignored --nocapture`.

use std::time::Instant;

use borch_autograd::Backward;
use borch_nn::functional::cross_entropy;
use borch_nn::{BatchNorm2d, Reduction};
use borch_optim::{Params, Value as OptionValue, catalog};
use borch_tensor::api::Value;
use borch_tensor::{DType, Result, Tensor, default_device, manual_seed, randn, stack};
use borch_vision::models::catalog::build_model;
use serde_json::Value as Json;

fn recipe(width: usize) -> Json {
    let path = format!(
        "{}/../tests/trajectories/cifar_resnet18_w{width}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).expect("recipe")).expect("json")
}

fn floats(j: &Json) -> Vec<f64> {
    j.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

/// The worst relative difference of each quantity, and where the first one past `tol` was.
#[derive(Default)]
struct Judge {
    tol: f64,
    worst: Vec<(&'static str, f64)>,
    failures: Vec<String>,
}

impl Judge {
    fn check(&mut self, what: &'static str, at: &str, got: f64, want: f64) {
        let rel = (got - want).abs() / want.abs().max(1e-30);
        match self.worst.iter_mut().find(|(w, _)| *w == what) {
            Some((_, worst)) => *worst = worst.max(rel),
            None => self.worst.push((what, rel)),
        }
        if rel > self.tol || rel.is_nan() {
            self.failures.push(format!(
                "{what} {at}: borch {got}, torch {want} (rel diff {rel:.2e})"
            ));
        }
    }

    fn summary(&self) -> String {
        let parts: Vec<String> = self
            .worst
            .iter()
            .map(|(w, d)| format!("{w} {d:.2e}"))
            .collect();
        parts.join(", ")
    }
}

/// The 2-norm of every tensor, read back in one submit.
fn norms(ts: &[Tensor]) -> Result<Vec<f64>> {
    let n: Vec<Tensor> = ts
        .iter()
        .map(|t| t.to_dtype(DType::Float32)?.norm(2.0, None, false))
        .collect::<Result<_>>()?;
    Ok(stack(&n, 0)?
        .to_vec_blocking::<f32>()?
        .into_iter()
        .map(f64::from)
        .collect())
}

fn run(width: usize) -> Result<()> {
    let r = recipe(width);
    let c = &r["config"];
    let n = c["n"].as_u64().expect("n") as usize;
    let mut judge = Judge {
        tol: 1e-4,
        ..Judge::default()
    };
    manual_seed(c["init_seed"].as_u64().expect("seed"));
    let kwargs = vec![
        (
            "num_classes".into(),
            Value::Int(c["num_classes"].as_i64().unwrap()),
        ),
        ("width".into(), Value::Int(width as i64)),
    ];
    let mut model = build_model("cifar_resnet18", vec![], kwargs)?;
    manual_seed(c["data_seed"].as_u64().expect("seed"));
    let x = randn(&[n, 3, 32, 32], None)?;
    let xs = x.to_vec_blocking::<f32>()?;
    let first = floats(&r["x_check"]["first"]);
    assert!(
        xs.iter().zip(&first).all(|(a, b)| *a == *b as f32),
        "randn after manual_seed is not torch's: {:?} vs {first:?}",
        &xs[..4]
    );
    let labels: Vec<i64> = (0..n as i64).map(|i| i % 10).collect();
    let y = Tensor::from_slice(&labels, &[n])?;
    let names: Vec<String> = model
        .named_parameters()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let want_names: Vec<String> = r["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, want_names, "parameter names");
    let options = c["options"]
        .as_object()
        .expect("options")
        .iter()
        .map(|(k, v)| (k.clone(), OptionValue::Float(v.as_f64().expect("number"))))
        .collect();
    let params = model.parameters();
    let mut opt = catalog::build("SGD", Params::Tensors(params.clone()), &options)?;
    model.train(true);
    let start = Instant::now();
    let losses = floats(&r["loss"]);
    for (step, want_loss) in losses.iter().enumerate() {
        opt.zero_grad(true)?;
        let logits = model.forward(&x)?;
        let loss = cross_entropy(&logits, &y, None, -100, Reduction::Mean, 0.0)?;
        loss.backward()?;
        let at = format!("step {step}");
        judge.check("loss", &at, loss.item_blocking()?.to_f64(), *want_loss);
        let grads: Vec<Tensor> = params.iter().map(|p| p.grad().expect("grad")).collect();
        let want = floats(&r["grad_norms"][step]);
        for ((g, w), name) in norms(&grads)?.iter().zip(&want).zip(&names) {
            judge.check("grad norm", &format!("{at} {name}"), *g, *w);
        }
        opt.step()?;
    }
    let train_s = start.elapsed().as_secs_f64();
    let bns: Vec<&Json> = r["batchnorm"].as_array().unwrap().iter().collect();
    let mut stats = Vec::new();
    let mut tracked = Vec::new();
    for (name, m) in model.named_modules() {
        if let Some(bn) = m.as_any().downcast_ref::<BatchNorm2d>() {
            stats.push(bn.running_mean().unwrap().clone());
            stats.push(bn.running_var().unwrap().clone());
            let t = bn.num_batches_tracked().unwrap().to_vec_blocking::<i64>()?[0];
            tracked.push((name, t));
        }
    }
    assert_eq!(tracked.len(), bns.len(), "BatchNorm layers");
    let stat_norms = norms(&stats)?;
    for (i, ((name, t), want)) in tracked.iter().zip(&bns).enumerate() {
        assert_eq!(name, want["name"].as_str().unwrap(), "BatchNorm order");
        assert_eq!(*t, want["num_batches_tracked"].as_i64().unwrap(), "{name}");
        let rm = want["running_mean"].as_f64().unwrap();
        let rv = want["running_var"].as_f64().unwrap();
        judge.check("running_mean norm", name, stat_norms[2 * i], rm);
        judge.check("running_var norm", name, stat_norms[2 * i + 1], rv);
    }
    let param_norms = norms(&params)?;
    for ((got, want), name) in param_norms
        .iter()
        .zip(floats(&r["param_norms"]))
        .zip(&names)
    {
        judge.check("final parameter norm", name, *got, want);
    }
    model.eval();
    let logits = borch_autograd::no_grad(|| model.forward(&x))?.to_vec_blocking::<f32>()?;
    let want_logits = floats(&r["eval_logits"]);
    assert_eq!(logits.len(), want_logits.len(), "eval logits");
    for (i, (g, w)) in logits.iter().zip(&want_logits).enumerate() {
        judge.check("eval logit", &format!("[{i}]"), f64::from(*g), *w);
    }
    let adapter = default_device()?.adapter_info().short();
    println!(
        "trajectory cifar_resnet18_w{width}: {} steps, max rel diff {} ({:.1} s/step) [{adapter}]",
        losses.len(),
        judge.summary(),
        train_s / losses.len() as f64
    );
    assert!(
        judge.failures.is_empty(),
        "{} values outside {:.0e} (first 10):\n{}",
        judge.failures.len(),
        judge.tol,
        judge.failures[..judge.failures.len().min(10)].join("\n")
    );
    Ok(())
}

#[test]
fn cifar_resnet18_width_8_follows_torch() -> Result<()> {
    run(8)
}

/// The full-width network (11.2M parameters): minutes on a software adapter.
#[test]
#[ignore]
fn cifar_resnet18_width_64_follows_torch() -> Result<()> {
    run(64)
}
