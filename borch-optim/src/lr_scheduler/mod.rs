//! torch.optim.lr_scheduler: schedulers set each param group's `lr` (and OneCycleLR its momentum)
//! on the optimizer passed to `step`, with torch's formulas evaluated in f64 in torch's order.
//!
//! As in torch, making a scheduler performs its first step (epoch 0), which may already change the
//! learning rates (LinearLR, OneCycleLR). Call `scheduler.step(&mut optimizer)` after
//! `optimizer.step()`.

mod args;
pub mod catalog;
mod constant_lr;
mod cosine_annealing_lr;
mod cosine_annealing_warm_restarts;
mod cyclic_lr;
mod exponential_lr;
mod lambda_lr;
mod linear_lr;
mod multi_step_lr;
mod multiplicative_lr;
mod one_cycle_lr;
mod polynomial_lr;
mod reduce_lr_on_plateau;
mod sequential_lr;
mod state_map;
mod step_lr;

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use crate::optimizer::Optimizer;
use crate::value::Value;

pub use args::{SchedulerParam, parse as parse_signature};
pub use catalog::{Scheduler, SchedulerArgs, SchedulerEntry, SharedScheduler, build, schedulers};
pub use constant_lr::ConstantLR;
pub use cosine_annealing_lr::CosineAnnealingLR;
pub use cosine_annealing_warm_restarts::CosineAnnealingWarmRestarts;
pub use cyclic_lr::{CyclicLR, CyclicOptions};
pub use exponential_lr::ExponentialLR;
pub use lambda_lr::{LambdaLR, LrLambda};
pub use linear_lr::LinearLR;
pub use multi_step_lr::MultiStepLR;
pub use multiplicative_lr::MultiplicativeLR;
pub use one_cycle_lr::{AnnealStrategy, OneCycleLR, OneCycleOptions};
pub use polynomial_lr::PolynomialLR;
pub use reduce_lr_on_plateau::{PlateauOptions, ReduceLROnPlateau};
pub use sequential_lr::{ChainedScheduler, SequentialLR};
pub use step_lr::StepLR;

/// A value given once for all param groups or once per group (torch's float-or-list arguments).
#[derive(Debug, Clone, PartialEq)]
pub enum PerGroup {
    /// One value for every group.
    All(f64),
    /// One value per group.
    Each(Vec<f64>),
}

impl From<f64> for PerGroup {
    fn from(x: f64) -> PerGroup {
        PerGroup::All(x)
    }
}

impl From<Vec<f64>> for PerGroup {
    fn from(v: Vec<f64>) -> PerGroup {
        PerGroup::Each(v)
    }
}

impl PerGroup {
    /// One value per group, with torch's `_format_param` error when a list has the wrong length.
    pub(crate) fn expand(&self, name: &str, groups: usize) -> Result<Vec<f64>> {
        match self {
            PerGroup::All(x) => Ok(vec![*x; groups]),
            PerGroup::Each(v) if v.len() == groups => Ok(v.clone()),
            PerGroup::Each(v) => Err(BorchError::Value(format!(
                "{name} must have the same length as optimizer.param_groups. {name} has {} \
                 values, param_groups has {groups}.",
                v.len()
            ))),
        }
    }
}

/// What every epoch-driven scheduler keeps (torch's `LRScheduler` attributes).
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerBase {
    /// torch's `base_lrs`: each group's initial learning rate.
    pub base_lrs: Vec<f64>,
    /// torch's `last_epoch`.
    pub last_epoch: i64,
    /// torch's `_step_count`: calls to `step`, the constructor's included.
    pub step_count: u64,
    /// torch's `_last_lr`: the learning rates the last step set.
    pub last_lr: Vec<f64>,
    /// True during the step made by the constructor (torch's `_is_initial`).
    pub is_initial: bool,
}

impl SchedulerBase {
    /// torch's `LRScheduler.__init__` with `last_epoch=-1`: each group's `initial_lr` defaults to
    /// its `lr`, and the base learning rates are the initial ones.
    pub fn attach(optimizer: &mut dyn Optimizer) -> SchedulerBase {
        let groups = optimizer.num_param_groups();
        for g in 0..groups {
            if optimizer.group_extra(g, "initial_lr").is_none() {
                let lr = optimizer.lr(g);
                optimizer.set_group_extra(g, "initial_lr", lr);
            }
        }
        SchedulerBase {
            base_lrs: (0..groups)
                .map(|g| optimizer.group_extra(g, "initial_lr").unwrap_or(0.0))
                .collect(),
            last_epoch: -1,
            step_count: 0,
            last_lr: Vec::new(),
            is_initial: false,
        }
    }
}

/// torch's scheduler `state_dict()`: the common attributes and each scheduler's own.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerState {
    /// The common attributes.
    pub base: SchedulerBase,
    /// The scheduler's own entries, by torch's names.
    pub values: BTreeMap<String, Value>,
}

