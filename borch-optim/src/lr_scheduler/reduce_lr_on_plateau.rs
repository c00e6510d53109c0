//! torch's ReduceLROnPlateau: cut the learning rate by `factor` when a metric stops improving.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use super::{PerGroup, lrs, value_f64};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// torch's `ReduceLROnPlateau(optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
/// threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReduceLROnPlateau {
    /// torch's `mode`: `"min"` (lower is better) or `"max"`.
    pub mode: String,
    /// torch's `factor`: the learning rate's multiplier at a reduction.
    pub factor: f64,
    /// torch's `patience`: epochs without improvement before the learning rate is reduced.
    pub patience: i64,
    /// torch's `threshold`: how much better counts as an improvement.
    pub threshold: f64,
    /// torch's `threshold_mode`: `"rel"` or `"abs"`.
    pub threshold_mode: String,
    /// torch's `cooldown`: epochs to wait after a reduction.
    pub cooldown: i64,
    /// torch's `min_lrs`: each group's smallest learning rate.
    pub min_lrs: Vec<f64>,
    default_min_lr: Option<f64>,
    /// torch's `eps`: reductions smaller than this are skipped.
    pub eps: f64,
    /// torch's `best`: the best metric seen.
    pub best: f64,
    /// torch's `num_bad_epochs`: epochs since the last improvement.
    pub num_bad_epochs: i64,
    /// torch's `cooldown_counter`: cooldown epochs left.
    pub cooldown_counter: i64,
    /// torch's `last_epoch`.
    pub last_epoch: i64,
    last_lr: Vec<f64>,
}

/// ReduceLROnPlateau's arguments, with torch's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct PlateauOptions {
    /// torch's `mode`: `"min"` (lower is better) or `"max"`.
    pub mode: String,
    /// torch's `factor`: the learning rate's multiplier at a reduction.
    pub factor: f64,
    /// torch's `patience`: epochs without improvement before the learning rate is reduced.
    pub patience: i64,
    /// torch's `threshold`: how much better counts as an improvement.
    pub threshold: f64,
    /// torch's `threshold_mode`: `"rel"` or `"abs"`.
    pub threshold_mode: String,
    /// torch's `cooldown`: epochs to wait after a reduction.
    pub cooldown: i64,
    /// torch's `min_lr`: the smallest learning rate, per group or for all.
    pub min_lr: PerGroup,
    /// torch's `eps`: reductions smaller than this are skipped.
    pub eps: f64,
}

impl Default for PlateauOptions {
    fn default() -> Self {
        PlateauOptions {
            mode: "min".into(),
            factor: 0.1,
            patience: 10,
            threshold: 1e-4,
            threshold_mode: "rel".into(),
            cooldown: 0,
            min_lr: PerGroup::All(0.0),
            eps: 1e-8,
        }
    }
}

impl ReduceLROnPlateau {
    /// Watch a metric for `optimizer`'s learning rates (no initial step, as in torch).
    pub fn new(optimizer: &mut dyn Optimizer, options: PlateauOptions) -> Result<Self> {
        let o = options;
        if o.factor >= 1.0 {
            return Err(BorchError::Value("Factor should be < 1.0.".into()));
        }
        let groups = optimizer.num_param_groups();
        let (min_lrs, default_min_lr) = match o.min_lr {
            PerGroup::All(x) => (vec![x; groups], Some(x)),
            PerGroup::Each(v) if v.len() == groups => (v, None),
            PerGroup::Each(v) => {
                return Err(BorchError::Value(format!(
                    "expected {groups} min_lrs, got {}",
                    v.len()
                )));
            }
        };
        check_modes(&o.mode, &o.threshold_mode)?;
        let mut s = ReduceLROnPlateau {
            mode: o.mode,
            factor: o.factor,
            patience: o.patience,
            threshold: o.threshold,
            threshold_mode: o.threshold_mode,
            cooldown: o.cooldown,
            min_lrs,
            default_min_lr,
            eps: o.eps,
            best: 0.0,
            num_bad_epochs: 0,
            cooldown_counter: 0,
            last_epoch: 0,
            last_lr: lrs(optimizer),
        };
        s.reset();
        Ok(s)
    }

    fn mode_worse(&self) -> f64 {
        if self.mode == "min" {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        }
    }

    fn reset(&mut self) {
        self.best = self.mode_worse();
        self.cooldown_counter = 0;
        self.num_bad_epochs = 0;
    }

    fn is_better(&self, a: f64, best: f64) -> bool {
        match (self.mode.as_str(), self.threshold_mode.as_str()) {
            ("min", "rel") => a < best * (1.0 - self.threshold),
            ("min", _) => a < best - self.threshold,
            (_, "rel") => a > best * (self.threshold + 1.0),
            _ => a > best + self.threshold,
        }
    }

