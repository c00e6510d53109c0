//! Optimizer and scheduler state as flat entries plus JSON, the shape a checkpoint file stores:
//! `state.{index}.{name}` tensors and torch's `param_groups` list (as torch's `state_dict()` has
//! them), and scheduler dicts as JSON objects. Files themselves are written by borch-nn.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};
use serde_json::{Map, Number, Value as Json};

use crate::state::{GroupState, ParamState, StateDict, StateValue};
use crate::value::Value;

/// The state entries torch keeps as float32 scalar tensors (Adam's `step`, NAdam's
/// `mu_product`, ASGD's `eta` and `mu`, LBFGS's counters) and borch keeps as host numbers.
pub const SCALAR_STATE_KEYS: &[&str] = &["step", "mu_product", "eta", "mu", "func_evals", "n_iter"];

/// Non-finite floats have no JSON number; they are written as `{"__float__": "inf"}`.
const FLOAT_TAG: &str = "__float__";

impl Value {
    /// The value as JSON (tuples become lists; non-finite floats are tagged objects).
    pub fn to_json(&self) -> Json {
        match self {
            Value::Float(x) => match Number::from_f64(*x) {
                Some(n) => Json::Number(n),
                None => {
                    let text = if x.is_nan() {
                        "nan"
                    } else if *x > 0.0 {
                        "inf"
                    } else {
                        "-inf"
                    };
                    Json::Object(Map::from_iter([(FLOAT_TAG.into(), Json::from(text))]))
                }
            },
            Value::Int(i) => Json::from(*i),
            Value::Bool(b) => Json::Bool(*b),
            Value::Str(s) => Json::from(s.as_str()),
            Value::List(items) => Json::Array(items.iter().map(Value::to_json).collect()),
            Value::Dict(d) => {
                Json::Object(d.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
            }
            Value::None => Json::Null,
        }
    }

    /// The value of JSON `to_json` wrote (or torch's `state_dict()` dumped by `json`).
    pub fn from_json(json: &Json) -> Result<Value> {
        Ok(match json {
            Json::Null => Value::None,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) if !n.is_f64() => Value::Int(i),
                _ => Value::Float(n.as_f64().ok_or_else(|| bad(&format!("number {n}")))?),
            },
            Json::String(s) => Value::Str(s.clone()),
            Json::Array(items) => {
                Value::List(items.iter().map(Value::from_json).collect::<Result<_>>()?)
            }
            Json::Object(map) => match (map.len(), map.get(FLOAT_TAG)) {
                (1, Some(Json::String(s))) => Value::Float(match s.as_str() {
                    "nan" => f64::NAN,
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    other => return Err(bad(&format!("float '{other}'"))),
                }),
                _ => Value::Dict(dict_from_json(json)?),
            },
        })
    }
}

fn bad(what: &str) -> BorchError {
    BorchError::Value(format!("checkpoint state holds an unreadable {what}"))
}

/// A JSON object as a dict of values (a scheduler's `state_dict()`).
pub fn dict_from_json(json: &Json) -> Result<BTreeMap<String, Value>> {
    let Json::Object(map) = json else {
        return Err(bad("dict (not a JSON object)"));
    };
    map.iter()
        .map(|(k, v)| Ok((k.clone(), Value::from_json(v)?)))
        .collect()
}

/// A dict of values as a JSON object.
pub fn dict_to_json(dict: &BTreeMap<String, Value>) -> Json {
    Json::Object(dict.iter().map(|(k, v)| (k.clone(), v.to_json())).collect())
}

impl StateDict {
    /// The per-parameter entries as `("state.{index}.{name}", value)` in order, and torch's
    /// `param_groups` list (each group's options plus `"params": [indices]`) as JSON.
    pub fn to_flat(&self) -> (Vec<(String, StateValue)>, Json) {
        let entries = self
            .state
            .iter()
            .flat_map(|(i, s)| {
                s.entries
                    .iter()
                    .map(move |(k, v)| (format!("state.{i}.{k}"), v.clone()))
            })
            .collect();
        let groups = self
            .param_groups
            .iter()
            .map(|g| {
                let mut obj: Map<String, Json> = g
                    .options
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect();
                obj.insert("params".into(), Json::from(g.params.clone()));
                Json::Object(obj)
            })
            .collect();
        (entries, Json::Array(groups))
    }

    /// The state dict of flat entries and the `param_groups` JSON `to_flat` made (or torch's).
    pub fn from_flat(entries: Vec<(String, StateValue)>, param_groups: &Json) -> Result<StateDict> {
        let Json::Array(groups) = param_groups else {
            return Err(bad("param_groups (not a JSON list)"));
        };
        let mut out = StateDict::default();
        for g in groups {
            let mut options = dict_from_json(g)?;
            let params = match options.remove("params") {
                Some(Value::List(items)) => items
                    .iter()
                    .map(|v| match v {
                        Value::Int(i) if *i >= 0 => Ok(*i as usize),
                        _ => Err(bad("parameter index")),
                    })
                    .collect::<Result<Vec<_>>>()?,
                _ => return Err(bad("param group without a 'params' list")),
            };
            out.param_groups.push(GroupState { options, params });
        }
        for (key, value) in entries {
            let parsed = key
                .strip_prefix("state.")
                .and_then(|rest| rest.split_once('.'))
                .and_then(|(i, name)| Some((i.parse::<usize>().ok()?, name)));
            let Some((index, name)) = parsed else {
                return Err(bad(&format!("optimizer state key '{key}'")));
            };
            let state: &mut ParamState = out.state.entry(index).or_default();
            state.entries.insert(name.to_string(), value);
        }
        Ok(out)
    }
}
