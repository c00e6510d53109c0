//! `cargo xtask demo`: the main job. Trains borch-vision's digits CNN (two 3×3 convolutions with
//! BatchNorm) with Adam on the 8×8 digits bundled in `data/digits/`, through borch-data's
//! `DataLoader` with a seeded `RandomCrop` augmentation, on the default adapter, one memory
//! scope per training step; prints the loss per epoch, the held-out accuracy (≥ 98% or the
//! command fails), the adapter, wall time and the cost of a step, and writes the loss curve to
//! `target/demo/loss.svg`. `--model mlp` trains the earlier MLP (≥ 95%); `--catalogue-out DIR`
//! writes the trained CNN as a model-catalogue entry.

pub mod data;
pub mod fit_loader;
pub mod loss;
pub mod mlp;
mod plot;
mod runs;
pub mod setup;
pub mod train;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::train_catalogue::DATA;
use train::Options;

const USAGE: &str = "usage: cargo xtask demo [--model cnn|mlp] [--epochs N] [--lr LR] \
                     [--batch-size B] [--seed S] [--no-augment] [--catalogue-out DIR]";
/// Images held out of training, as in a 80/20 split of the 1,797 (1,437 train / 360 test).
const HELD_OUT: usize = 360;

/// The command line: the training knobs and the run's choices.
struct Args {
    options: Options,
    mlp: bool,
    augment: bool,
    catalogue_out: Option<PathBuf>,
}

fn parse(args: &[&str]) -> Result<Args, String> {
    let mut o = Options::default();
    let (mut mlp, mut augment, mut catalogue_out, mut epochs) = (false, true, None, None);
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || {
            it.next()
                .copied()
                .ok_or(format!("{arg} needs a value\n{USAGE}"))
        };
        let bad = |what: &str| format!("bad {what}\n{USAGE}");
        match arg {
            "--model" => {
                mlp = match value()? {
                    "cnn" => false,
                    "mlp" => true,
                    _ => return Err(bad("--model (cnn or mlp)")),
                }
            }
            "--no-augment" => augment = false,
            "--catalogue-out" => catalogue_out = Some(PathBuf::from(value()?)),
            "--epochs" => epochs = Some(value()?.parse().map_err(|_| bad("--epochs"))?),
            "--lr" => o.lr = value()?.parse().map_err(|_| bad("--lr"))?,
            "--batch-size" => o.batch_size = value()?.parse().map_err(|_| bad("--batch-size"))?,
            "--seed" => o.seed = value()?.parse().map_err(|_| bad("--seed"))?,
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    // The CNN reaches its accuracy in half the MLP's epochs (docs/demo.md).
    o.epochs = epochs.unwrap_or(if mlp { o.epochs } else { 15 });
    if o.epochs == 0 || o.batch_size == 0 {
        return Err(format!(
            "--epochs and --batch-size must be positive\n{USAGE}"
        ));
    }
    if mlp && (catalogue_out.is_some() || !augment) {
        return Err(format!(
            "--catalogue-out and --no-augment are for the CNN run\n{USAGE}"
        ));
    }
    Ok(Args {
        options: o,
        mlp,
        augment,
        catalogue_out,
    })
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

pub fn run(args: &[&str]) -> Result<(), String> {
    let args = parse(args)?;
    let o = &args.options;
    let wall = Instant::now();
    let device = setup::open_device()?;
    let info = device.adapter_info().clone();
    println!("adapter: {info}");
    let root = repo_root();
    let outcome = if args.mlp {
        runs::mlp(o, &root, &device)
    } else {
        runs::cnn(
            o,
            args.augment,
            args.catalogue_out.as_deref(),
            &root,
            &device,
        )
    }
    .map_err(|e| e.to_string())?;
    let report = &outcome.report;

    let svg = root.join("target/demo/loss.svg");
    let title = format!(
        "borch: {} on the 8x8 digits, Adam lr {} [{}]",
        outcome.model,
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
        outcome.test_accuracy * 100.0,
        outcome.test_len,
        outcome.train_accuracy * 100.0
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
    let (m0, m1) = (
        report.memory_after_first_epoch,
        report.memory_after_last_epoch,
    );
    println!(
        "memory(): {} buffers / {} B live after the first epoch, {} buffers / {} B after the \
         last (parameters, their grads, Adam's state, and BatchNorm's running statistics or \
         the MLP's data); pooled(): {} buffers",
        m0.buffers,
        m0.bytes,
        m1.buffers,
        m1.bytes,
        device.pooled().buffers
    );
    println!("loss curve: {}", svg.display());
    if outcome.test_accuracy < outcome.required {
        return Err(format!(
            "held-out accuracy {:.2}% is below the required {:.0}%",
            outcome.test_accuracy * 100.0,
            outcome.required * 100.0
        ));
    }
    Ok(())
}
