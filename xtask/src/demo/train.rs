//! The training loop: shuffled minibatches, one memory scope per step (forward, cross-entropy,
//! backward, Adam step, loss read back), a progress bar, the loss per epoch.

use std::time::Instant;

use borch_autograd::Backward;
use borch_device::MemoryStats;
use borch_optim::{Adam, AdamOptions, Optimizer};
use borch_tensor::{Device, Result, Tensor, randperm, scope};
use indicatif::{ProgressBar, ProgressStyle};

use super::data::Split;
use super::loss::cross_entropy;
use super::mlp::Mlp;

/// The demo's knobs.
#[derive(Debug, Clone)]
pub struct Options {
    pub epochs: usize,
    pub lr: f64,
    pub batch_size: usize,
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            epochs: 30,
            lr: 1e-2,
            batch_size: 64,
            seed: 0,
        }
    }
}

/// What a run measured.
pub struct Report {
    pub step_losses: Vec<f64>,
    pub epoch_losses: Vec<f64>,
    pub steps_per_epoch: usize,
    pub steps: usize,
    pub seconds: f64,
    pub dispatches: u64,
    pub submits: u64,
    pub memory_after_first_epoch: MemoryStats,
}

pub struct Trainer {
    pub model: Mlp,
    pub opt: Adam,
    epochs: usize,
    batch_size: usize,
}

impl Trainer {
    /// A fresh model (from the default generator) and its optimizer.
    pub fn new(o: &Options, sizes: &[usize]) -> Result<Trainer> {
        let model = Mlp::new(sizes)?;
        let opt = Adam::new(model.parameters(), AdamOptions::new(o.lr))?;
        Ok(Trainer {
            model,
            opt,
            epochs: o.epochs,
            batch_size: o.batch_size,
        })
    }

    /// One training step on a batch; returns the loss (before the update). Everything the
    /// step makes is released when it ends, except the parameters' grads and Adam's state.
    pub fn step(&mut self, x: &Tensor, y: &Tensor) -> Result<f64> {
        scope(|_| {
            self.opt.zero_grad(true)?;
            let loss = cross_entropy(&self.model.forward(x)?, y)?;
            loss.backward()?;
            self.opt.step()?;
            Ok(loss.item_blocking()?.to_f64())
        })
    }

    /// Train for the configured epochs on `data`, reshuffled every epoch.
    pub fn fit(&mut self, data: &Split, device: &Device) -> Result<Report> {
        let n = data.len();
        let steps_per_epoch = n.div_ceil(self.batch_size);
        let bar = ProgressBar::new((self.epochs * steps_per_epoch) as u64);
        bar.set_style(
            ProgressStyle::with_template("{prefix} [{bar:32}] {pos}/{len} steps, eta {eta}, {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        let mut report = Report {
            step_losses: Vec::new(),
            epoch_losses: Vec::new(),
            steps_per_epoch,
            steps: 0,
            seconds: 0.0,
            dispatches: 0,
            submits: 0,
            memory_after_first_epoch: MemoryStats::default(),
        };
        let (d0, s0, t0) = (device.dispatches(), device.submits(), Instant::now());
        for epoch in 1..=self.epochs {
            bar.set_prefix(format!("epoch {epoch:>2}/{}", self.epochs));
            let order = randperm(n, None)?;
            let mut sum = 0.0;
            for b in 0..steps_per_epoch {
                let start = b * self.batch_size;
                let len = self.batch_size.min(n - start);
                let loss = scope(|_| {
                    let idx = order.narrow(0, start as isize, len)?;
                    let x = data.x.index_select(0, &idx)?;
                    let y = data.y.index_select(0, &idx)?;
                    self.step(&x, &y)
                })?;
                sum += loss * len as f64;
                report.step_losses.push(loss);
                let done = report.step_losses.len() as f64;
                bar.set_message(format!(
                    "{:.1} ms/step, loss {loss:.4}",
                    t0.elapsed().as_secs_f64() * 1e3 / done
                ));
                bar.inc(1);
            }
            drop(order);
            let mean = sum / n as f64;
            report.epoch_losses.push(mean);
            bar.suspend(|| println!("epoch {epoch:>2}: loss {mean:.4}"));
            if epoch == 1 {
                report.memory_after_first_epoch = device.memory();
            }
        }
        bar.finish_and_clear();
        report.steps = report.step_losses.len();
        report.seconds = t0.elapsed().as_secs_f64();
        report.dispatches = device.dispatches() - d0;
        report.submits = device.submits() - s0;
        Ok(report)
    }
}
