//! torch's MultiStepLR: multiply the learning rate by `gamma` at each milestone epoch.

use std::collections::BTreeMap;

use borch_tensor::Result;

use super::{LRScheduler, SchedulerBase, initial_step, lrs, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `MultiStepLR(optimizer, milestones, gamma=0.1)`; a milestone given twice applies
/// `gamma` twice (torch keeps a `Counter`).
pub struct MultiStepLR {
    base: SchedulerBase,
    pub milestones: BTreeMap<i64, u32>,
    pub gamma: f64,
}

impl MultiStepLR {
    /// Attach to `optimizer` and take the initial step.
    pub fn new(optimizer: &mut dyn Optimizer, milestones: &[i64], gamma: f64) -> Result<Self> {
        let mut counts = BTreeMap::new();
        for m in milestones {
            *counts.entry(*m).or_insert(0) += 1;
        }
        let base = SchedulerBase::attach(optimizer);
        let s = MultiStepLR {
            base,
            milestones: counts,
            gamma,
        };
        initial_step(s, optimizer)
    }
}

impl LRScheduler for MultiStepLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let Some(&count) = self.milestones.get(&self.base.last_epoch) else {
            return Ok(lrs(optimizer));
        };
        let factor = self.gamma.powf(f64::from(count));
        Ok(lrs(optimizer).into_iter().map(|lr| lr * factor).collect())
    }
    fn values(&self) -> BTreeMap<String, Value> {
        let milestones = self
            .milestones
            .iter()
            .flat_map(|(m, c)| std::iter::repeat_n(Value::Int(*m), *c as usize))
            .collect();
        BTreeMap::from([
            ("milestones".into(), Value::List(milestones)),
            ("gamma".into(), Value::Float(self.gamma)),
        ])
    }
    fn load_values(&mut self, values: &BTreeMap<String, Value>) -> Result<()> {
        self.gamma = value_f64(values, "gamma")?;
        if let Some(Value::List(items)) = values.get("milestones") {
            self.milestones.clear();
            for m in items.iter().filter_map(Value::as_f64) {
                *self.milestones.entry(m as i64).or_insert(0) += 1;
            }
        }
        Ok(())
    }
}
