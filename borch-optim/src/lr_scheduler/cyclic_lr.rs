//! torch's CyclicLR: the learning rate cycles between `base_lr` and `max_lr` (triangular,
//! triangular2, exp_range), momentum inversely.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, PerGroup, SchedulerBase, initial_step};
use crate::group::MomentumKind;
use crate::optimizer::Optimizer;
use crate::value::Value;

/// CyclicLR's arguments after `base_lr` and `max_lr`, with torch's defaults (`scale_fn` is not
/// taken: a custom scale function is refused by the catalog).
#[derive(Debug, Clone, PartialEq)]
pub struct CyclicOptions {
    /// torch's `step_size_up`: iterations in the increasing half of a cycle.
    pub step_size_up: f64,
    /// torch's `step_size_down`: iterations in the decreasing half (`None`: `step_size_up`).
    pub step_size_down: Option<f64>,
    /// torch's `mode`: `"triangular"`, `"triangular2"` or `"exp_range"`.
    pub mode: String,
    /// torch's `gamma`: the factor of `exp_range` mode.
    pub gamma: f64,
    /// torch's `scale_mode`: `"cycle"` or `"iterations"`.
    pub scale_mode: String,
    /// torch's `cycle_momentum`: whether momentum cycles inversely to the learning rate.
    pub cycle_momentum: bool,
    /// torch's `base_momentum`: the lower momentum bound, per group or for all.
    pub base_momentum: PerGroup,
    /// torch's `max_momentum`: the upper momentum bound, per group or for all.
    pub max_momentum: PerGroup,
}

impl Default for CyclicOptions {
    fn default() -> Self {
        CyclicOptions {
            step_size_up: 2000.0,
            step_size_down: None,
            mode: "triangular".into(),
            gamma: 1.0,
            scale_mode: "cycle".into(),
            cycle_momentum: true,
            base_momentum: PerGroup::All(0.8),
            max_momentum: PerGroup::All(0.9),
        }
    }
}

/// torch's `CyclicLR(optimizer, base_lr, max_lr, step_size_up=2000, …)`.
pub struct CyclicLR {
    base: SchedulerBase,
    /// torch's `max_lrs`: the upper learning rate bound of each group.
    pub max_lrs: Vec<f64>,
    /// torch's `total_size`: iterations per cycle.
    pub total_size: f64,
    /// torch's `step_ratio`: the increasing half's share of a cycle.
    pub step_ratio: f64,
    /// torch's `mode`: `"triangular"`, `"triangular2"` or `"exp_range"`.
    pub mode: String,
    /// torch's `gamma`: the factor of `exp_range` mode.
    pub gamma: f64,
    /// torch's `scale_mode`: `"cycle"` or `"iterations"`.
    pub scale_mode: String,
    /// torch's `cycle_momentum`: whether momentum cycles inversely to the learning rate.
    pub cycle_momentum: bool,
    use_beta1: bool,
    base_momentums: Vec<f64>,
    max_momentums: Vec<f64>,
}

impl CyclicLR {
    /// Set every group's lr to `base_lr` (and momentum to `max_momentum`), attach, and take the
    /// initial step.
    pub fn new(
        optimizer: &mut dyn Optimizer,
        base_lr: impl Into<PerGroup>,
        max_lr: impl Into<PerGroup>,
        o: CyclicOptions,
    ) -> Result<Self> {
        let groups = optimizer.num_param_groups();
        let base_lrs = base_lr.into().expand("base_lr", groups)?;
        for (g, lr) in base_lrs.iter().enumerate() {
            optimizer.set_lr(g, *lr);
        }
        let max_lrs = max_lr.into().expand("max_lr", groups)?;
        let up = o.step_size_up;
        let down = o.step_size_down.unwrap_or(up);
        let total_size = up + down;
        let scale_mode = match o.mode.as_str() {
            "triangular" | "triangular2" => "cycle".to_string(),
            "exp_range" => "iterations".to_string(),
            _ => {
                return Err(BorchError::Value(
                    "mode is invalid and scale_fn is None".into(),
                ));
            }
        };
        let (mut base_momentums, mut max_momentums) = (Vec::new(), Vec::new());
        let kind = optimizer.momentum_kind();
        if o.cycle_momentum {
            if kind == MomentumKind::None {
                return Err(BorchError::Value(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option \
                     enabled"
                        .into(),
                ));
            }
            base_momentums = o.base_momentum.expand("base_momentum", groups)?;
            max_momentums = o.max_momentum.expand("max_momentum", groups)?;
            for g in 0..groups {
                optimizer.set_momentum(g, max_momentums[g]);
                optimizer.set_group_extra(g, "max_momentum", max_momentums[g]);
                optimizer.set_group_extra(g, "base_momentum", base_momentums[g]);
            }
        }
        let base = SchedulerBase::attach(optimizer);
        let s = CyclicLR {
            base,
            max_lrs,
            total_size,
            step_ratio: up / total_size,
            mode: o.mode,
            gamma: o.gamma,
            scale_mode,
            cycle_momentum: o.cycle_momentum,
            use_beta1: kind == MomentumKind::Beta1,
            base_momentums,
            max_momentums,
        };
        let mut s = initial_step(s, optimizer)?;
        s.base.base_lrs = base_lrs;
        Ok(s)
    }

    fn scale_fn(&self, x: f64) -> f64 {
        match self.mode.as_str() {
            "triangular2" => 1.0 / 2f64.powf(x - 1.0),
            "exp_range" => self.gamma.powf(x),
            _ => 1.0,
        }
    }
}

impl LRScheduler for CyclicLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let epoch = self.base.last_epoch as f64;
        let cycle = (1.0 + epoch / self.total_size).floor();
        let x = 1.0 + epoch / self.total_size - cycle;
        let scale_factor = if x <= self.step_ratio {
            x / self.step_ratio
        } else {
            (x - 1.0) / (self.step_ratio - 1.0)
        };
        let scale = if self.scale_mode == "cycle" {
            self.scale_fn(cycle)
        } else {
            self.scale_fn(epoch)
        };
        let lrs = self
            .base
            .base_lrs
            .iter()
            .zip(&self.max_lrs)
            .map(|(b, m)| b + (m - b) * scale_factor * scale)
            .collect();
        if self.cycle_momentum {
            for g in 0..self.base_momentums.len() {
                let (b, m) = (self.base_momentums[g], self.max_momentums[g]);
                optimizer.set_momentum(g, m - (m - b) * scale_factor * scale);
            }
        }
        Ok(lrs)
    }
    fn values(&self) -> BTreeMap<String, Value> {
        let floats = |v: &[f64]| Value::List(v.iter().map(|x| Value::Float(*x)).collect());
        let mut values = BTreeMap::from([
            ("max_lrs".into(), floats(&self.max_lrs)),
            ("total_size".into(), Value::Float(self.total_size)),
            ("step_ratio".into(), Value::Float(self.step_ratio)),
            ("mode".into(), Value::Str(self.mode.clone())),
            ("gamma".into(), Value::Float(self.gamma)),
            ("_scale_fn_custom".into(), Value::None),
            ("scale_mode".into(), Value::Str(self.scale_mode.clone())),
            ("cycle_momentum".into(), Value::Bool(self.cycle_momentum)),
        ]);
        if self.cycle_momentum {
            values.insert("use_beta1".into(), Value::Bool(self.use_beta1));
            values.insert("base_momentums".into(), floats(&self.base_momentums));
            values.insert("max_momentums".into(), floats(&self.max_momentums));
        }
        values
    }
}
