//! torch's OneCycleLR: the 1cycle policy (warm up to `max_lr`, anneal far below the start), with
//! momentum cycled inversely (SGD's and RMSprop's `momentum`, Adam's `betas[0]`).

use std::collections::BTreeMap;
use std::f64::consts::PI;

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, PerGroup, SchedulerBase, initial_step};
use crate::group::MomentumKind;
use crate::optimizer::Optimizer;
use crate::value::Value;

/// How OneCycleLR moves between two values within a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnnealStrategy {
    /// `"cos"`: cosine annealing.
    Cos,
    /// `"linear"`: linear annealing.
    Linear,
}

impl AnnealStrategy {
    fn anneal(self, start: f64, end: f64, pct: f64) -> f64 {
        match self {
            AnnealStrategy::Cos => {
                let cos_out = (PI * pct).cos() + 1.0;
                end + (start - end) / 2.0 * cos_out
            }
            AnnealStrategy::Linear => (end - start) * pct + start,
        }
    }
}

/// OneCycleLR's arguments after `max_lr`, with torch's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct OneCycleOptions {
    /// torch's `total_steps`: steps in the whole cycle.
    pub total_steps: Option<i64>,
    /// torch's `epochs`: with `steps_per_epoch`, gives `total_steps`.
    pub epochs: Option<i64>,
    /// torch's `steps_per_epoch`.
    pub steps_per_epoch: Option<i64>,
    /// torch's `pct_start`: the share of the cycle spent increasing the learning rate.
    pub pct_start: f64,
    /// torch's `anneal_strategy`: cosine or linear annealing.
    pub anneal_strategy: AnnealStrategy,
    /// torch's `cycle_momentum`: whether momentum cycles inversely to the learning rate.
    pub cycle_momentum: bool,
    /// torch's `base_momentum`: the lower momentum bound, per group or for all.
    pub base_momentum: PerGroup,
    /// torch's `max_momentum`: the upper momentum bound, per group or for all.
    pub max_momentum: PerGroup,
    /// torch's `div_factor`: `initial_lr = max_lr / div_factor`.
    pub div_factor: f64,
    /// torch's `final_div_factor`: `min_lr = initial_lr / final_div_factor`.
    pub final_div_factor: f64,
    /// torch's `three_phase`: a third phase annihilates the learning rate.
    pub three_phase: bool,
}

impl Default for OneCycleOptions {
    fn default() -> Self {
        OneCycleOptions {
            total_steps: None,
            epochs: None,
            steps_per_epoch: None,
            pct_start: 0.3,
            anneal_strategy: AnnealStrategy::Cos,
            cycle_momentum: true,
            base_momentum: PerGroup::All(0.85),
            max_momentum: PerGroup::All(0.95),
            div_factor: 25.0,
            final_div_factor: 1e4,
            three_phase: false,
        }
    }
}

/// One phase: where it ends and which group entries it moves between.
#[derive(Debug, Clone, PartialEq)]
struct Phase {
    end_step: f64,
    start_lr: &'static str,
    end_lr: &'static str,
    start_momentum: &'static str,
    end_momentum: &'static str,
}

/// torch's `OneCycleLR(optimizer, max_lr, …)`.
pub struct OneCycleLR {
    base: SchedulerBase,
    /// torch's `total_steps`: steps in the whole cycle.
    pub total_steps: i64,
    /// torch's `anneal_strategy`: cosine or linear annealing.
    pub anneal_strategy: AnnealStrategy,
    /// torch's `cycle_momentum`: whether momentum cycles inversely to the learning rate.
    pub cycle_momentum: bool,
    use_beta1: bool,
    phases: Vec<Phase>,
}

