//! Calling each golden op through the catalogs as tests/golden/bindings.json says, exactly as the
//! JavaScript runner (tests/browser/pages/golden_suite.mjs) and the Python runner
//! (tests/golden/golden_runner.py) do: the op catalog (`borch_tensor::api`, method or function
//! form) and, for namespace `nn.functional`, borch-nn's functional catalog. No op is dispatched
//! by hand here.

use borch_tensor::api::{self, Entry, Value};
use borch_tensor::{BorchError, Tensor, manual_seed};
use serde_json::{Map, Value as Json};

use crate::case::{Case, number, value};

/// This runner's surface, as bindings.json's `surfaces` names it.
const SURFACE: &str = "native";

/// Why a call produced no tensors: a reason from bindings.json (counted "not implemented"), or
/// borch's error (compared with torch's).
pub enum Failure {
    NotExpressible(String),
    Borch(BorchError),
}

impl From<BorchError> for Failure {
    fn from(e: BorchError) -> Failure {
        Failure::Borch(e)
    }
}

pub struct Bindings(Json);

/// Keyword arguments in the order given; a later value for a name replaces the earlier one (as
/// JavaScript's object keys and Python's dict keys).
#[derive(Default)]
struct Keywords(Vec<(String, Value)>);

impl Keywords {
    fn set(&mut self, name: &str, v: Value) {
        match self.0.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = v,
            None => self.0.push((name.to_string(), v)),
        }
    }
}

fn str_list(v: &Json) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default()
}

/// `num(golden) === v` of the JavaScript runner: numbers by value, the rest as JSON.
fn same(golden: Option<&Json>, v: &Json) -> bool {
    match (golden, v) {
        (Some(g), Json::Number(_)) if g.is_number() || g.is_string() => number(g) == number(v),
        (Some(g), v) => g == v,
        (None, v) => v.is_null(),
    }
}

fn is_true(args: &Map<String, Json>, flag: &str) -> bool {
    args.get(flag) == Some(&Json::Bool(true))
}

/// The catalog a function form is looked up in: the op catalog, or namespace `nn.functional`'s.
fn catalog(namespace: Option<&str>) -> (&'static [Entry], &'static str) {
    match namespace.unwrap_or_default() {
        "" => (api::entries(), "torch"),
        "nn.functional" => (borch_nn::api::entries(), borch_nn::api::MODULE),
        other => panic!("bindings.json names namespace {other}, which this runner lacks"),
    }
}

/// The position of parameter `param` in the signature of the op called `name` (torch's order:
/// how `optional_inputs` are matched to the last inputs; serde_json's objects keep no order).
fn param_position(name: &str, form: &str, namespace: Option<&str>, param: &str) -> usize {
    let entry = api::find_in(catalog(namespace).0, name, form != "function");
    entry
        .and_then(|e| e.params.iter().position(|p| p.name == param))
        .unwrap_or(usize::MAX)
}

fn invoke(
    name: &str,
    form: &str,
    this: Option<&Value>,
    positional: Vec<Value>,
    keywords: Keywords,
    namespace: Option<&str>,
) -> Result<Value, Failure> {
    if form == "function" {
        let (entries, module) = catalog(namespace);
        return Ok(api::call_in(
            entries, module, name, false, positional, keywords.0,
        )?);
    }
    let Some(Value::Tensor(t)) = this else {
        return Err(BorchError::Type(format!("{name}: input 0 is not a tensor")).into());
    };
    let mut all = vec![Value::Tensor(t.clone())];
    all.extend(positional);
    Ok(api::call(name, true, all, keywords.0)?)
}

/// A result as the op's outputs: a tensor is one, a list of tensors several.
fn outputs(result: Value) -> Result<Vec<Tensor>, Failure> {
    let items = match result {
        Value::List(items) => items,
        other => vec![other],
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Tensor(t) => Ok(t),
            other => Err(Failure::Borch(BorchError::Type(format!(
                "output {i} is a {}, not a Tensor",
                other.type_name()
            )))),
        })
        .collect()
}

impl Bindings {
    pub fn load(path: &std::path::Path) -> Bindings {
        let text = std::fs::read_to_string(path).expect("bindings.json is committed");
        Bindings(serde_json::from_str(&text).expect("bindings.json parses"))
    }

    /// The op's rule: its prefix's (with `name`, the op's name after the prefix), then its own
    /// keys.
    fn binding_of(&self, op: &str) -> Map<String, Json> {
        let own = self.0["ops"][op].as_object().cloned().unwrap_or_default();
        let prefixes = self.0["prefixes"].as_object().into_iter().flatten();
        for (prefix, rule) in prefixes {
            if let Some(rest) = op.strip_prefix(prefix.as_str()) {
                let mut b = rule.as_object().cloned().unwrap_or_default();
                b.insert("name".into(), Json::String(rest.into()));
                b.extend(own);
                return b;
            }
        }
        own
    }

