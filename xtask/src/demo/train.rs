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
    pub memory_after_last_epoch: MemoryStats,
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
        let bar = progress_bar(self.epochs * steps_per_epoch);
        let mut report = Report::new(steps_per_epoch);
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
                report.record_step(&bar, loss, t0);
            }
            drop(order);
            report.end_epoch(&bar, epoch, sum / n as f64, device);
        }
        report.finish(&bar, device, d0, s0, t0);
        Ok(report)
    }
}

/// The progress bar of a run of `steps` training steps.
pub fn progress_bar(steps: usize) -> ProgressBar {
    let bar = ProgressBar::new(steps as u64);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:32}] {pos}/{len} steps, eta {eta}, {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

impl Report {
    pub fn new(steps_per_epoch: usize) -> Report {
        Report {
            step_losses: Vec::new(),
            epoch_losses: Vec::new(),
            steps_per_epoch,
            steps: 0,
            seconds: 0.0,
            dispatches: 0,
            submits: 0,
            memory_after_first_epoch: MemoryStats::default(),
            memory_after_last_epoch: MemoryStats::default(),
        }
    }

    /// Records one step's loss and shows it with the mean step time since `t0`.
    pub fn record_step(&mut self, bar: &ProgressBar, loss: f64, t0: Instant) {
        self.step_losses.push(loss);
        let done = self.step_losses.len() as f64;
        bar.set_message(format!(
            "{:.1} ms/step, loss {loss:.4}",
            t0.elapsed().as_secs_f64() * 1e3 / done
        ));
        bar.inc(1);
    }

    /// Records and prints an epoch's mean loss; keeps `memory()` after the first and the last.
    pub fn end_epoch(&mut self, bar: &ProgressBar, epoch: usize, mean: f64, device: &Device) {
        self.epoch_losses.push(mean);
        bar.suspend(|| println!("epoch {epoch:>2}: loss {mean:.4}"));
        if epoch == 1 {
            self.memory_after_first_epoch = device.memory();
        }
        self.memory_after_last_epoch = device.memory();
    }

    /// Closes the bar and fills in the totals since the counters `d0`, `s0` and `t0`.
    pub fn finish(&mut self, bar: &ProgressBar, device: &Device, d0: u64, s0: u64, t0: Instant) {
        bar.finish_and_clear();
        self.steps = self.step_losses.len();
        self.seconds = t0.elapsed().as_secs_f64();
        self.dispatches = device.dispatches() - d0;
        self.submits = device.submits() - s0;
    }
}
