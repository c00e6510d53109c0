//! `cargo xtask train-catalogue [--out catalogue/] [--seed S]`: trains the model catalogue's two
//! entries (borch-vision's `digits_mlp` and `digits_cnn`) with borch on the bundled 8×8 digits
//! (a seeded 1,437 / 360 split), prints progress and held-out accuracy, and writes
//! `<out>/<name>.safetensors` and `<out>/<name>.json` (the manifest: sha256 and size of the
//! weights, two held-out images with the trained model's output, tolerance 1e-4). The files are
//! then checked by borch-vision's own loader before the command succeeds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use borch_autograd::{Backward, no_grad};
use borch_data::{DataLoader, DataLoaderOptions, Dataset, Sample, Subset, random_split};
use borch_nn::functional::cross_entropy;
use borch_nn::{Reduction, serialization};
use borch_optim::{Adam, AdamOptions, Optimizer};
use borch_tensor::{Generator, Result, Tensor, manual_seed, scope};
use borch_vision::catalogue::{self, Architecture, Manifest, Provenance, SampleCheck, Weights};
use borch_vision::datasets::{Digits, VisionOptions};
use borch_vision::models::catalog;

use crate::demo::{loss::accuracy, setup::open_device};

const USAGE: &str = "usage: cargo xtask train-catalogue [--out catalogue/] [--seed S]";
const DATA: &str = "data/digits/digits.csv.gz";
const HELD_OUT: usize = 360;
const TOLERANCE: f64 = 1e-4;

/// One entry to train.
struct Plan {
    name: &'static str,
    kwargs: &'static [(&'static str, i64)],
    epochs: usize,
    lr: f64,
    batch_size: usize,
    required: f64,
}

const PLANS: [Plan; 2] = [
    Plan {
        name: "digits_mlp",
        kwargs: &[("hidden", 64), ("num_classes", 10)],
        epochs: 30,
        lr: 1e-2,
        batch_size: 64,
        required: 0.95,
    },
    Plan {
        name: "digits_cnn",
        kwargs: &[("num_classes", 10)],
        epochs: 15,
        lr: 1e-2,
        batch_size: 64,
        required: 0.97,
    },
];

