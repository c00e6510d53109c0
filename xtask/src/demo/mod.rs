//! `cargo xtask demo`: the main job. Trains an MLP (64→128→10, ReLU) with Adam on the 8×8
//! digits bundled in `data/digits/`, on the default adapter, one memory scope per training
//! step; prints the loss per epoch, the held-out accuracy (≥ 95% or the command fails), the
//! adapter, wall time and the cost of a step, and writes the loss curve to
//! `target/demo/loss.svg`.

pub mod data;
pub mod loss;
pub mod mlp;
mod plot;
pub mod setup;
pub mod train;

use std::path::{Path, PathBuf};
use std::time::Instant;

use borch_autograd::no_grad;
use borch_tensor::manual_seed;

use train::{Options, Trainer};

const USAGE: &str = "usage: cargo xtask demo [--epochs N] [--lr LR] [--batch-size B] [--seed S]";
/// Images held out of training, as in a 80/20 split of the 1,797 (1,437 train / 360 test).
const HELD_OUT: usize = 360;
/// The held-out accuracy the demo must reach.
const REQUIRED_ACCURACY: f64 = 0.95;

fn parse(args: &[&str]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || {
            it.next()
                .copied()
                .ok_or(format!("{arg} needs a value\n{USAGE}"))
        };
        let bad = |what: &str| format!("bad {what}\n{USAGE}");
        match arg {
            "--epochs" => o.epochs = value()?.parse().map_err(|_| bad("--epochs"))?,
            "--lr" => o.lr = value()?.parse().map_err(|_| bad("--lr"))?,
            "--batch-size" => o.batch_size = value()?.parse().map_err(|_| bad("--batch-size"))?,
            "--seed" => o.seed = value()?.parse().map_err(|_| bad("--seed"))?,
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    if o.epochs == 0 || o.batch_size == 0 {
        return Err(format!(
            "--epochs and --batch-size must be positive\n{USAGE}"
        ));
    }
    Ok(o)
}

/// The checkout this xtask was built from, or the current directory when that is gone (a
/// binary carried to another machine and run from a copy of the repo).
pub fn repo_root() -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    if built.join(DATA).exists() {
        built
    } else {
        PathBuf::from(".")
    }
}

const DATA: &str = "data/digits/digits.csv.gz";

pub fn run(args: &[&str]) -> Result<(), String> {
    let o = parse(args)?;
    let wall = Instant::now();
    let device = setup::open_device()?;
    let info = device.adapter_info().clone();
    println!("adapter: {info}");
    let e = |e: borch_tensor::BorchError| e.to_string();

    let root = repo_root();
    let digits = data::read(&root.join(DATA))?;
    let n = digits.labels.len();
    let (train_set, test_set) =
        data::split(&digits, n.saturating_sub(HELD_OUT), o.seed).map_err(e)?;
    println!(
        "data: {n} 8x8 digits (UCI, CC BY 4.0), {} to train on, {} held out; pixels / 16",
        train_set.len(),
        test_set.len()
    );

    manual_seed(o.seed);
    let mut trainer = Trainer::new(&o, &[data::PIXELS, 128, data::CLASSES]).map_err(e)?;
    println!(
        "model: MLP 64→128→10 (ReLU), {} parameters; Adam lr {}, batch {}, {} epochs",
        trainer.model.numel(),
        o.lr,
        o.batch_size,
        o.epochs
    );
    let report = trainer.fit(&train_set, &device).map_err(e)?;

    let (train_acc, test_acc) = no_grad(|| -> borch_tensor::Result<(f64, f64)> {
        let acc = |s: &data::Split| loss::accuracy(&trainer.model.forward(&s.x)?, &s.y);
        Ok((acc(&train_set)?, acc(&test_set)?))
    })
    .map_err(e)?;

    let svg = root.join("target/demo/loss.svg");
    let title = format!(
        "borch: MLP on the 8x8 digits, Adam lr {} [{}]",
        o.lr,
        info.short()
    );
    plot::loss_curve(
        &svg,
        &title,
        &report.step_losses,
        &report.epoch_losses,
        report.steps_per_epoch,
    )?;

    let steps = report.steps as f64;
    println!(
        "accuracy: {:.2}% held out ({} images), {:.2}% on the training set",
        test_acc * 100.0,
        test_set.len(),
        train_acc * 100.0
    );
    println!("adapter: {info}");
    println!(
        "time: {:.1} s wall in all, {:.1} s training ({:.2} ms/step over {} steps); \
         per step {:.1} dispatches, {:.2} submits [{}]",
        wall.elapsed().as_secs_f64(),
        report.seconds,
        report.seconds * 1e3 / steps,
        report.steps,
        report.dispatches as f64 / steps,
        report.submits as f64 / steps,
        info.short()
    );
    let (m0, m1) = (report.memory_after_first_epoch, device.memory());
    println!(
        "memory(): {} buffers / {} B live after the first epoch, {} buffers / {} B after the \
         last (parameters, their grads, Adam state, data, index-error flag); pooled(): {} buffers",
        m0.buffers,
        m0.bytes,
        m1.buffers,
        m1.bytes,
        device.pooled().buffers
    );
    println!("loss curve: {}", svg.display());
    if test_acc < REQUIRED_ACCURACY {
        return Err(format!(
            "held-out accuracy {:.2}% is below the required {:.0}%",
            test_acc * 100.0,
            REQUIRED_ACCURACY * 100.0
        ));
    }
    Ok(())
}