impl OneCycleLR {
    /// Attach to `optimizer`: set each group's `initial_lr`, `max_lr`, `min_lr` (and momentum
    /// bounds), then take the initial step.
    pub fn new(
        optimizer: &mut dyn Optimizer,
        max_lr: impl Into<PerGroup>,
        options: OneCycleOptions,
    ) -> Result<OneCycleLR> {
        let o = options;
        let total_steps = match (o.total_steps, o.epochs, o.steps_per_epoch) {
            (Some(t), _, _) if t <= 0 => {
                return Err(BorchError::Value(format!(
                    "Expected positive integer total_steps, but got {t}"
                )));
            }
            (Some(t), _, _) => t,
            (None, Some(e), Some(s)) => {
                if e <= 0 {
                    return Err(BorchError::Value(format!(
                        "Expected positive integer epochs, but got {e}"
                    )));
                }
                if s <= 0 {
                    return Err(BorchError::Value(format!(
                        "Expected positive integer steps_per_epoch, but got {s}"
                    )));
                }
                e * s
            }
            _ => {
                return Err(BorchError::Value(
                    "You must define either total_steps OR (epochs AND steps_per_epoch)".into(),
                ));
            }
        };
        let phases = phases(o.pct_start, total_steps, o.three_phase);
        if !(0.0..=1.0).contains(&o.pct_start) {
            return Err(BorchError::Value(format!(
                "Expected float between 0 and 1 pct_start, but got {}",
                crate::py_float(o.pct_start)
            )));
        }
        let groups = optimizer.num_param_groups();
        let max_lrs = max_lr.into().expand("max_lr", groups)?;
        for (g, max_lr) in max_lrs.into_iter().enumerate() {
            let initial_lr = max_lr / o.div_factor;
            optimizer.set_group_extra(g, "initial_lr", initial_lr);
            optimizer.set_group_extra(g, "max_lr", max_lr);
            optimizer.set_group_extra(g, "min_lr", initial_lr / o.final_div_factor);
        }
        if o.cycle_momentum {
            if optimizer.momentum_kind() == MomentumKind::None {
                return Err(BorchError::Value(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option \
                     enabled"
                        .into(),
                ));
            }
            let max_m = o.max_momentum.expand("max_momentum", groups)?;
            let base_m = o.base_momentum.expand("base_momentum", groups)?;
            for g in 0..groups {
                optimizer.set_momentum(g, max_m[g]);
                optimizer.set_group_extra(g, "max_momentum", max_m[g]);
                optimizer.set_group_extra(g, "base_momentum", base_m[g]);
            }
        }
        let base = SchedulerBase::attach(optimizer);
        let s = OneCycleLR {
            base,
            total_steps,
            anneal_strategy: o.anneal_strategy,
            cycle_momentum: o.cycle_momentum,
            use_beta1: optimizer.momentum_kind() == MomentumKind::Beta1,
            phases,
        };
        initial_step(s, optimizer)
    }
}

fn phases(pct_start: f64, total_steps: i64, three_phase: bool) -> Vec<Phase> {
    let total = total_steps as f64;
    let phase = |end_step, start_lr, end_lr, start_momentum, end_momentum| Phase {
        end_step,
        start_lr,
        end_lr,
        start_momentum,
        end_momentum,
    };
    if three_phase {
        vec![
            phase(
                pct_start * total - 1.0,
                "initial_lr",
                "max_lr",
                "max_momentum",
                "base_momentum",
            ),
            phase(
                2.0 * pct_start * total - 2.0,
                "max_lr",
                "initial_lr",
                "base_momentum",
                "max_momentum",
            ),
            phase(
                total - 1.0,
                "initial_lr",
                "min_lr",
                "max_momentum",
                "max_momentum",
            ),
        ]
    } else {
        vec![
            phase(
                pct_start * total - 1.0,
                "initial_lr",
                "max_lr",
                "max_momentum",
                "base_momentum",
            ),
            phase(
                total - 1.0,
                "max_lr",
                "min_lr",
                "base_momentum",
                "max_momentum",
            ),
        ]
    }
}

impl LRScheduler for OneCycleLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let step_num = self.base.last_epoch;
        if step_num > self.total_steps {
            return Err(BorchError::Value(format!(
                "Tried to step {step_num} times. The specified number of total steps is {}",
                self.total_steps
            )));
        }
        let step = step_num as f64;
        let key = |g: usize, k: &str| optimizer.group_extra(g, k).unwrap_or(f64::NAN);
        let mut lrs = Vec::new();
        let mut momenta = Vec::new();
        for g in 0..optimizer.num_param_groups() {
            let mut start_step = 0.0;
            for (i, phase) in self.phases.iter().enumerate() {
                if step <= phase.end_step || i == self.phases.len() - 1 {
                    let pct = (step - start_step) / (phase.end_step - start_step);
                    let a = self.anneal_strategy;
                    lrs.push(a.anneal(key(g, phase.start_lr), key(g, phase.end_lr), pct));
                    let (m0, m1) = (key(g, phase.start_momentum), key(g, phase.end_momentum));
                    momenta.push(a.anneal(m0, m1, pct));
                    break;
                }
                start_step = phase.end_step;
            }
        }
        if self.cycle_momentum {
            for (g, m) in momenta.into_iter().enumerate() {
                optimizer.set_momentum(g, m);
            }
        }
        Ok(lrs)
    }
    fn values(&self) -> BTreeMap<String, Value> {
        let phases = self
            .phases
            .iter()
            .map(|p| {
                Value::Dict(BTreeMap::from([
                    ("end_step".into(), Value::Float(p.end_step)),
                    ("start_lr".into(), Value::Str(p.start_lr.into())),
                    ("end_lr".into(), Value::Str(p.end_lr.into())),
                    ("start_momentum".into(), Value::Str(p.start_momentum.into())),
                    ("end_momentum".into(), Value::Str(p.end_momentum.into())),
                ]))
            })
            .collect();
        let anneal = match self.anneal_strategy {
            AnnealStrategy::Cos => "cos",
            AnnealStrategy::Linear => "linear",
        };
        let mut values = BTreeMap::from([
            ("total_steps".into(), Value::Int(self.total_steps)),
            ("_schedule_phases".into(), Value::List(phases)),
            ("_anneal_func_type".into(), Value::Str(anneal.into())),
            ("cycle_momentum".into(), Value::Bool(self.cycle_momentum)),
        ]);
        if self.cycle_momentum {
            values.insert("use_beta1".into(), Value::Bool(self.use_beta1));
        }
        values
    }
}
