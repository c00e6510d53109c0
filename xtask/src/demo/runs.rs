//! The demo's two runs. `cnn` (the default): borch-vision's `digits_cnn` (two 3×3 convolutions
//! with BatchNorm, max pool, linear) trained through `DataLoader` over the digits, each training
//! image through a seeded `RandomCrop(8, padding=1)` (one-pixel shifts, drawn from the default
//! generator as torchvision draws them). `mlp`: the MLP written from tensors (mlp.rs).

use std::path::Path;

use borch_autograd::no_grad;
use borch_data::Dataset;
use borch_optim::{Adam, AdamOptions};
use borch_tensor::{Device, Result, Tensor, manual_seed};
use borch_vision::transforms::RandomCrop;

use super::train::{Options, Report, Trainer};
use super::{HELD_OUT, data, fit_loader, loss};
use crate::train_catalogue::{self, Entry};

/// What a run gives the report.
pub struct Outcome {
    /// The model in words, for the log and the plot's title.
    pub model: String,
    pub report: Report,
    pub train_accuracy: f64,
    pub test_accuracy: f64,
    pub test_len: usize,
    pub required: f64,
}

/// The CNN's keywords in the model catalog.
const CNN_KWARGS: &[(&str, i64)] = &[("num_classes", 10)];

/// The CNN run; with `catalogue_out`, the trained model is also written there as a catalogue
/// entry (`digits_cnn.json` + `.safetensors`) and loaded back through the verifying loader.
pub fn cnn(
    o: &Options,
    augment: bool,
    catalogue_out: Option<&Path>,
    root: &Path,
    device: &Device,
) -> Result<Outcome> {
    let crop: Option<Box<dyn borch_vision::transforms::Transform>> = if augment {
        Some(Box::new(RandomCrop::new(&[8]).padding(&[1])))
    } else {
        None
    };
    let digits =
        fit_loader::split_digits(&root.join(train_catalogue::DATA), HELD_OUT, o.seed, crop)?;
    println!(
        "data: {} 8x8 digits (UCI, CC BY 4.0), random_split {} / {} (Generator seed {}); \
         training images through {}",
        digits.total,
        digits.train.len(),
        digits.test.len(),
        o.seed,
        if augment {
            "RandomCrop(8, padding=1)"
        } else {
            "no transform"
        }
    );
    manual_seed(o.seed);
    let mut model = train_catalogue::build("digits_cnn", CNN_KWARGS)?;
    let params = model.parameters();
    let numel: usize = params.iter().map(Tensor::numel).sum();
    let mut opt = Adam::new(params, AdamOptions::new(o.lr))?;
    let described = format!(
        "digits_cnn (Conv-BN-ReLU ×2, MaxPool, Linear), {numel} parameters; Adam lr {}, batch {}, \
         {} epochs",
        o.lr, o.batch_size, o.epochs
    );
    println!("model: {described}");
    let train = digits.train.clone();
    let report = fit_loader::fit(
        model.as_mut(),
        &mut opt,
        train,
        o.epochs,
        o.batch_size,
        device,
    )?;
    let test_accuracy = train_catalogue::held_out_accuracy(model.as_ref(), &digits.test)?;
    let train_accuracy = train_catalogue::held_out_accuracy(model.as_ref(), &digits.train_plain)?;
    let required = 0.98;
    if let Some(out) = catalogue_out.filter(|_| test_accuracy < required) {
        println!(
            "not written to {}: the held-out accuracy is below the required {:.0}%",
            out.display(),
            required * 100.0
        );
    } else if let Some(out) = catalogue_out {
        let entry = Entry {
            name: "digits_cnn",
            kwargs: CNN_KWARGS,
            command: format!(
                "cargo xtask demo --epochs {} --lr {} --batch-size {} --seed {}{} \
                 --catalogue-out <dir>",
                o.epochs,
                o.lr,
                o.batch_size,
                o.seed,
                if augment { "" } else { " --no-augment" }
            ),
            data: train_catalogue::split_description(o.seed, digits.train.len(), digits.test.len()),
            notes: format!(
                "{described}; {}; held-out accuracy {:.2}%",
                if augment {
                    "training images through RandomCrop(8, padding=1)"
                } else {
                    "no augmentation"
                },
                test_accuracy * 100.0
            ),
        };
        train_catalogue::write_entry(&entry, model.as_ref(), &digits.test, out)?;
    }
    Ok(Outcome {
        model: "digits CNN (BatchNorm, RandomCrop)".into(),
        report,
        train_accuracy,
        test_accuracy,
        test_len: digits.test.len(),
        required,
    })
}

/// The MLP run: 64→128→10 (ReLU) from tensors, minibatches by `randperm` + `index_select`.
pub fn mlp(o: &Options, root: &Path, device: &Device) -> Result<Outcome> {
    let runtime = borch_tensor::BorchError::Runtime;
    let digits = data::read(&root.join(train_catalogue::DATA)).map_err(runtime)?;
    let n = digits.labels.len();
    let (train_set, test_set) = data::split(&digits, n.saturating_sub(HELD_OUT), o.seed)?;
    println!(
        "data: {n} 8x8 digits (UCI, CC BY 4.0), {} to train on, {} held out; pixels / 16",
        train_set.len(),
        test_set.len()
    );
    manual_seed(o.seed);
    let mut trainer = Trainer::new(o, &[data::PIXELS, 128, data::CLASSES])?;
    println!(
        "model: MLP 64→128→10 (ReLU), {} parameters; Adam lr {}, batch {}, {} epochs",
        trainer.model.numel(),
        o.lr,
        o.batch_size,
        o.epochs
    );
    let report = trainer.fit(&train_set, device)?;
    let (train_accuracy, test_accuracy) = no_grad(|| -> Result<(f64, f64)> {
        let acc = |s: &data::Split| loss::accuracy(&trainer.model.forward(&s.x)?, &s.y);
        Ok((acc(&train_set)?, acc(&test_set)?))
    })?;
    Ok(Outcome {
        model: "MLP".into(),
        report,
        train_accuracy,
        test_accuracy,
        test_len: test_set.len(),
        required: 0.95,
    })
}
