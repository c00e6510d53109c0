//! A scheduler's state dict as one flat dict with torch's keys (`base_lrs`, `last_epoch`,
//! `_step_count`, `_is_initial`, `_last_lr` and the scheduler's own), the shape bindings hand to
//! users and take back.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use super::{SchedulerBase, SchedulerState};
use crate::value::{Reader, Value};

const BASE_KEYS: [&str; 6] = [
    "base_lrs",
    "last_epoch",
    "_step_count",
    "_is_initial",
    "_get_lr_called_within_step",
    "_last_lr",
];

fn floats(v: &[f64]) -> Value {
    Value::List(v.iter().copied().map(Value::Float).collect())
}

fn read_floats(dict: &BTreeMap<String, Value>, key: &str) -> Result<Vec<f64>> {
    let wrong = || BorchError::Type(format!("'{key}' must be a list of numbers"));
    match dict.get(key) {
        Some(Value::List(items)) => items.iter().map(|v| v.as_f64().ok_or_else(wrong)).collect(),
        Some(_) => Err(wrong()),
        None => Err(BorchError::Value(format!("KeyError: '{key}'"))),
    }
}

impl SchedulerState {
    /// torch's `scheduler.state_dict()`: every attribute under its torch name.
    pub fn to_map(&self) -> BTreeMap<String, Value> {
        let b = &self.base;
        let mut dict = self.values.clone();
        dict.insert("base_lrs".into(), floats(&b.base_lrs));
        dict.insert("last_epoch".into(), Value::Int(b.last_epoch));
        dict.insert("_step_count".into(), Value::Int(b.step_count as i64));
        dict.insert("_is_initial".into(), Value::Bool(b.is_initial));
        // Always false between calls, as in torch (it is true only inside `step`).
        dict.insert("_get_lr_called_within_step".into(), Value::Bool(false));
        dict.insert("_last_lr".into(), floats(&b.last_lr));
        dict
    }

    /// The state of a dict `to_map` made (or torch's `state_dict()` as values).
    pub fn from_map(dict: &BTreeMap<String, Value>) -> Result<SchedulerState> {
        let read = Reader(dict);
        let base = SchedulerBase {
            base_lrs: read_floats(dict, "base_lrs")?,
            last_epoch: read.f64("last_epoch")? as i64,
            step_count: read.f64("_step_count")?.max(0.0) as u64,
            last_lr: read_floats(dict, "_last_lr")?,
            is_initial: match dict.get("_is_initial") {
                None => false,
                Some(_) => read.bool("_is_initial")?,
            },
        };
        let values = dict
            .iter()
            .filter(|(k, _)| !BASE_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(SchedulerState { base, values })
    }
}
