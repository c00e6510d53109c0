//! torch's MultiStepLR: multiply the learning rate by `gamma` at each milestone epoch.

use std::collections::BTreeMap;

use borch_tensor::Result;

use super::{LRScheduler, SchedulerBase, initial_step, lrs, scaled_bases, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `MultiStepLR(optimizer, milestones, gamma=0.1)`; a milestone given twice applies
/// `gamma` twice (torch keeps a `Counter`).
pub struct MultiStepLR {
    base: SchedulerBase,
    /// torch's `milestones`: each epoch with the number of times it was given.
    pub milestones: BTreeMap<i64, u32>,
    /// torch's `gamma`: the multiplicative factor of the decay.
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
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        let epoch = self.base.last_epoch;
        let passed: u32 = self.milestones.range(..=epoch).map(|(_, c)| c).sum();
        Some(scaled_bases(&self.base, |b| {
            b * self.gamma.powf(f64::from(passed))
        }))
    }
    fn values(&self) -> BTreeMap<String, Value> {
        // torch keeps a Counter: {milestone: count}.
        let milestones = self
            .milestones
            .iter()
            .map(|(m, c)| (m.to_string(), Value::Int(i64::from(*c))))
            .collect();
        BTreeMap::from([
            ("milestones".into(), Value::Dict(milestones)),
            ("gamma".into(), Value::Float(self.gamma)),
        ])
    }
    fn load_values(&mut self, values: &BTreeMap<String, Value>) -> Result<()> {
        self.gamma = value_f64(values, "gamma")?;
        match values.get("milestones") {
            Some(Value::List(items)) => {
                self.milestones.clear();
                for m in items.iter().filter_map(Value::as_f64) {
                    *self.milestones.entry(m as i64).or_insert(0) += 1;
                }
            }
            Some(Value::Dict(counts)) => {
                self.milestones.clear();
                for (m, c) in counts {
                    let m = m.parse::<i64>().map_err(|_| {
                        borch_tensor::BorchError::Type("milestones must be epochs".into())
                    })?;
                    self.milestones.insert(m, c.as_f64().unwrap_or(1.0) as u32);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
