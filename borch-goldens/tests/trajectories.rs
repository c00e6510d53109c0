//! Training trajectories that follow torch step for step (issue 3, part 6): each recipe frozen by
//! tests/trajectories/recipes.py (initial parameters, data, every step's loss, final parameters)
//! is replayed with borch's tensors, autograd and optimizers on the default adapter. The models
//! are written from tensors as torch computes its modules: `nn.Linear` is `addmm(bias, x, W.t())`,
//! dropout is `x * (empty_like(x).bernoulli_(1 - p) / (1 - p))` drawn layer by layer, the losses
//! are torch's formulas. Every step's loss must agree within 1e-4 relative, every learning rate
//! to 1e-12, and the final parameters within 1e-4 relative plus 1e-5 absolute. Each recipe
//! prints `trajectory <name>: <steps> steps agree (max rel diff <x>) [adapter]`.

use borch_autograd::Backward;
use borch_optim::lr_scheduler::{CosineAnnealingLR, LRScheduler, StepLR};
use borch_optim::{Optimizer, Options, Params, Value, catalog};
use borch_tensor::{Result, Tensor, default_device, manual_seed};
use serde_json::Value as Json;

const LOSS_RTOL: f64 = 1e-4;
const PARAM_RTOL: f64 = 1e-4;
const PARAM_ATOL: f64 = 1e-5;

fn load(name: &str) -> Json {
    let path = format!(
        "{}/../tests/trajectories/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (run tests/trajectories/recipes.py)"));
    serde_json::from_str(&text).expect("recipe JSON parses")
}

