//! torch's SequentialLR (one scheduler after another, switching at milestones) and
//! ChainedScheduler (every scheduler stepped in turn). Their children are shared, as in torch
//! the user keeps the child objects.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use super::catalog::{Scheduler, SharedScheduler};
use super::{initial_step_again, lrs, update_lr_at};
use crate::optimizer::Optimizer;
use crate::value::Value;

fn floats(v: &[f64]) -> Value {
    Value::List(v.iter().map(|x| Value::Float(*x)).collect())
}

fn check_children(name: &str, schedulers: &[SharedScheduler]) -> Result<()> {
    if schedulers.is_empty() {
        return Err(BorchError::Value(format!(
            "{name} expects at least one scheduler{}, but got no scheduler.",
            if name == "ChainedScheduler" {
                " to be chained"
            } else {
                ""
            }
        )));
    }
    for (i, s) in schedulers.iter().enumerate() {
        let s = s.try_borrow().map_err(|_| busy())?;
        if matches!(&*s, Scheduler::Plateau(_)) {
            return Err(BorchError::Value(format!(
                "{name} does not support `ReduceLROnPlateau` scheduler as it requires additional \
                 kwargs to be specified when calling `step`, but got one at index {i} in the \
                 given schedulers sequence."
            )));
        }
    }
    Ok(())
}

fn busy() -> BorchError {
    BorchError::Runtime("this scheduler is in use by a call that has not returned".into())
}

/// torch's `recursive_undo`: every scheduler's `last_epoch` one back.
fn undo(s: &mut Scheduler) {
    match s {
        Scheduler::Epoch(_, inner) => inner.base_mut().last_epoch -= 1,
        Scheduler::Sequential(seq) => {
            for c in &seq.schedulers {
                if let Ok(mut c) = c.try_borrow_mut() {
                    undo(&mut c);
                }
            }
        }
        Scheduler::Chained(ch) => {
            for c in &ch.schedulers {
                if let Ok(mut c) = c.try_borrow_mut() {
                    undo(&mut c);
                }
            }
        }
        Scheduler::Plateau(p) => p.last_epoch -= 1,
    }
}

fn children_state(children: &[SharedScheduler]) -> Result<Value> {
    let mut out = Vec::new();
    for c in children {
        out.push(Value::Dict(
            c.try_borrow().map_err(|_| busy())?.state_dict()?,
        ));
    }
    Ok(Value::List(out))
}

fn load_children(children: &[SharedScheduler], state: &BTreeMap<String, Value>) -> Result<()> {
    let Some(Value::List(items)) = state.get("_schedulers") else {
        return Err(BorchError::Value("KeyError: '_schedulers'".into()));
    };
    for (c, item) in children.iter().zip(items) {
        let Value::Dict(d) = item else {
            return Err(BorchError::Type(
                "'_schedulers' must hold the children's state dicts".into(),
            ));
        };
        c.try_borrow_mut().map_err(|_| busy())?.load_state_dict(d)?;
    }
    Ok(())
}

/// torch's `SequentialLR(optimizer, schedulers, milestones)`.
pub struct SequentialLR {
    /// torch's `_schedulers`: the child schedulers.
    pub schedulers: Vec<SharedScheduler>,
    /// torch's `_milestones`: the epochs at which the next scheduler takes over.
    pub milestones: Vec<i64>,
    /// torch's `last_epoch`.
    pub last_epoch: i64,
    last_lr: Vec<f64>,
}

impl SequentialLR {
    /// Reset the learning rates to the initial ones, undo the children's initial steps and
    /// redo the first one's, as torch does.
    pub fn new(
        optimizer: &mut dyn Optimizer,
        schedulers: Vec<SharedScheduler>,
        milestones: Vec<i64>,
    ) -> Result<SequentialLR> {
        check_children("SequentialLR", &schedulers)?;
        if milestones.len() != schedulers.len() - 1 {
            return Err(BorchError::Value(format!(
                "Sequential Schedulers expects number of schedulers provided to be one more than \
                 the number of milestone points, but got number of schedulers {} and the number \
                 of milestones to be equal to {}",
                schedulers.len(),
                milestones.len()
            )));
        }
        for g in 0..optimizer.num_param_groups() {
            let initial = optimizer
                .group_extra(g, "initial_lr")
                .ok_or_else(|| BorchError::Value("KeyError: 'initial_lr'".into()))?;
            optimizer.set_lr(g, initial);
        }
        for s in &schedulers {
            undo(&mut *s.try_borrow_mut().map_err(|_| busy())?);
        }
        let idx = milestones.partition_point(|m| *m <= 0);
        let last_lr = {
            let mut first = schedulers[idx].try_borrow_mut().map_err(|_| busy())?;
            match &mut *first {
                Scheduler::Epoch(_, inner) => initial_step_again(&mut **inner, optimizer)?,
                other => other.step(optimizer, None)?,
            }
            first.get_last_lr()
        };
        Ok(SequentialLR {
            schedulers,
            milestones,
            last_epoch: 0,
            last_lr,
        })
    }

