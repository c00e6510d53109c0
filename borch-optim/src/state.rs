//! Optimizer state: per-parameter entries and the state dict mirroring torch's
//! `{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}`.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result, Tensor};

use crate::value::Value;

/// One entry of a parameter's state: a tensor (`exp_avg`, `momentum_buffer`, …) or one of
/// torch's float32 scalar tensors (`step`, NAdam's `mu_product`, ASGD's `eta` and `mu`), kept on
/// the host as the f64 of its float32 value, since the host computes the kernels' scalars from
/// it.
#[derive(Clone)]
pub enum StateValue {
    /// A tensor entry (`exp_avg`, `momentum_buffer`, ...).
    Tensor(Tensor),
    /// A float32 scalar entry (`step`, ...), as the f64 of its float32 value.
    Step(f64),
}

/// The state torch keeps for one parameter (`optimizer.state[p]`).
#[derive(Clone, Default)]
pub struct ParamState {
    /// The entries by torch's names (`step`, `exp_avg`, ...).
    pub entries: BTreeMap<String, StateValue>,
}

impl ParamState {
    /// The tensor under `key`, if any.
    pub fn tensor(&self, key: &str) -> Option<&Tensor> {
        match self.entries.get(key) {
            Some(StateValue::Tensor(t)) => Some(t),
            _ => None,
        }
    }

    /// torch's `state["step"]`, 0 before the first step.
    pub fn step(&self) -> f64 {
        match self.entries.get("step") {
            Some(StateValue::Step(s)) => *s,
            _ => 0.0,
        }
    }

    /// A scalar entry (`mu_product`, `eta`), if set.
    pub fn scalar(&self, key: &str) -> Option<f64> {
        match self.entries.get(key) {
            Some(StateValue::Step(s)) => Some(*s),
            _ => None,
        }
    }

    /// Set a scalar entry to `value` rounded to float32, as torch's scalar tensors hold it.
    pub(crate) fn set_scalar(&mut self, key: &str, value: f64) {
        self.entries
            .insert(key.into(), StateValue::Step(f64::from(value as f32)));
    }

    pub(crate) fn set_step(&mut self, step: f64) {
        self.entries.insert("step".into(), StateValue::Step(step));
    }

    /// State tensors are kept alive, so a step run inside a memory scope does not release them.
    pub(crate) fn set_tensor(&mut self, key: &str, t: Tensor) {
        borch_tensor::keep_alive(&t);
        self.entries.insert(key.into(), StateValue::Tensor(t));
    }

    /// Whether no entry has been made (the parameter has not been stepped).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One packed param group of a state dict: its options and the indices of its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupState {
    /// The group's entries by torch's names (`lr`, `betas`, ...).
    pub options: BTreeMap<String, Value>,
    /// torch's `params`: the indices of the group's parameters, counted across groups.
    pub params: Vec<usize>,
}

/// torch's optimizer `state_dict()`. State tensors alias the optimizer's (as in torch);
/// `load_state_dict` copies them.
#[derive(Clone, Default)]
pub struct StateDict {
    /// torch's `state`: each stepped parameter's state by its index.
    pub state: BTreeMap<usize, ParamState>,
    /// torch's `param_groups`.
    pub param_groups: Vec<GroupState>,
}

/// A copy of a loaded state tensor for `param`: new contiguous storage of the parameter's shape.
pub(crate) fn adopt(param: &Tensor, key: &str, value: &Tensor) -> Result<Tensor> {
    // Adafactor's factored second moments are a row and a column of the parameter.
    let factored = key == "row_var" || key == "col_var";
    if value.shape() != param.shape() && !factored {
        return Err(BorchError::Runtime(format!(
            "loaded state '{key}' has shape {:?} but its parameter has shape {:?}",
            value.shape(),
            param.shape()
        )));
    }
    Ok(borch_tensor::keep_alive(&value.deep_clone()?))
}