/// The learning rate of every group of `optimizer`.
pub(crate) fn lrs(optimizer: &dyn Optimizer) -> Vec<f64> {
    (0..optimizer.num_param_groups())
        .map(|g| optimizer.lr(g))
        .collect()
}

/// An epoch-driven scheduler (every one but ReduceLROnPlateau).
pub trait LRScheduler {
    /// The common attributes.
    fn base(&self) -> &SchedulerBase;
    /// The common attributes, to change.
    fn base_mut(&mut self) -> &mut SchedulerBase;

    /// torch's `get_lr()`: the learning rates for `last_epoch`, which `step` has just advanced.
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>>;

    /// torch's `_get_closed_form_lr()` for `last_epoch`, where the scheduler has one (used when
    /// SequentialLR restarts it at epoch 0).
    fn closed_form_lr(&self) -> Option<Vec<f64>> {
        None
    }

    /// The scheduler's own attributes for its state dict.
    fn values(&self) -> BTreeMap<String, Value> {
        BTreeMap::new()
    }

    /// Restore the scheduler's own attributes.
    fn load_values(&mut self, _values: &BTreeMap<String, Value>) -> Result<()> {
        Ok(())
    }

    /// Advance one epoch and set every group's learning rate.
    fn step(&mut self, optimizer: &mut dyn Optimizer) -> Result<()> {
        let base = self.base_mut();
        base.step_count += 1;
        base.last_epoch += 1;
        let values = self.get_lr(optimizer)?;
        let groups = optimizer.num_param_groups();
        if values.len() != groups {
            return Err(BorchError::Value(format!(
                "the scheduler computed {} learning rates for {groups} param groups",
                values.len()
            )));
        }
        for (g, lr) in values.into_iter().enumerate() {
            optimizer.set_lr(g, lr);
        }
        self.base_mut().last_lr = lrs(optimizer);
        Ok(())
    }

    /// The learning rates the last step set, one per group.
    fn get_last_lr(&self) -> Vec<f64> {
        self.base().last_lr.clone()
    }

    /// The index of the last epoch.
    fn last_epoch(&self) -> i64 {
        self.base().last_epoch
    }

    /// torch's `state_dict()`.
    fn state_dict(&self) -> SchedulerState {
        SchedulerState {
            base: self.base().clone(),
            values: self.values(),
        }
    }

    /// torch's `load_state_dict(state_dict)`.
    fn load_state_dict(&mut self, state: &SchedulerState) -> Result<()> {
        self.load_values(&state.values)?;
        *self.base_mut() = state.base.clone();
        Ok(())
    }
}

/// torch's `_update_lr(epoch)`: set `last_epoch` and the learning rates of that epoch (the
/// closed form where the scheduler has one), without counting a step.
pub(crate) fn update_lr_at(
    scheduler: &mut dyn LRScheduler,
    optimizer: &mut dyn Optimizer,
    epoch: i64,
) -> Result<()> {
    scheduler.base_mut().last_epoch = epoch;
    let values = match scheduler.closed_form_lr() {
        Some(v) => v,
        None => scheduler.get_lr(optimizer)?,
    };
    for (g, lr) in values.into_iter().enumerate() {
        optimizer.set_lr(g, lr);
    }
    scheduler.base_mut().last_lr = lrs(optimizer);
    Ok(())
}

/// torch's `_initial_step()` on a scheduler already made (SequentialLR's first one).
pub(crate) fn initial_step_again(
    scheduler: &mut dyn LRScheduler,
    optimizer: &mut dyn Optimizer,
) -> Result<()> {
    scheduler.base_mut().step_count = 0;
    scheduler.base_mut().is_initial = true;
    let result = scheduler.step(optimizer);
    scheduler.base_mut().is_initial = false;
    result
}

/// The closed form's `base_lr * factor` for every group.
pub(crate) fn scaled_bases(base: &SchedulerBase, factor: impl Fn(f64) -> f64) -> Vec<f64> {
    base.base_lrs.iter().map(|b| factor(*b)).collect()
}

/// torch's `_initial_step`: the step every scheduler takes when it is made.
pub(crate) fn initial_step<S: LRScheduler>(
    mut scheduler: S,
    optimizer: &mut dyn Optimizer,
) -> Result<S> {
    scheduler.base_mut().step_count = 0;
    scheduler.base_mut().is_initial = true;
    let result = scheduler.step(optimizer);
    scheduler.base_mut().is_initial = false;
    result.map(|()| scheduler)
}

/// Read a float of a scheduler's state.
pub(crate) fn value_f64(values: &BTreeMap<String, Value>, key: &str) -> Result<f64> {
    values
        .get(key)
        .and_then(Value::as_f64)
        .ok_or_else(|| BorchError::Value(format!("KeyError: '{key}'")))
}