    /// One epoch with the watched `metrics` value.
    pub fn step(&mut self, optimizer: &mut dyn Optimizer, metrics: f64) -> Result<()> {
        let current = metrics;
        let epoch = self.last_epoch + 1;
        self.last_epoch = epoch;
        if self.is_better(current, self.best) {
            self.best = current;
            self.num_bad_epochs = 0;
        } else {
            self.num_bad_epochs += 1;
        }
        if self.cooldown_counter > 0 {
            self.cooldown_counter -= 1;
            self.num_bad_epochs = 0;
        }
        if self.num_bad_epochs > self.patience {
            self.reduce_lr(optimizer)?;
            self.cooldown_counter = self.cooldown;
            self.num_bad_epochs = 0;
        }
        self.last_lr = lrs(optimizer);
        Ok(())
    }

    fn reduce_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<()> {
        let groups = optimizer.num_param_groups();
        if groups != self.min_lrs.len() {
            let Some(default) = self.default_min_lr else {
                return Err(BorchError::Runtime(format!(
                    "The number of param groups in the `optimizer` ({groups}) differs from when \
                     `ReduceLROnPlateau` was initialized ({}), usually due to a new param group \
                     being added to the optimizer. Please modify the `min_lrs` field to match \
                     the length of the `optimizer` param groups.",
                    self.min_lrs.len()
                )));
            };
            self.min_lrs = vec![default; groups];
        }
        for g in 0..groups {
            let old_lr = optimizer.lr(g);
            let scaled = old_lr * self.factor;
            // Python's max(a, b) keeps `a` unless `b` is greater.
            let new_lr = if self.min_lrs[g] > scaled {
                self.min_lrs[g]
            } else {
                scaled
            };
            if old_lr - new_lr > self.eps {
                optimizer.set_lr(g, new_lr);
            }
        }
        Ok(())
    }

    /// Whether the scheduler is cooling down after a cut.
    pub fn in_cooldown(&self) -> bool {
        self.cooldown_counter > 0
    }

    /// The learning rates after the last step, one per group.
    pub fn get_last_lr(&self) -> Vec<f64> {
        self.last_lr.clone()
    }

    /// torch's `state_dict()`: every attribute but the optimizer.
    pub fn state_dict(&self) -> BTreeMap<String, Value> {
        let floats = |v: &[f64]| Value::List(v.iter().map(|x| Value::Float(*x)).collect());
        BTreeMap::from([
            ("mode".into(), Value::Str(self.mode.clone())),
            ("factor".into(), Value::Float(self.factor)),
            ("patience".into(), Value::Int(self.patience)),
            ("threshold".into(), Value::Float(self.threshold)),
            (
                "threshold_mode".into(),
                Value::Str(self.threshold_mode.clone()),
            ),
            ("cooldown".into(), Value::Int(self.cooldown)),
            ("min_lrs".into(), floats(&self.min_lrs)),
            (
                "default_min_lr".into(),
                self.default_min_lr.map_or(Value::None, Value::Float),
            ),
            ("eps".into(), Value::Float(self.eps)),
            ("best".into(), Value::Float(self.best)),
            ("mode_worse".into(), Value::Float(self.mode_worse())),
            ("num_bad_epochs".into(), Value::Int(self.num_bad_epochs)),
            ("cooldown_counter".into(), Value::Int(self.cooldown_counter)),
            ("last_epoch".into(), Value::Int(self.last_epoch)),
            ("_last_lr".into(), floats(&self.last_lr)),
        ])
    }

    /// torch's `load_state_dict(state_dict)`.
    pub fn load_state_dict(&mut self, state: &BTreeMap<String, Value>) -> Result<()> {
        let text = |key: &str| match state.get(key) {
            Some(Value::Str(s)) => Ok(s.clone()),
            _ => Err(BorchError::Value(format!("KeyError: '{key}'"))),
        };
        let floats = |key: &str| match state.get(key) {
            Some(Value::List(v)) => Ok(v.iter().filter_map(Value::as_f64).collect::<Vec<_>>()),
            _ => Err(BorchError::Value(format!("KeyError: '{key}'"))),
        };
        let (mode, threshold_mode) = (text("mode")?, text("threshold_mode")?);
        check_modes(&mode, &threshold_mode)?;
        self.mode = mode;
        self.threshold_mode = threshold_mode;
        self.factor = value_f64(state, "factor")?;
        self.patience = value_f64(state, "patience")? as i64;
        self.threshold = value_f64(state, "threshold")?;
        self.cooldown = value_f64(state, "cooldown")? as i64;
        self.min_lrs = floats("min_lrs")?;
        self.default_min_lr = state.get("default_min_lr").and_then(Value::as_f64);
        self.eps = value_f64(state, "eps")?;
        self.best = value_f64(state, "best")?;
        self.num_bad_epochs = value_f64(state, "num_bad_epochs")? as i64;
        self.cooldown_counter = value_f64(state, "cooldown_counter")? as i64;
        self.last_epoch = value_f64(state, "last_epoch")? as i64;
        self.last_lr = floats("_last_lr")?;
        Ok(())
    }
}

fn check_modes(mode: &str, threshold_mode: &str) -> Result<()> {
    if mode != "min" && mode != "max" {
        return Err(BorchError::Value(format!("mode {mode} is unknown!")));
    }
    if threshold_mode != "rel" && threshold_mode != "abs" {
        return Err(BorchError::Value(format!(
            "threshold mode {threshold_mode} is unknown!"
        )));
    }
    Ok(())
}
