//! torch's ConstantLR: scale the learning rate by `factor` until epoch `total_iters`.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, SchedulerBase, initial_step, lrs, scaled_bases, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `ConstantLR(optimizer, factor=1/3, total_iters=5)`.
pub struct ConstantLR {
    base: SchedulerBase,
    /// torch's `factor`: the learning rate's multiplier until `total_iters`.
    pub factor: f64,
    /// torch's `total_iters`: the epochs over which the schedule runs.
    pub total_iters: i64,
}

impl ConstantLR {
    /// Attach to `optimizer` and take the initial step (which scales by `factor`).
    pub fn new(optimizer: &mut dyn Optimizer, factor: f64, total_iters: i64) -> Result<Self> {
        if !(0.0..=1.0).contains(&factor) {
            return Err(BorchError::Value(
                "Constant multiplicative factor expected to be between 0 and 1.".into(),
            ));
        }
        let base = SchedulerBase::attach(optimizer);
        let s = ConstantLR {
            base,
            factor,
            total_iters,
        };
        initial_step(s, optimizer)
    }
}

impl LRScheduler for ConstantLR {
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
            return Ok(current.into_iter().map(|lr| lr * self.factor).collect());
        }
        if epoch != self.total_iters {
            return Ok(current);
        }
        Ok(current
            .into_iter()
            .map(|lr| lr * (1.0 / self.factor))
            .collect())
    }
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        let done = if self.base.last_epoch >= self.total_iters {
            1.0
        } else {
            0.0
        };
        let factor = self.factor + done * (1.0 - self.factor);
        Some(scaled_bases(&self.base, |b| b * factor))
    }
    fn values(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("factor".into(), Value::Float(self.factor)),
            ("total_iters".into(), Value::Int(self.total_iters)),
        ])
    }
    fn load_values(&mut self, values: &BTreeMap<String, Value>) -> Result<()> {
        self.factor = value_f64(values, "factor")?;
        self.total_iters = value_f64(values, "total_iters")? as i64;
        Ok(())
    }
}
