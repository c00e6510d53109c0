//! torch's ExponentialLR: multiply the learning rate by `gamma` every epoch.

use std::collections::BTreeMap;

use borch_tensor::Result;

use super::{LRScheduler, SchedulerBase, initial_step, lrs, scaled_bases, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `ExponentialLR(optimizer, gamma)`.
pub struct ExponentialLR {
    base: SchedulerBase,
    /// torch's `gamma`: the multiplicative factor of the decay.
    pub gamma: f64,
}

impl ExponentialLR {
    /// Attach to `optimizer` and take the initial step.
    pub fn new(optimizer: &mut dyn Optimizer, gamma: f64) -> Result<ExponentialLR> {
        let base = SchedulerBase::attach(optimizer);
        initial_step(ExponentialLR { base, gamma }, optimizer)
    }
}

impl LRScheduler for ExponentialLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>> {
        if self.base.is_initial {
            return Ok(lrs(optimizer));
        }
        Ok(lrs(optimizer)
            .into_iter()
            .map(|lr| lr * self.gamma)
            .collect())
    }
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        let e = self.base.last_epoch as f64;
        Some(scaled_bases(&self.base, |b| b * self.gamma.powf(e)))
    }
    fn values(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([("gamma".into(), Value::Float(self.gamma))])
    }
    fn load_values(&mut self, values: &BTreeMap<String, Value>) -> Result<()> {
        self.gamma = value_f64(values, "gamma")?;
        Ok(())
    }
}