    /// Run the case's op on `values` (its inputs) and return its outputs.
    pub fn call_op(&self, c: &Case, values: Vec<Value>) -> Result<Vec<Tensor>, Failure> {
        let b = self.binding_of(&c.op);
        let applies = b
            .get("surfaces")
            .is_none_or(|s| str_list(s).contains(&SURFACE));
        if applies && let Some(reason) = b.get("not_implemented") {
            let reason = reason.as_str().unwrap_or_default().to_string();
            return Err(Failure::NotExpressible(reason));
        }
        if let Some(when) = b.get("not_implemented_when").filter(|_| applies) {
            let args = when["args"].as_object().into_iter().flatten();
            if args.into_iter().all(|(k, v)| same(c.args.get(k), v)) {
                let reason = when["reason"].as_str().unwrap_or_default().to_string();
                return Err(Failure::NotExpressible(reason));
            }
        }
        if let Some(seed) = c.args.get("seed") {
            manual_seed(seed.as_u64().expect("a seed is a non-negative int"));
        }
        if let Some(seq) = b.get("sequence") {
            return self.sequence(c, seq, &values);
        }
        let form = b.get("form").and_then(Json::as_str).unwrap_or("method");
        let name = ["call", "name"]
            .iter()
            .find_map(|k| b.get(*k).and_then(Json::as_str))
            .unwrap_or(c.op.as_str());
        let namespace = b.get("namespace").and_then(Json::as_str);
        // Inputs present only when a flag arg is true (`has_bias`), passed by keyword; flags
        // themselves are not arguments. `detach_inputs` flags detach an input before the call.
        let optional: Vec<(&String, &Json)> = b
            .get("optional_inputs")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
            .collect();
        let detach: Vec<(&String, &Json)> = b
            .get("detach_inputs")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
            .collect();
        let flags: Vec<&str> = optional
            .iter()
            .chain(&detach)
            .map(|(f, _)| f.as_str())
            .collect();
        let mut values = values;
        for (flag, i) in &detach {
            let i = i.as_u64().expect("detach_inputs maps to an input index") as usize;
            let detached = match values.get(i) {
                Some(Value::Tensor(t)) if is_true(&c.args, flag) => Value::Tensor(t.detach()),
                _ => continue,
            };
            values[i] = detached;
        }
        let mut present: Vec<&str> = optional
            .iter()
            .filter(|(flag, _)| is_true(&c.args, flag))
            .map(|(_, param)| param.as_str().expect("optional_inputs maps to a parameter"))
            .collect();
        present.sort_by_key(|param| param_position(name, form, namespace, param));
        let optional_values = values.split_off(values.len().saturating_sub(present.len()));
        let named_positional = b.get("positional").map(str_list).unwrap_or_default();
        let mut positional: Vec<Value> = named_positional
            .iter()
            .map(|n| c.args.get(*n).map_or(Value::None, value))
            .collect();
        let rename = b.get("rename").and_then(Json::as_object);
        let mut keywords = Keywords::default();
        for (name, v) in &c.args {
            if name == "seed"
                || flags.contains(&name.as_str())
                || named_positional.contains(&name.as_str())
            {
                continue;
            }
            let to = rename.and_then(|r| r.get(name)).and_then(Json::as_str);
            keywords.set(to.unwrap_or(name.as_str()), value(v));
        }
        for (name, v) in b
            .get("fixed")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
        {
            keywords.set(name, value(v));
        }
        for (param, v) in present.iter().zip(optional_values) {
            keywords.set(param, v);
        }
        let mut this = None;
        match b.get("inputs") {
            Some(Json::String(s)) if s == "list" => positional.insert(0, Value::List(values)),
            Some(Json::Array(names)) => {
                for (name, v) in names.iter().zip(values) {
                    match name.as_str().unwrap_or_default() {
                        "self" => this = Some(v),
                        name => keywords.set(name, v),
                    }
                }
            }
            _ if form == "function" => positional = [values, positional].concat(),
            _ => {
                let mut values = values.into_iter();
                this = values.next();
                positional = values.chain(positional).collect();
            }
        }
        outputs(invoke(
            name,
            form,
            this.as_ref(),
            positional,
            keywords,
            namespace,
        )?)
    }

    /// A `sequence` op: several calls whose outputs are concatenated, each with its keywords.
    fn sequence(&self, c: &Case, seq: &Json, values: &[Value]) -> Result<Vec<Tensor>, Failure> {
        let calls: Vec<(String, String, Keywords)> = match seq.get("calls") {
            Some(calls) => calls
                .as_array()
                .into_iter()
                .flatten()
                .map(|k| {
                    let mut kw = Keywords::default();
                    for (n, v) in k["args"].as_object().into_iter().flatten() {
                        kw.set(n, value(v));
                    }
                    (call_name(k), form_of(k), kw)
                })
                .collect(),
            None => {
                let over = seq["over"].as_str().unwrap_or_default();
                let as_ = seq["as"].as_str().unwrap_or_default();
                let items = c
                    .args
                    .get(over)
                    .and_then(Json::as_array)
                    .cloned()
                    .unwrap_or_default();
                items
                    .iter()
                    .map(|item| {
                        let mut kw = Keywords::default();
                        kw.set(as_, value(item));
                        (call_name(seq), form_of(seq), kw)
                    })
                    .collect()
            }
        };
        let mut out = Vec::new();
        for (name, form, kw) in calls {
            out.extend(outputs(invoke(
                &name,
                &form,
                values.first(),
                Vec::new(),
                kw,
                None,
            )?)?);
        }
        Ok(out)
    }
}

fn call_name(k: &Json) -> String {
    k["call"].as_str().unwrap_or_default().to_string()
}

fn form_of(k: &Json) -> String {
    k["form"].as_str().unwrap_or("method").to_string()
}