    /// torch's `step()`.
    pub fn step(&mut self, optimizer: &mut dyn Optimizer) -> Result<()> {
        self.last_epoch += 1;
        let idx = self.milestones.partition_point(|m| *m <= self.last_epoch);
        let mut s = self.schedulers[idx].try_borrow_mut().map_err(|_| busy())?;
        let restart = idx > 0 && self.milestones[idx - 1] == self.last_epoch;
        match &mut *s {
            Scheduler::Epoch(_, inner) if restart => update_lr_at(&mut **inner, optimizer, 0)?,
            other => other.step(optimizer, None)?,
        }
        self.last_lr = s.get_last_lr();
        Ok(())
    }

    /// torch's `get_last_lr()`: the learning rates the last step set.
    pub fn get_last_lr(&self) -> Vec<f64> {
        self.last_lr.clone()
    }

    /// torch's `state_dict()`: `_milestones`, `last_epoch`, `_last_lr` and `_schedulers`.
    pub fn state_dict(&self) -> Result<BTreeMap<String, Value>> {
        Ok(BTreeMap::from([
            (
                "_milestones".into(),
                Value::List(self.milestones.iter().map(|m| Value::Int(*m)).collect()),
            ),
            ("last_epoch".into(), Value::Int(self.last_epoch)),
            ("_last_lr".into(), floats(&self.last_lr)),
            ("_schedulers".into(), children_state(&self.schedulers)?),
        ]))
    }

    /// torch's `load_state_dict(state_dict)`.
    pub fn load_state_dict(&mut self, state: &BTreeMap<String, Value>) -> Result<()> {
        load_children(&self.schedulers, state)?;
        if let Some(x) = state.get("last_epoch").and_then(Value::as_f64) {
            self.last_epoch = x as i64;
        }
        if let Some(Value::List(m)) = state.get("_milestones") {
            self.milestones = m
                .iter()
                .filter_map(Value::as_f64)
                .map(|x| x as i64)
                .collect();
        }
        if let Some(Value::List(v)) = state.get("_last_lr") {
            self.last_lr = v.iter().filter_map(Value::as_f64).collect();
        }
        Ok(())
    }
}

/// torch's `ChainedScheduler(schedulers, optimizer=None)`.
pub struct ChainedScheduler {
    /// torch's `_schedulers`: the child schedulers.
    pub schedulers: Vec<SharedScheduler>,
    last_lr: Vec<f64>,
}

impl ChainedScheduler {
    /// torch's `ChainedScheduler(schedulers, optimizer)`: every child steps at each step.
    pub fn new(optimizer: &dyn Optimizer, schedulers: Vec<SharedScheduler>) -> Result<Self> {
        check_children("ChainedScheduler", &schedulers)?;
        Ok(ChainedScheduler {
            schedulers,
            last_lr: lrs(optimizer),
        })
    }

    /// torch's `step()`: every child's step, in order.
    pub fn step(&mut self, optimizer: &mut dyn Optimizer) -> Result<()> {
        for s in &self.schedulers {
            s.try_borrow_mut()
                .map_err(|_| busy())?
                .step(optimizer, None)?;
        }
        self.last_lr = lrs(optimizer);
        Ok(())
    }

    /// torch's `get_last_lr()`: the learning rates the last step set.
    pub fn get_last_lr(&self) -> Vec<f64> {
        self.last_lr.clone()
    }

    /// torch's `state_dict()`: `_last_lr` and `_schedulers`.
    pub fn state_dict(&self) -> Result<BTreeMap<String, Value>> {
        Ok(BTreeMap::from([
            ("_last_lr".into(), floats(&self.last_lr)),
            ("_schedulers".into(), children_state(&self.schedulers)?),
        ]))
    }

    /// torch's `load_state_dict(state_dict)`.
    pub fn load_state_dict(&mut self, state: &BTreeMap<String, Value>) -> Result<()> {
        load_children(&self.schedulers, state)?;
        if let Some(Value::List(v)) = state.get("_last_lr") {
            self.last_lr = v.iter().filter_map(Value::as_f64).collect();
        }
        Ok(())
    }
}
