//! torch's LinearLR: scale the learning rate linearly from `start_factor` to `end_factor` over
//! `total_iters` epochs, by torch's recursive formula.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, SchedulerBase, initial_step, lrs, scaled_bases, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `LinearLR(optimizer, start_factor=1/3, end_factor=1.0, total_iters=5)`.
pub struct LinearLR {
    base: SchedulerBase,
    /// torch's `start_factor`: the factor at epoch 0.
    pub start_factor: f64,
    /// torch's `end_factor`: the factor from `total_iters` on.
    pub end_factor: f64,
    /// torch's `total_iters`: the epochs over which the schedule runs.
    pub total_iters: i64,
}

impl LinearLR {
    /// Attach to `optimizer` and take the initial step (which scales by `start_factor`).
    pub fn new(
        optimizer: &mut dyn Optimizer,
        start_factor: f64,
        end_factor: f64,
        total_iters: i64,
    ) -> Result<LinearLR> {
        if start_factor > 1.0 || start_factor <= 0.0 {
            return Err(BorchError::Value(
                "Starting multiplicative factor expected to be greater than 0 and less or equal \
                 to 1."
                    .into(),
            ));
        }
        if !(0.0..=1.0).contains(&end_factor) {
            return Err(BorchError::Value(
                "Ending multiplicative factor expected to be between 0 and 1.".into(),
            ));
        }
        let base = SchedulerBase::attach(optimizer);
        let s = LinearLR {
            base,
            start_factor,
            end_factor,
            total_iters,
        };
        initial_step(s, optimizer)
    }
}

impl LRScheduler for LinearLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let epoch = self.base.last_epoch;
        let current = lrs(optimizer);
        if epoch == 0 {
            return Ok(current
                .into_iter()
                .map(|lr| lr * self.start_factor)
                .collect());
        }
        if self.base.is_initial || epoch > self.total_iters {
            return Ok(current);
        }
        let (s, e) = (self.start_factor, self.end_factor);
        let factor = 1.0 + (e - s) / (self.total_iters as f64 * s + (epoch - 1) as f64 * (e - s));
        Ok(current.into_iter().map(|lr| lr * factor).collect())
    }
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        let (s, e) = (self.start_factor, self.end_factor);
        let done = self.total_iters.min(self.base.last_epoch) as f64;
        let factor = s + (e - s) * done / self.total_iters as f64;
        Some(scaled_bases(&self.base, |b| b * factor))
    }
    fn values(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("start_factor".into(), Value::Float(self.start_factor)),
            ("end_factor".into(), Value::Float(self.end_factor)),
            ("total_iters".into(), Value::Int(self.total_iters)),
        ])
    }
    fn load_values(&mut self, values: &BTreeMap<String, Value>) -> Result<()> {
        self.start_factor = value_f64(values, "start_factor")?;
        self.end_factor = value_f64(values, "end_factor")?;
        self.total_iters = value_f64(values, "total_iters")? as i64;
        Ok(())
    }
}
