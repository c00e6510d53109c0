//! `cargo xtask train-catalogue [--out catalogue/] [--seed S]`: trains the model catalogue's two
//! entries (borch-vision's `digits_mlp` and `digits_cnn`) with borch on the bundled 8×8 digits
//! (a seeded 1,437 / 360 split), prints progress and held-out accuracy, and writes
//! `<out>/<name>.safetensors` and `<out>/<name>.json` (the manifest: sha256 and size of the
//! weights, two held-out images with the trained model's output, tolerance 1e-4). The files are
//! then checked by borch-vision's own loader before the command succeeds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use borch_autograd::no_grad;
use borch_data::{Dataset, Sample, Subset};
use borch_nn::{Module, serialization};
use borch_optim::{Adam, AdamOptions};
use borch_tensor::{Device, Result, Tensor, manual_seed};
use borch_vision::catalogue::{self, Architecture, Manifest, Provenance, SampleCheck, Weights};
use borch_vision::models::catalog;

use crate::demo::fit_loader::{DigitsSplit, fit, split_digits};
use crate::demo::{loss::accuracy, setup::open_device};

const USAGE: &str = "usage: cargo xtask train-catalogue [--out catalogue/] [--seed S]";
pub const DATA: &str = "data/digits/digits.csv.gz";
pub const HELD_OUT: usize = 360;
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
    let e = |e: borch_tensor::BorchError| e.to_string();
    let digits = split_digits(&root.join(DATA), HELD_OUT, seed, None).map_err(e)?;
    println!(
        "data: {} 8x8 digits (UCI, CC BY 4.0), {} to train on, {} held out (random_split, \
         seed {seed})",
        digits.total,
        digits.train.len(),
        digits.test.len()
    );
    for plan in &PLANS {
        train_one(plan, seed, &digits, &out, &device).map_err(e)?;
    }
    Ok(())
}

/// `x, y` of a collated batch.
pub fn xy(batch: Sample) -> Result<(Tensor, Tensor)> {
    let t = batch.tensors()?;
    Ok((t[0].clone(), t[1].clone()))
}

/// The collated batch of `indices` of `set` (the digits collate on the GPU in one upload).
pub fn batch_of(set: &Subset, indices: &[usize]) -> Result<(Tensor, Tensor)> {
    let batch = set.get_batch(indices).ok_or_else(|| {
        borch_tensor::BorchError::Runtime("the digits subset did not collate a batch".into())
    })??;
    xy(batch)
}

fn train_one(
    plan: &Plan,
    seed: u64,
    digits: &DigitsSplit,
    out: &Path,
    device: &Device,
) -> Result<()> {
    let wall = Instant::now();
    manual_seed(seed);
    let mut model = build(plan.name, plan.kwargs)?;
    let params = model.parameters();
    let numel: usize = params.iter().map(Tensor::numel).sum();
    let mut opt = Adam::new(params, AdamOptions::new(plan.lr))?;
    println!(
        "{}: {numel} parameters; Adam lr {}, batch {}, {} epochs",
        plan.name, plan.lr, plan.batch_size, plan.epochs
    );
    let train = digits.train.clone();
    fit(
        model.as_mut(),
        &mut opt,
        train,
        plan.epochs,
        plan.batch_size,
        device,
    )?;
    let test = &digits.test;
    let held_out = held_out_accuracy(model.as_ref(), test)?;
    println!(
        "{}: held-out accuracy {:.2}% ({} images), {:.1} s",
        plan.name,
        held_out * 100.0,
        test.len(),
        wall.elapsed().as_secs_f64()
    );
    let entry = Entry {
        name: plan.name,
        kwargs: plan.kwargs,
        command: format!("cargo xtask train-catalogue --seed {seed}"),
        data: split_description(seed, digits.train.len(), test.len()),
        notes: format!(
            "Adam lr {}, batch {}, {} epochs, manual_seed({seed}); held-out accuracy {:.2}%",
            plan.lr,
            plan.batch_size,
            plan.epochs,
            held_out * 100.0
        ),
    };
    write_entry(&entry, model.as_ref(), test, out)?;
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

/// The held-out accuracy of `model` (in eval mode) on all of `test`, in one batch.
pub fn held_out_accuracy(model: &dyn Module, test: &Subset) -> Result<f64> {
    let all: Vec<usize> = (0..test.len()).collect();
    no_grad(|| {
        let (x, y) = batch_of(test, &all)?;
        accuracy(&model.forward(&x)?, &y)
    })
}

/// How the digits were split, for a manifest's provenance.
pub fn split_description(seed: u64, train: usize, test: usize) -> String {
    format!(
        "{DATA} (UCI optical recognition of handwritten digits, CC BY 4.0), random_split \
         {train}/{test} with Generator seed {seed}; sample: the first two held-out images"
    )
}

/// A catalogue entry to write: the model's catalog name and keywords, and its provenance.
pub struct Entry<'a> {
    pub name: &'a str,
    pub kwargs: &'a [(&'a str, i64)],
    pub command: String,
    pub data: String,
    pub notes: String,
}

/// Writes `<out>/<name>.safetensors` (the model's state_dict) and `<out>/<name>.json` (its
/// manifest, with the first two images of `test` and the model's eval output on them as the
/// sample), then loads them back through `catalogue::load`, which checks every step.
pub fn write_entry(entry: &Entry, model: &dyn Module, test: &Subset, out: &Path) -> Result<()> {
    let runtime = |e: std::io::Error, p: &Path| {
        borch_tensor::BorchError::Runtime(format!("{}: {e}", p.display()))
    };
    std::fs::create_dir_all(out).map_err(|e| runtime(e, out))?;
    let (sample_x, sample_y) = no_grad(|| -> Result<(Tensor, Tensor)> {
        let (sx, _) = batch_of(test, &[0, 1])?;
        let sy = model.forward(&sx)?;
        Ok((sx, sy))
    })?;
    let file = format!("{}.safetensors", entry.name);
    let path = out.join(&file);
    serialization::save_file(&model.state_dict(), &path, &BTreeMap::new())?;
    let bytes = std::fs::read(&path).map_err(|e| runtime(e, &path))?;
    let manifest = Manifest {
        format: catalogue::FORMAT,
        name: entry.name.to_string(),
        architecture: Architecture {
            name: entry.name.to_string(),
            kwargs: entry
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
            command: entry.command.clone(),
            data: entry.data.clone(),
            notes: entry.notes.clone(),
        },
    };
    let json = out.join(format!("{}.json", entry.name));
    std::fs::write(&json, manifest.to_json()).map_err(|e| runtime(e, &json))?;
    let loaded = catalogue::load(&json)?;
    println!(
        "{}: wrote {} ({} bytes, sha256 {}) and {}; verified by catalogue::load (max sample \
         diff {:.1e})",
        entry.name,
        path.display(),
        bytes.len(),
        manifest.weights.sha256,
        json.display(),
        loaded.max_sample_diff
    );
    Ok(())
}

/// The model catalog's builder with integer keywords (`digits_cnn(num_classes=10)`).
pub fn build(name: &str, kwargs: &[(&str, i64)]) -> Result<Box<dyn Module>> {
    let kwargs = kwargs
        .iter()
        .map(|&(k, v)| (k.to_string(), borch_tensor::api::Value::Int(v)))
        .collect();
    catalog::build_model(name, Vec::new(), kwargs)
}
