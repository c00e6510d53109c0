//! torch's StepLR: multiply the learning rate by `gamma` every `step_size` epochs.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, SchedulerBase, initial_step, lrs, scaled_bases, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `StepLR(optimizer, step_size, gamma=0.1)`.
pub struct StepLR {
    base: SchedulerBase,
    /// torch's `step_size`: epochs between two decays.
    pub step_size: i64,
    /// torch's `gamma`: the multiplicative factor of the decay.
    pub gamma: f64,
}

impl StepLR {
    /// Attach to `optimizer` and take the initial step.
    pub fn new(optimizer: &mut dyn Optimizer, step_size: i64, gamma: f64) -> Result<StepLR> {
        if step_size == 0 {
            // torch fails at the first step with Python's ZeroDivisionError.
            return Err(BorchError::Value("StepLR's step_size must not be 0".into()));
        }
        let base = SchedulerBase::attach(optimizer);
        let s = StepLR {
            base,
            step_size,
            gamma,
        };
        initial_step(s, optimizer)
    }
}

impl LRScheduler for StepLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let epoch = self.base.last_epoch;
        if epoch == 0 || epoch.rem_euclid(self.step_size) != 0 {
            return Ok(lrs(optimizer));
        }
        Ok(lrs(optimizer)
            .into_iter()
            .map(|lr| lr * self.gamma)
            .collect())
    }
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        let n = self.base.last_epoch.div_euclid(self.step_size);
        Some(scaled_bases(&self.base, |b| b * self.gamma.powf(n as f64)))
    }
    fn values(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("step_size".into(), Value::Int(self.step_size)),
            ("gamma".into(), Value::Float(self.gamma)),
        ])
    }
    fn load_values(&mut self, values: &BTreeMap<String, Value>) -> Result<()> {
        self.step_size = value_f64(values, "step_size")? as i64;
        self.gamma = value_f64(values, "gamma")?;
        Ok(())
    }
}
