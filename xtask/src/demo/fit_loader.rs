//! Training a model-catalog model on the bundled digits the way a torch user does: borch-vision's
//! `datasets::Digits` (optionally through a transform, e.g. a seeded `RandomCrop`), a seeded
//! `random_split`, borch-data's `DataLoader` reshuffling every epoch, `cross_entropy`, Adam, one
//! memory scope per step. Used by the demo's CNN run and by `cargo xtask train-catalogue`.

use std::path::Path;
use std::rc::Rc;
use std::time::Instant;

use borch_autograd::Backward;
use borch_data::{DataLoader, DataLoaderOptions, Dataset, Subset, random_split};
use borch_nn::functional::cross_entropy;
use borch_nn::{Module, Reduction};
use borch_optim::{Adam, Optimizer};
use borch_tensor::{Device, Generator, Result, scope};
use borch_vision::datasets::{Digits, VisionOptions};
use borch_vision::transforms::Transform;

use super::train::{Report, progress_bar};
use crate::train_catalogue::xy;

/// The digits split into a training and a held-out part.
pub struct DigitsSplit {
    /// The training images, through the training transform when there is one.
    pub train: Rc<Subset>,
    /// The same training images without it (for the training-set accuracy).
    pub train_plain: Rc<Subset>,
    pub test: Rc<Subset>,
    pub total: usize,
}

/// `random_split(Digits(path), [n - held_out, held_out], generator=Generator(seed))`; the
/// training part reads a second `Digits(path, transform=train_transform)` at the same indices
/// (torchvision's way of augmenting only the training split).
pub fn split_digits(
    path: &Path,
    held_out: usize,
    seed: u64,
    train_transform: Option<Box<dyn Transform>>,
) -> Result<DigitsSplit> {
    let bytes = std::fs::read(path)
        .map_err(|e| borch_tensor::BorchError::Runtime(format!("{}: {e}", path.display())))?;
    let what = path.display().to_string();
    let plain: Rc<dyn Dataset> =
        Rc::new(Digits::from_bytes(&bytes, &what, VisionOptions::default())?);
    let total = plain.len();
    let split = random_split(
        plain.clone(),
        &[total.saturating_sub(held_out) as f64, held_out as f64],
        Some(&Generator::with_seed(seed)),
    )?;
    let train_plain = Rc::new(split[0].clone());
    let train = match train_transform {
        None => train_plain.clone(),
        Some(transform) => {
            let options = VisionOptions {
                transform: Some(transform),
                ..VisionOptions::default()
            };
            let augmented: Rc<dyn Dataset> = Rc::new(Digits::from_bytes(&bytes, &what, options)?);
            Rc::new(Subset::new(augmented, train_plain.indices().to_vec()))
        }
    };
    Ok(DigitsSplit {
        train,
        train_plain,
        test: Rc::new(split[1].clone()),
        total,
    })
}

/// Trains `model` for `epochs` passes over a `DataLoader(train, batch_size, shuffle=True)`; each
/// step (zero_grad, forward, cross_entropy, backward, Adam step, loss read back) in one scope.
/// Shows a progress bar and prints the mean loss of every epoch.
pub fn fit(
    model: &mut dyn Module,
    opt: &mut Adam,
    train: Rc<Subset>,
    epochs: usize,
    batch_size: usize,
    device: &Device,
) -> Result<Report> {
    let n = train.len();
    let loader = DataLoader::new(
        train,
        DataLoaderOptions {
            batch_size: Some(batch_size),
            shuffle: Some(true),
            ..DataLoaderOptions::default()
        },
    )?;
    let steps_per_epoch = n.div_ceil(batch_size);
    let bar = progress_bar(epochs * steps_per_epoch);
    let mut report = Report::new(steps_per_epoch);
    model.train(true);
    let (d0, s0, t0) = (device.dispatches(), device.submits(), Instant::now());
    for epoch in 1..=epochs {
        bar.set_prefix(format!("epoch {epoch:>2}/{epochs}"));
        let mut sum = 0.0;
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
            report.record_step(&bar, loss, t0);
        }
        report.end_epoch(&bar, epoch, sum / n as f64, device);
    }
    report.finish(&bar, device, d0, s0, t0);
    model.eval();
    Ok(report)
}
