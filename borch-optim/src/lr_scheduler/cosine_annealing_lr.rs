//! torch's CosineAnnealingLR, by torch's recursive formula (not the closed form), so the learning
//! rates match torch's step for step, restarts past `T_max` included.

use std::collections::BTreeMap;
use std::f64::consts::PI;

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, SchedulerBase, initial_step, lrs, scaled_bases, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `CosineAnnealingLR(optimizer, T_max, eta_min=0.0)`.
pub struct CosineAnnealingLR {
    base: SchedulerBase,
    /// torch's `T_max`: the epochs of half a cosine period.
    pub t_max: i64,
    /// torch's `eta_min`: the smallest learning rate.
    pub eta_min: f64,
}

impl CosineAnnealingLR {
    /// Attach to `optimizer` and take the initial step.
    pub fn new(optimizer: &mut dyn Optimizer, t_max: i64, eta_min: f64) -> Result<Self> {
        if t_max == 0 {
            // torch fails at the first step with Python's ZeroDivisionError.
            return Err(BorchError::Value(
                "CosineAnnealingLR's T_max must not be 0".into(),
            ));
        }
        let base = SchedulerBase::attach(optimizer);
        let s = CosineAnnealingLR {
            base,
            t_max,
            eta_min,
        };
        initial_step(s, optimizer)
    }
}

impl LRScheduler for CosineAnnealingLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let current = lrs(optimizer);
        let epoch = self.base.last_epoch;
        let (t_max, eta_min) = (self.t_max as f64, self.eta_min);
        if self.base.is_initial {
            return Ok(current);
        }
        let bases = self.base.base_lrs.iter();
        if self.base.step_count == 1 && epoch > 0 {
            return Ok(bases
                .map(|b| eta_min + (b - eta_min) * (1.0 + (epoch as f64 * PI / t_max).cos()) / 2.0)
                .collect());
        }
        if (epoch - 1 - self.t_max).rem_euclid(2 * self.t_max) == 0 {
            return Ok(current
                .iter()
                .zip(bases)
                .map(|(lr, b)| lr + (b - eta_min) * (1.0 - (PI / t_max).cos()) / 2.0)
                .collect());
        }
        let e = epoch as f64;
        Ok(current
            .into_iter()
            .map(|lr| {
                (1.0 + (PI * e / t_max).cos()) / (1.0 + (PI * (e - 1.0) / t_max).cos())
                    * (lr - eta_min)
                    + eta_min
            })
            .collect())
    }
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        let (t_max, eta_min) = (self.t_max as f64, self.eta_min);
        let e = self.base.last_epoch as f64;
        Some(scaled_bases(&self.base, |b| {
            eta_min + (b - eta_min) * (1.0 + (PI * e / t_max).cos()) / 2.0
        }))
    }
    fn values(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("T_max".into(), Value::Int(self.t_max)),
            ("eta_min".into(), Value::Float(self.eta_min)),
        ])
    }
    fn load_values(&mut self, values: &BTreeMap<String, Value>) -> Result<()> {
        self.t_max = value_f64(values, "T_max")? as i64;
        self.eta_min = value_f64(values, "eta_min")?;
        Ok(())
    }
}
