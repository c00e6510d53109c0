//! torch's PolynomialLR: decay the learning rate by a polynomial of the remaining fraction of
//! `total_iters`, by torch's recursive formula.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, SchedulerBase, initial_step, lrs, scaled_bases, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `PolynomialLR(optimizer, total_iters=5, power=1.0)`.
pub struct PolynomialLR {
    base: SchedulerBase,
    /// torch's `total_iters`: the epochs over which the schedule runs.
    pub total_iters: i64,
    /// torch's `power`: the polynomial's exponent.
    pub power: f64,
}

impl PolynomialLR {
    /// Attach to `optimizer` and take the initial step.
    pub fn new(optimizer: &mut dyn Optimizer, total_iters: i64, power: f64) -> Result<Self> {
        if total_iters == 0 {
            // torch fails at the first step with Python's ZeroDivisionError.
            return Err(BorchError::Value(
                "PolynomialLR's total_iters must not be 0".into(),
            ));
        }
        let base = SchedulerBase::attach(optimizer);
        let s = PolynomialLR {
            base,
            total_iters,
            power,
        };
        initial_step(s, optimizer)
    }
}

impl LRScheduler for PolynomialLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let epoch = self.base.last_epoch;
        let current = lrs(optimizer);
        if self.base.is_initial || epoch > self.total_iters {
            return Ok(current);
        }
        let (e, n) = (epoch as f64, self.total_iters as f64);
        let decay = ((1.0 - e / n) / (1.0 - (e - 1.0) / n)).powf(self.power);
        Ok(current.into_iter().map(|lr| lr * decay).collect())
    }
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        let n = self.total_iters as f64;
        let e = self.total_iters.min(self.base.last_epoch) as f64;
        Some(scaled_bases(&self.base, |b| {
            b * (1.0 - e / n).powf(self.power)
        }))
    }
    fn values(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("total_iters".into(), Value::Int(self.total_iters)),
            ("power".into(), Value::Float(self.power)),
        ])
    }
    fn load_values(&mut self, values: &BTreeMap<String, Value>) -> Result<()> {
        self.total_iters = value_f64(values, "total_iters")? as i64;
        self.power = value_f64(values, "power")?;
        Ok(())
    }
}
