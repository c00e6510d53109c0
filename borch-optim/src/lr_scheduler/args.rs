//! Binding a scheduler's arguments to its catalog signature (`"step_size: Int, gamma: Float =
//! 0.1"`), with Python's errors: positional values in order, keywords by name, defaults filled.
//! `Function` and `Schedulers` parameters are given apart in `SchedulerArgs` and not bound here.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result};

use super::PerGroup;
use super::catalog::SchedulerArgs;
use crate::value::Value;

/// One parameter of a signature.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerParam {
    /// torch's keyword.
    pub name: String,
    /// Its kind in the signature syntax (`Float`, `Int`, ...).
    pub kind: String,
    /// `None` when required.
    pub default: Option<Value>,
}

/// The parameters of a signature.
pub fn parse(signature: &str) -> Vec<SchedulerParam> {
    signature
        .split(", ")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (head, default) = match p.split_once('=') {
                Some((h, d)) => (h.trim(), Some(parse_default(d.trim()))),
                None => (p, None),
            };
            let (name, kind) = head.split_once(':').expect("parameter without a kind");
            SchedulerParam {
                name: name.trim().to_string(),
                kind: kind.trim().to_string(),
                default,
            }
        })
        .collect()
}

fn parse_default(d: &str) -> Value {
    match d {
        "None" => Value::None,
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        _ if d.starts_with('\'') => Value::Str(d.trim_matches('\'').to_string()),
        _ => match d.parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Float(d.parse().expect("bad default")),
        },
    }
}

/// Arguments bound to their parameters' names.
pub struct Bound {
    name: &'static str,
    values: BTreeMap<String, Value>,
}

fn given_apart(kind: &str) -> bool {
    kind == "Function" || kind == "Schedulers" || kind == "Optimizer"
}

impl Bound {
    pub fn bind(name: &'static str, signature: &str, args: &SchedulerArgs) -> Result<Bound> {
        let params: Vec<SchedulerParam> = parse(signature)
            .into_iter()
            .filter(|p| !given_apart(&p.kind))
            .collect();
        if args.positional.len() > params.len() {
            return Err(BorchError::Type(format!(
                "{name}() takes {} positional arguments but {} were given",
                params.len() + 1,
                args.positional.len() + 1
            )));
        }
        let mut values = BTreeMap::new();
        for (p, v) in params.iter().zip(&args.positional) {
            values.insert(p.name.clone(), v.clone());
        }
        for (k, v) in &args.keywords {
            let Some(p) = params.iter().find(|p| &p.name == k) else {
                if parse(signature).iter().any(|p| &p.name == k) {
                    continue;
                }
                return Err(BorchError::Type(format!(
                    "{name}() got an unexpected keyword argument '{k}'"
                )));
            };
            if values.insert(p.name.clone(), v.clone()).is_some() {
                return Err(BorchError::Type(format!(
                    "{name}() got multiple values for argument '{k}'"
                )));
            }
        }
        for p in &params {
            if values.contains_key(&p.name) {
                continue;
            }
            match &p.default {
                Some(d) => {
                    values.insert(p.name.clone(), d.clone());
                }
                None => {
                    return Err(BorchError::Type(format!(
                        "{name}() missing 1 required positional argument: '{}'",
                        p.name
                    )));
                }
            }
        }
        Ok(Bound { name, values })
    }

    pub fn has(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    fn get(&self, key: &str) -> &Value {
        self.values.get(key).unwrap_or(&Value::None)
    }

    fn wrong(&self, key: &str, want: &str) -> BorchError {
        BorchError::Type(format!(
            "{}(): argument '{key}' must be {want}, not {}",
            self.name,
            self.get(key).py_repr()
        ))
    }

    pub fn f64(&self, key: &str) -> Result<f64> {
        match self.get(key) {
            Value::Float(x) => Ok(*x),
            Value::Int(i) => Ok(*i as f64),
            _ => Err(self.wrong(key, "float")),
        }
    }

    pub fn i64(&self, key: &str) -> Result<i64> {
        match self.get(key) {
            Value::Int(i) => Ok(*i),
            Value::Float(x) if x.fract() == 0.0 && x.is_finite() => Ok(*x as i64),
            _ => Err(self.wrong(key, "int")),
        }
    }

    pub fn opt_i64(&self, key: &str) -> Result<Option<i64>> {
        match self.get(key) {
            Value::None => Ok(None),
            _ => self.i64(key).map(Some),
        }
    }

    pub fn bool(&self, key: &str) -> Result<bool> {
        match self.get(key) {
            Value::Bool(b) => Ok(*b),
            _ => Err(self.wrong(key, "bool")),
        }
    }

    pub fn str(&self, key: &str) -> Result<String> {
        match self.get(key) {
            Value::Str(s) => Ok(s.clone()),
            _ => Err(self.wrong(key, "str")),
        }
    }

    pub fn ints(&self, key: &str) -> Result<Vec<i64>> {
        match self.get(key) {
            Value::List(items) => items
                .iter()
                .map(|v| match v {
                    Value::Int(i) => Ok(*i),
                    Value::Float(x) if x.fract() == 0.0 => Ok(*x as i64),
                    _ => Err(self.wrong(key, "a list of ints")),
                })
                .collect(),
            _ => Err(self.wrong(key, "a list of ints")),
        }
    }

    /// A float for every group, or a list of one per group.
    pub fn per_group(&self, key: &str) -> Result<PerGroup> {
        match self.get(key) {
            Value::List(items) => items
                .iter()
                .map(|v| {
                    v.as_f64()
                        .ok_or_else(|| self.wrong(key, "a float or a list of floats"))
                })
                .collect::<Result<Vec<_>>>()
                .map(PerGroup::Each),
            v => v
                .as_f64()
                .map(PerGroup::All)
                .ok_or_else(|| self.wrong(key, "a float or a list of floats")),
        }
    }
}