pub fn run(args: &[&str]) -> std::result::Result<(), String> {
    let root = crate::demo::repo_root();
    let (mut out, mut seed) = (root.join("catalogue"), 0u64);
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let value = it.next().ok_or(format!("{arg} needs a value\n{USAGE}"));
        match arg {
            "--out" => out = PathBuf::from(value?),
            "--seed" => seed = value?.parse().map_err(|_| format!("bad --seed\n{USAGE}"))?,
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    let device = open_device()?;
    println!("adapter: {}", device.adapter_info());
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let e = |e: borch_tensor::BorchError| e.to_string();
    let digits: Rc<dyn Dataset> =
        Rc::new(Digits::new(root.join(DATA), VisionOptions::default()).map_err(e)?);
    let n = digits.len();
    let split = random_split(
        digits,
        &[(n - HELD_OUT) as f64, HELD_OUT as f64],
        Some(&Generator::with_seed(seed)),
    )
    .map_err(e)?;
    let (train, test) = (Rc::new(split[0].clone()), Rc::new(split[1].clone()));
    println!(
        "data: {n} 8x8 digits (UCI, CC BY 4.0), {} to train on, {} held out (random_split, \
         seed {seed})",
        train.len(),
        test.len()
    );
    for plan in &PLANS {
        train_one(plan, seed, &train, &test, &out).map_err(e)?;
    }
    Ok(())
}

/// `x, y` of a collated batch.
fn xy(batch: Sample) -> Result<(Tensor, Tensor)> {
    let t = batch.tensors()?;
    Ok((t[0].clone(), t[1].clone()))
}

/// The collated batch of `indices` of `set` (the digits collate on the GPU in one upload).
fn batch_of(set: &Subset, indices: &[usize]) -> Result<(Tensor, Tensor)> {
    let batch = set.get_batch(indices).ok_or_else(|| {
        borch_tensor::BorchError::Runtime("the digits subset did not collate a batch".into())
    })??;
    xy(batch)
}

fn train_one(
    plan: &Plan,
    seed: u64,
    train: &Rc<Subset>,
    test: &Rc<Subset>,
    out: &Path,
) -> Result<()> {
    let wall = Instant::now();
    manual_seed(seed);
    let kwargs: Vec<(String, borch_tensor::api::Value)> = plan
        .kwargs
        .iter()
        .map(|&(k, v)| (k.to_string(), borch_tensor::api::Value::Int(v)))
        .collect();
    let mut model = catalog::build_model(plan.name, Vec::new(), kwargs)?;
    let params = model.parameters();
    let numel: usize = params.iter().map(Tensor::numel).sum();
    let mut opt = Adam::new(params, AdamOptions::new(plan.lr))?;
    println!(
        "{}: {numel} parameters; Adam lr {}, batch {}, {} epochs",
        plan.name, plan.lr, plan.batch_size, plan.epochs
    );
    let loader = DataLoader::new(
        train.clone(),
        DataLoaderOptions {
            batch_size: Some(plan.batch_size),
            shuffle: Some(true),
            ..DataLoaderOptions::default()
        },
    )?;
    model.train(true);
    for epoch in 1..=plan.epochs {
        let (mut sum, mut count) = (0.0, 0usize);
        for batch in loader.iter()? {
            let (x, y) = xy(batch?)?;
            let loss = scope(|_| {
                opt.zero_grad(true)?;
                let loss =
                    cross_entropy(&model.forward(&x)?, &y, None, -100, Reduction::Mean, 0.0)?;
                loss.backward()?;
                opt.step()?;
                Ok(loss.item_blocking()?.to_f64())
            })?;
            sum += loss * y.numel() as f64;
            count += y.numel();
        }
        if epoch == 1 || epoch % 5 == 0 || epoch == plan.epochs {
            println!(
                "  epoch {epoch:>2}/{}: loss {:.4} ({:.1} s)",
                plan.epochs,
                sum / count as f64,
                wall.elapsed().as_secs_f64()
            );
        }
    }
    model.eval();
    let all: Vec<usize> = (0..test.len()).collect();
    let (held_out, sample_x, sample_y) = no_grad(|| -> Result<(f64, Tensor, Tensor)> {
        let (x, y) = batch_of(test, &all)?;
        let acc = accuracy(&model.forward(&x)?, &y)?;
        let (sx, _) = batch_of(test, &[0, 1])?;
        let sy = model.forward(&sx)?;
        Ok((acc, sx, sy))
    })?;
    println!(
        "{}: held-out accuracy {:.2}% ({} images), {:.1} s",
        plan.name,
        held_out * 100.0,
        test.len(),
        wall.elapsed().as_secs_f64()
    );
    let file = format!("{}.safetensors", plan.name);
    let path = out.join(&file);
    serialization::save_file(&model.state_dict(), &path, &BTreeMap::new())?;
    let bytes = std::fs::read(&path)
        .map_err(|e| borch_tensor::BorchError::Runtime(format!("{}: {e}", path.display())))?;
    let manifest = Manifest {
        format: catalogue::FORMAT,
        name: plan.name.to_string(),
        architecture: Architecture {
            name: plan.name.to_string(),
            kwargs: plan
                .kwargs
                .iter()
                .map(|&(k, v)| (k.to_string(), v.into()))
                .collect(),
        },
        weights: Weights {
            file,
            sha256: catalogue::sha256_hex(&bytes),
            bytes: bytes.len() as u64,
        },
        sample: SampleCheck {
            input_shape: sample_x.shape().to_vec(),
            input: sample_x.to_vec_blocking::<f32>()?,
            output_shape: sample_y.shape().to_vec(),
            expected_output: sample_y.to_vec_blocking::<f32>()?,
            tolerance: TOLERANCE,
        },
        licence: "MIT OR Apache-2.0".into(),
        provenance: Provenance {
            command: format!("cargo xtask train-catalogue --seed {seed}"),
            data: format!(
                "{DATA} (UCI optical recognition of handwritten digits, CC BY 4.0), \
                 random_split {}/{} with Generator seed {seed}; sample: the first two held-out \
                 images",
                train.len(),
                test.len()
            ),
            notes: format!(
                "Adam lr {}, batch {}, {} epochs, manual_seed({seed}); held-out accuracy {:.2}%",
                plan.lr,
                plan.batch_size,
                plan.epochs,
                held_out * 100.0
            ),
        },
    };
    let json = out.join(format!("{}.json", plan.name));
    std::fs::write(&json, manifest.to_json())
        .map_err(|e| borch_tensor::BorchError::Runtime(format!("{}: {e}", json.display())))?;
    let loaded = catalogue::load(&json)?;
    println!(
        "{}: wrote {} ({} bytes, sha256 {}) and {}; verified by catalogue::load (max sample \
         diff {:.1e})",
        plan.name,
        path.display(),
        bytes.len(),
        manifest.weights.sha256,
        json.display(),
        loaded.max_sample_diff
    );
    if held_out < plan.required {
        return Err(borch_tensor::BorchError::Runtime(format!(
            "{}: held-out accuracy {:.2}% is below the required {:.0}%",
            plan.name,
            held_out * 100.0,
            plan.required * 100.0
        )));
    }
    Ok(())
}
