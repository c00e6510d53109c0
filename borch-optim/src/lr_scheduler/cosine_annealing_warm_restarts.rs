//! torch's CosineAnnealingWarmRestarts (SGDR): cosine annealing restarted every `T_i` epochs,
//! `T_i` growing by `T_mult` at each restart.

use std::collections::BTreeMap;
use std::f64::consts::PI;

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, SchedulerBase, initial_step, lrs, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `CosineAnnealingWarmRestarts(optimizer, T_0, T_mult=1, eta_min=0.0)`.
pub struct CosineAnnealingWarmRestarts {
    base: SchedulerBase,
    /// torch's `T_0`: the epochs until the first restart.
    pub t_0: i64,
    /// torch's `T_i`: the length of the current cycle.
    pub t_i: i64,
    /// torch's `T_mult`: how much longer each cycle is than the last.
    pub t_mult: i64,
    /// torch's `eta_min`: the smallest learning rate.
    pub eta_min: f64,
    /// torch's `T_cur`: epochs since the last restart (fractional when stepped with a float epoch).
    pub t_cur: f64,
}

impl CosineAnnealingWarmRestarts {
    /// Attach to `optimizer` and take the initial step.
    pub fn new(optimizer: &mut dyn Optimizer, t_0: i64, t_mult: i64, eta_min: f64) -> Result<Self> {
        if t_0 <= 0 {
            return Err(BorchError::Value(format!(
                "Expected positive integer T_0, but got {t_0}"
            )));
        }
        if t_mult < 1 {
            return Err(BorchError::Value(format!(
                "Expected integer T_mult >= 1, but got {t_mult}"
            )));
        }
        let base = SchedulerBase::attach(optimizer);
        let s = CosineAnnealingWarmRestarts {
            base,
            t_0,
            t_i: t_0,
            t_mult,
            eta_min,
            t_cur: -1.0,
        };
        initial_step(s, optimizer)
    }
}

impl LRScheduler for CosineAnnealingWarmRestarts {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, _: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let (t_cur, t_i, eta_min) = (self.t_cur, self.t_i as f64, self.eta_min);
        Ok(self
            .base
            .base_lrs
            .iter()
            .map(|b| eta_min + (b - eta_min) * (1.0 + (PI * t_cur / t_i).cos()) / 2.0)
            .collect())
    }
    /// torch's own `step()` (epoch `None`): `T_cur` advances and wraps at `T_i`.
    fn step(&mut self, optimizer: &mut dyn Optimizer) -> Result<()> {
        // torch's override does not count steps (`_step_count` stays 0).
        if self.base.last_epoch < 0 {
            // torch's step(epoch=0) of the first call.
            self.t_i = self.t_0;
            self.t_cur = 0.0;
            self.base.last_epoch = 0;
        } else {
            self.base.last_epoch += 1;
            self.t_cur += 1.0;
            if self.t_cur >= self.t_i as f64 {
                self.t_cur %= self.t_i as f64;
                self.t_i *= self.t_mult;
            }
        }
        let values = self.get_lr(optimizer)?;
        for (g, lr) in values.into_iter().enumerate() {
            optimizer.set_lr(g, lr);
        }
        self.base.last_lr = lrs(optimizer);
        Ok(())
    }
    fn values(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("T_0".into(), Value::Int(self.t_0)),
            ("T_i".into(), Value::Int(self.t_i)),
            ("T_mult".into(), Value::Int(self.t_mult)),
            ("eta_min".into(), Value::Float(self.eta_min)),
            ("T_cur".into(), Value::Int(self.t_cur as i64)),
        ])
    }
    fn load_values(&mut self, values: &BTreeMap<String, Value>) -> Result<()> {
        self.t_0 = value_f64(values, "T_0")? as i64;
        self.t_i = value_f64(values, "T_i")? as i64;
        self.t_mult = value_f64(values, "T_mult")? as i64;
        self.eta_min = value_f64(values, "eta_min")?;
        self.t_cur = value_f64(values, "T_cur")?;
        Ok(())
    }
}