fn shape(j: &Json) -> Vec<usize> {
    j["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("dim") as usize)
        .collect()
}

fn f64s(j: &Json) -> Vec<f64> {
    j.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

/// A frozen tensor: float32 values or int64 labels.
fn tensor(j: &Json) -> Result<Tensor> {
    let data = j["data"].as_array().expect("data");
    if j["dtype"] == "int64" {
        let v: Vec<i64> = data.iter().map(|x| x.as_i64().expect("int")).collect();
        Tensor::from_slice(&v, &shape(j))
    } else {
        let v: Vec<f32> = data
            .iter()
            .map(|x| x.as_f64().expect("float") as f32)
            .collect();
        Tensor::from_slice(&v, &shape(j))
    }
}

fn cfg(recipe: &Json, key: &str) -> f64 {
    recipe["config"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("config.{key}"))
}

/// torch's `nn.Linear` on a 2-D input: `addmm(bias, x, weight.t())`.
fn linear(x: &Tensor, weight: &Tensor, bias: &Tensor) -> Result<Tensor> {
    bias.addmm(x, &weight.t()?, 1.0, 1.0)
}

/// torch's CPU dropout in training: `noise = empty_like(x).bernoulli_(1 - p); noise /= 1 - p;
/// x * noise`, the mask drawn from the default generator.
fn dropout(x: &Tensor, p: f64) -> Result<Tensor> {
    let noise = x.empty_like()?;
    noise.bernoulli_(1.0 - p, None)?;
    x.mul(&noise.div(1.0 - p)?)
}

/// `MSELoss()`: mean of squared differences.
fn mse(pred: &Tensor, target: &Tensor) -> Result<Tensor> {
    pred.sub(target)?.square()?.mean(None, false)
}

/// `BCEWithLogitsLoss()` computed as torch does, stably: mean of
/// `max(x, 0) - x * y + log1p(exp(-|x|))`.
fn bce_with_logits(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let soft = x.abs()?.neg()?.exp()?.log1p()?;
    x.relu()?.sub(&x.mul(y)?)?.add(&soft)?.mean(None, false)
}

/// `CrossEntropyLoss()`: `nll_loss(log_softmax(logits, 1), y)` with mean reduction.
fn cross_entropy(logits: &Tensor, labels: &Tensor) -> Result<Tensor> {
    let picked = logits.log_softmax(1)?.gather(1, &labels.unsqueeze(1)?)?;
    picked.mean(None, false)?.neg()
}

/// The recipe's model: one Linear, or Linear layers (weight and bias pairs, in torch's order)
/// with ReLU, and dropout after each ReLU when the recipe has one.
fn forward(recipe: &Json, params: &[Tensor], x: &Tensor) -> Result<Tensor> {
    let p = recipe["config"]["dropout"].as_f64();
    let pairs: Vec<&[Tensor]> = params.chunks(2).collect();
    let mut h = x.clone();
    for (i, wb) in pairs.iter().enumerate() {
        h = linear(&h, &wb[0], &wb[1])?;
        if i + 1 < pairs.len() {
            h = h.relu()?;
            if let Some(p) = p {
                h = dropout(&h, p)?;
            }
        }
    }
    Ok(h)
}

fn loss(recipe: &Json, out: &Tensor, y: &Tensor) -> Result<Tensor> {
    match recipe["config"]["loss"].as_str().expect("loss") {
        "mse" => mse(out, y),
        "bce_with_logits" => bce_with_logits(out, y),
        "cross_entropy" => cross_entropy(out, y),
        other => panic!("unknown loss {other}"),
    }
}

/// A JSON value as an optimizer option.
fn option(j: &Json) -> Value {
    match j {
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => Value::Float(n.as_f64().expect("number")),
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(option).collect()),
        _ => Value::None,
    }
}

/// The recipe's optimizer, built through the catalog by torch's name: with `config.options`,
/// or with the entries of `config` that are the optimizer's options (the older recipes).
fn optimizer(recipe: &Json, params: &[Tensor]) -> Result<Box<dyn Optimizer>> {
    let config = &recipe["config"];
    let name = config["optimizer"].as_str().expect("optimizer");
    let entry = catalog::find(name)?;
    let options: Options = match config["options"].as_object() {
        Some(o) => o.iter().map(|(k, v)| (k.clone(), option(v))).collect(),
        None => entry
            .option_specs()
            .iter()
            .filter(|spec| !config[spec.name].is_null())
            .map(|spec| (spec.name.to_string(), option(&config[spec.name])))
            .collect(),
    };
    catalog::build(name, Params::Tensors(params.to_vec()), &options)
}

fn scheduler(recipe: &Json, opt: &mut dyn Optimizer) -> Result<Option<Box<dyn LRScheduler>>> {
    Ok(match recipe["config"]["scheduler"].as_str() {
        None => None,
        Some("CosineAnnealingLR") => Some(Box::new(CosineAnnealingLR::new(
            opt,
            cfg(recipe, "T_max") as i64,
            cfg(recipe, "eta_min"),
        )?)),
        Some("StepLR") => Some(Box::new(StepLR::new(
            opt,
            cfg(recipe, "step_size") as i64,
            cfg(recipe, "gamma"),
        )?)),
        Some(other) => panic!("unknown scheduler {other}"),
    })
}

/// The step's batch: the full data, or the `step % n`-th fixed minibatch.
fn batch(recipe: &Json, x: &Tensor, y: &Tensor, step: usize) -> Result<(Tensor, Tensor)> {
    let Some(size) = recipe["config"]["batch"].as_u64() else {
        return Ok((x.clone(), y.clone()));
    };
    let size = size as usize;
    let start = (step % (x.shape()[0] / size) * size) as isize;
    Ok((x.narrow(0, start, size)?, y.narrow(0, start, size)?))
}

fn rel_diff(got: f64, want: f64) -> f64 {
    if got == want {
        0.0
    } else {
        (got - want).abs() / want.abs()
    }
}

/// Replay one recipe; returns the largest relative loss difference.
fn replay(name: &str) -> Result<f64> {
    let recipe = load(name);
    let steps = recipe["steps"].as_u64().expect("steps") as usize;
    let x = tensor(&recipe["data"]["x"])?;
    let y = tensor(&recipe["data"]["y"])?;
    let init = recipe["init"].as_array().expect("init");
    let params = init.iter().map(tensor).collect::<Result<Vec<_>>>()?;
    for p in &params {
        p.set_requires_grad(true)?;
    }
    let mut opt = optimizer(&recipe, &params)?;
    let mut sched = scheduler(&recipe, &mut *opt)?;
    if let Some(seed) = recipe["config"]["loop_seed"].as_u64() {
        manual_seed(seed);
    }
    let want_loss = f64s(&recipe["loss"]);
    let want_lr = f64s(&recipe["lr"]);
    assert_eq!(want_loss.len(), steps);
    let mut worst = 0.0f64;
    for step in 0..steps {
        let (xb, yb) = batch(&recipe, &x, &y, step)?;
        let lr = opt.lr(0);
        assert!(
            rel_diff(lr, want_lr[step]) <= 1e-12,
            "{name} step {step}: lr {lr} but torch had {}",
            want_lr[step]
        );
        let got = if recipe["config"]["closure"] == true {
            // torch's `opt.step(closure)`: the loss the closure first returned.
            let mut closure = || -> Result<f64> {
                for p in &params {
                    p.set_grad(None);
                }
                let l = loss(&recipe, &forward(&recipe, &params, &xb)?, &yb)?;
                l.backward()?;
                Ok(l.item_blocking()?.to_f64())
            };
            opt.step_with_closure(&mut closure)?
        } else {
            opt.zero_grad(true)?;
            let loss = loss(&recipe, &forward(&recipe, &params, &xb)?, &yb)?;
            loss.backward()?;
            opt.step()?;
            loss.item_blocking()?.to_f64()
        };
        if let Some(s) = sched.as_mut() {
            s.step(&mut *opt)?;
        }
        let diff = rel_diff(got, want_loss[step]);
        assert!(
            diff <= LOSS_RTOL,
            "{name} step {step}: loss {got} but torch had {} (rel diff {diff:.3e})",
            want_loss[step]
        );
        worst = worst.max(diff);
    }
    let mut worst_param = 0.0f64;
    for (p, want) in params
        .iter()
        .zip(recipe["final"].as_array().expect("final"))
    {
        let pname = want["name"].as_str().expect("name");
        assert_eq!(p.shape(), shape(want).as_slice(), "{name} {pname} shape");
        let got = p.to_vec_blocking::<f32>()?;
        for (i, (g, w)) in got.iter().zip(f64s(&want["data"])).enumerate() {
            // torch's values are float32; rounding the parsed decimal to f32 removes
            // serde_json's last-bit parsing error.
            let (g, w) = (f64::from(*g), f64::from(w as f32));
            worst_param = worst_param.max((g - w).abs());
            assert!(
                (g - w).abs() <= PARAM_ATOL + PARAM_RTOL * w.abs(),
                "{name}: final {pname}[{i}] is {g} but torch had {w}"
            );
        }
    }
    let adapter = default_device()?.adapter_info().short();
    println!("trajectory {name}: {steps} steps agree (max rel diff {worst:.2e}) [{adapter}]");
    println!("  {name}: final parameters agree (max abs diff {worst_param:.2e})");
    Ok(worst)
}

#[test]
fn linear_regression() {
    replay("linear_regression").unwrap();
}

#[test]
fn logistic_regression() {
    replay("logistic_regression").unwrap();
}

#[test]
fn mlp_adam_cosine() {
    replay("mlp_adam_cosine").unwrap();
}

#[test]
fn mlp_dropout_adamw() {
    replay("mlp_dropout_adamw").unwrap();
}

#[test]
fn mlp_nadam() {
    replay("mlp_nadam").unwrap();
}

#[test]
fn mlp_radam() {
    replay("mlp_radam").unwrap();
}

#[test]
fn lbfgs_regression() {
    replay("lbfgs_regression").unwrap();
}
