//! The JavaScript side of `optim` and `optim.lrScheduler`: options objects and parameter lists to
//! the core's options and param groups, state dicts to plain objects and back, and the registry
//! that lets a scheduler find the optimizer object it is given. Every update and every schedule
//! is the core's (`borch_optim`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

use borch_optim::lr_scheduler::{LRScheduler, SchedulerState};
use borch_optim::{
    GroupState, Hyper, Optim, Optimizer, ParamGroup, ParamState, StateDict, StateValue, Value,
};
use borch_tensor::{BorchError, Tensor};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::bind::wrong_argument;
use crate::call::{is_options, snake, value};
use crate::errors::{JsResult, to_js, type_error};
use crate::lambda::JsLambda;
use crate::registry::{Live, Registry};
use crate::tensor::JsTensor;

/// The property an optimizer object answers with its registry id.
pub const OPTIMIZER_ID: &str = "__borchOptimizer";

/// An optimizer shared by its JavaScript object and the schedulers attached to it.
pub type Shared = Rc<RefCell<Box<dyn Optimizer>>>;

/// What the registry holds of a live optimizer object: its optimizer, without keeping it alive.
type Registered = Weak<RefCell<Box<dyn Optimizer>>>;

thread_local! {
    static LIVE: RefCell<Registry<Registered>> = RefCell::default();
}

/// A JavaScript optimizer object's optimizer.
pub struct Opt {
    pub id: u64,
    pub inner: Shared,
}

impl Drop for Opt {
    fn drop(&mut self) {
        LIVE.unregister(self.id);
    }
}

fn busy() -> JsValue {
    to_js(BorchError::Runtime(
        "this optimizer is in use by a call that has not returned".into(),
    ))
}

impl Opt {
    /// torch's `Optimizer(params, **options)` for the algorithm of `H`.
    pub fn build<H: Hyper + Default>(
        name: &str,
        params: &JsValue,
        options: &JsValue,
    ) -> JsResult<Opt> {
        let defaults = hyper(name, &H::default(), options, false)?;
        let items = params_array(name, params)?;
        let optimizer: Optim<H> = if is_group_list(&items) {
            let groups = items
                .iter()
                .map(|g| group(name, &defaults, g))
                .collect::<JsResult<Vec<_>>>()?;
            Optim::with_groups(groups, defaults).map_err(to_js)?
        } else {
            Optim::new(tensor_list(name, &items)?, defaults).map_err(to_js)?
        };
        let inner: Shared = Rc::new(RefCell::new(Box::new(optimizer)));
        let id = LIVE.insert(Rc::downgrade(&inner));
        Ok(Opt { id, inner })
    }

    /// Run `f` on the optimizer.
    pub fn with<R>(
        &self,
        f: impl FnOnce(&mut dyn Optimizer) -> borch_tensor::Result<R>,
    ) -> JsResult<R> {
        let mut o = self.inner.try_borrow_mut().map_err(|_| busy())?;
        f(&mut **o).map_err(to_js)
    }

    /// torch's `load_state_dict(state_dict)` from the plain object `stateDict()` returns.
    pub fn load_state_dict(&self, obj: &JsValue) -> JsResult<()> {
        let sd = state_dict_from(obj)?;
        self.with(|o| o.load_state_dict(&sd))
    }
}

/// The optimizer of a JavaScript optimizer object.
pub fn optimizer_of(name: &str, v: &JsValue) -> JsResult<Shared> {
    let found = LIVE.branded(v, OPTIMIZER_ID).and_then(|w| w.upgrade());
    found.ok_or_else(|| wrong_argument(name, 1, "an optimizer (optim.SGD, optim.Adam, …)", v))
}

/// A list of param-group objects (`[{ params: [...], lr: 0.1 }, …]`) rather than of tensors.
fn is_group_list(items: &[JsValue]) -> bool {
    items.first().is_some_and(is_options)
}

fn tensor_list(name: &str, items: &[JsValue]) -> JsResult<Vec<Tensor>> {
    items
        .iter()
        .map(|t| match value(t)? {
            borch_tensor::api::Value::Tensor(t) => Ok(t),
            other => Err(type_error(format!(
                "{name}(): params must be Tensors or param-group objects, not {}",
                other.type_name()
            ))),
        })
        .collect()
}

/// The elements of the array argument `params`.
fn params_array(name: &str, v: &JsValue) -> JsResult<Vec<JsValue>> {
    crate::js::elements(v)?.ok_or_else(|| wrong_argument(name, 1, "an array of Tensors", v))
}

fn group<H: Hyper>(name: &str, defaults: &H, g: &JsValue) -> JsResult<ParamGroup<H>> {
    let params = Reflect::get(g, &JsValue::from_str("params"))?;
    if params.is_undefined() {
        return Err(to_js(BorchError::Value(
            "parameter group didn't specify a value of required optimization parameter params"
                .into(),
        )));
    }
    Ok(ParamGroup::new(
        tensor_list(name, &params_array(name, &params)?)?,
        hyper(name, defaults, g, true)?,
    ))
}

/// `base` with the entries of the options object `obj` (camelCase keys) set.
fn hyper<H: Hyper>(name: &str, base: &H, obj: &JsValue, in_group: bool) -> JsResult<H> {
    if obj.is_undefined() || obj.is_null() {
        return Ok(base.clone());
    }
    if !is_options(obj) {
        return Err(wrong_argument(name, 2, "an options object", obj));
    }
    let mut map = base.to_map();
    for (key, v) in crate::js::entries(obj)? {
        let key = snake(&key);
        if in_group && key == "params" {
            continue;
        }
        if !map.contains_key(&key) {
            return Err(type_error(format!(
                "{name}() got an unexpected keyword argument '{key}'"
            )));
        }
        map.insert(key, option_value(&v)?);
    }
    H::from_map(&map).map_err(to_js)
}

pub fn option_value(v: &JsValue) -> JsResult<Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::None);
    }
    if let Some(b) = v.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(x) = v.as_f64().or_else(|| crate::call::marked_float(v)) {
        return Ok(Value::Float(x));
    }
    if let Some(s) = v.as_string() {
        return Ok(Value::Str(s));
    }
    if let Some(items) = crate::js::elements(v)? {
        return items
            .iter()
            .map(option_value)
            .collect::<JsResult<_>>()
            .map(Value::List);
    }
    Err(type_error(format!(
        "an optimizer option must be a number, boolean, string or array, not {}",
        crate::js::type_name(v)
    )))
}

/// A dict of torch's names (an optimizer's param group) as a plain object with camelCase keys.
pub fn dict_js(dict: &BTreeMap<String, Value>) -> Object {
    object_with_keys(dict, camel)
}

/// A plain object (camelCase or snake_case keys) as a dict of torch's names.
pub fn dict_from(obj: &JsValue) -> JsResult<BTreeMap<String, Value>> {
    dict_with_keys(obj, snake)
}

/// A scheduler's state as a plain object keyed by torch's own attribute names (`T_max`,
/// `_step_count`): torch's `state_dict()` key for key, which camelCase could not round-trip.
pub fn torch_dict_js(dict: &BTreeMap<String, Value>) -> Object {
    object_with_keys(dict, str::to_string)
}

fn object_with_keys(dict: &BTreeMap<String, Value>, key: fn(&str) -> String) -> Object {
    let obj = Object::new();
    for (k, v) in dict {
        set(&obj, &key(k), &value_js(v));
    }
    obj
}

fn dict_with_keys(obj: &JsValue, key: fn(&str) -> String) -> JsResult<BTreeMap<String, Value>> {
    entries(obj)?
        .into_iter()
        .map(|(k, v)| Ok((key(&k), option_value(&v)?)))
        .collect()
}

pub fn value_js(v: &Value) -> JsValue {
    match v {
        Value::Float(x) => JsValue::from_f64(*x),
        Value::Int(i) => JsValue::from_f64(*i as f64),
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Str(s) => JsValue::from_str(s),
        Value::List(items) => items.iter().map(value_js).collect::<Array>().into(),
        Value::None => JsValue::NULL,
    }
}

/// `exp_avg` → `expAvg`.
fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn set(obj: &Object, key: &str, v: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), v);
}

/// torch's optimizer state dict as `{ state: { 0: { step, expAvg, … } }, paramGroups: [{ lr, …,
/// params: [0, 1] }] }` (camelCase keys; `loadStateDict` also takes torch's snake_case).
pub fn state_dict_js(sd: StateDict) -> Object {
    let state = Object::new();
    for (index, s) in &sd.state {
        let entry = Object::new();
        for (k, v) in &s.entries {
            let v = match v {
                StateValue::Tensor(t) => JsTensor::from(t.clone()).into(),
                StateValue::Step(n) => JsValue::from_f64(*n),
            };
            set(&entry, &camel(k), &v);
        }
        set(&state, &index.to_string(), &entry.into());
    }
    let groups: Array = sd
        .param_groups
        .iter()
        .map(|g| {
            let obj = dict_js(&g.options);
            let params: Array = g
                .params
                .iter()
                .map(|&i| JsValue::from_f64(i as f64))
                .collect();
            set(&obj, "params", &params.into());
            JsValue::from(obj)
        })
        .collect();
    let out = Object::new();
    set(&out, "state", &state.into());
    set(&out, "paramGroups", &groups.into());
    out
}

fn entries(obj: &JsValue) -> JsResult<Vec<(String, JsValue)>> {
    if !obj.is_object() {
        return Ok(Vec::new());
    }
    crate::js::entries(obj)
}

fn malformed(what: &str) -> JsValue {
    type_error(format!("loadStateDict(): {what}"))
}

fn state_dict_from(obj: &JsValue) -> JsResult<StateDict> {
    if !is_options(obj) {
        return Err(wrong_argument(
            "load_state_dict",
            1,
            "an optimizer state dict",
            obj,
        ));
    }
    let mut sd = StateDict::default();
    for (index, entry) in entries(&Reflect::get(obj, &"state".into())?)? {
        let index: usize = index
            .parse()
            .map_err(|_| malformed("state keys must be parameter indices"))?;
        let mut s = ParamState::default();
        for (k, v) in entries(&entry)? {
            let v = match (v.as_f64(), value(&v)?) {
                (Some(n), _) => StateValue::Step(n),
                (None, borch_tensor::api::Value::Tensor(t)) => StateValue::Tensor(t),
                _ => return Err(malformed("state values must be numbers or Tensors")),
            };
            s.entries.insert(snake(&k), v);
        }
        sd.state.insert(index, s);
    }
    let mut groups = Reflect::get(obj, &"paramGroups".into())?;
    if groups.is_undefined() {
        groups = Reflect::get(obj, &"param_groups".into())?;
    }
    let groups =
        crate::js::elements(&groups)?.ok_or_else(|| malformed("paramGroups must be an array"))?;
    for g in groups {
        let mut options = dict_from(&g)?;
        let params = match options.remove("params") {
            Some(Value::List(ids)) => ids
                .iter()
                .map(|i| i.as_f64().map(|i| i as usize))
                .collect::<Option<Vec<_>>>(),
            _ => None,
        }
        .ok_or_else(|| malformed("params must be parameter indices"))?;
        sd.param_groups.push(GroupState { options, params });
    }
    Ok(sd)
}

/// Learning rates as a JavaScript array.
pub fn numbers(v: Vec<f64>) -> Array {
    v.into_iter().map(JsValue::from_f64).collect()
}

/// An epoch-driven scheduler with the optimizer it steps.
pub struct Sched {
    pub optimizer: Shared,
    pub inner: Box<dyn LRScheduler>,
    /// LambdaLR's function, called before each step (`lambda.rs`).
    lambda: Option<Rc<JsLambda>>,
}

impl Sched {
    /// Attach a scheduler made by `f` to the optimizer object `optimizer`.
    pub fn build(
        name: &str,
        optimizer: &JsValue,
        f: impl FnOnce(&mut dyn Optimizer) -> JsResult<Box<dyn LRScheduler>>,
    ) -> JsResult<Sched> {
        let shared = optimizer_of(name, optimizer)?;
        let inner = f(&mut **shared.try_borrow_mut().map_err(|_| busy())?)?;
        Ok(Sched {
            optimizer: shared,
            inner,
            lambda: None,
        })
    }

    /// torch's `LambdaLR(optimizer, lr_lambda)` over a JavaScript function of the epoch.
    pub fn lambda(name: &str, optimizer: &JsValue, f: &JsValue) -> JsResult<Sched> {
        let lambda = JsLambda::new(f)?;
        lambda.prepare(0)?;
        let mut sched = Sched::build(name, optimizer, |o| {
            let factor = lambda.for_core();
            borch_optim::lr_scheduler::LambdaLR::new(o, move |epoch| factor(epoch))
                .map(|s| Box::new(s) as Box<dyn LRScheduler>)
                .map_err(to_js)
        })?;
        sched.lambda = Some(lambda);
        Ok(sched)
    }

    /// torch's `scheduler.step()`.
    pub fn step(&mut self) -> JsResult<()> {
        if let Some(lambda) = &self.lambda {
            lambda.prepare(self.inner.last_epoch() + 1)?;
        }
        let mut o = self.optimizer.try_borrow_mut().map_err(|_| busy())?;
        self.inner.step(&mut **o).map_err(to_js)
    }

    /// torch's `scheduler.load_state_dict(state_dict)` from what `stateDict()` gave.
    pub fn load_state_dict(&mut self, obj: &JsValue) -> JsResult<()> {
        let dict = scheduler_dict("LRScheduler", obj)?;
        let state = SchedulerState::from_map(&dict).map_err(to_js)?;
        self.inner.load_state_dict(&state).map_err(to_js)
    }
}

/// A scheduler's state dict object (torch's keys) as a dict.
pub fn scheduler_dict(name: &str, obj: &JsValue) -> JsResult<BTreeMap<String, Value>> {
    if !is_options(obj) {
        return Err(wrong_argument(
            &format!("{name}.load_state_dict"),
            1,
            "a scheduler state dict",
            obj,
        ));
    }
    dict_with_keys(obj, str::to_string)
}

/// The optimizer of a plateau scheduler, borrowed.
pub fn borrow(shared: &Shared) -> JsResult<std::cell::RefMut<'_, Box<dyn Optimizer>>> {
    shared.try_borrow_mut().map_err(|_| busy())
}

/// OneCycleLR's `anneal_strategy`.
pub fn anneal_strategy(s: &str) -> borch_tensor::Result<borch_optim::lr_scheduler::AnnealStrategy> {
    use borch_optim::lr_scheduler::AnnealStrategy;
    match s {
        "cos" => Ok(AnnealStrategy::Cos),
        "linear" => Ok(AnnealStrategy::Linear),
        other => Err(BorchError::Value(format!(
            "anneal_strategy must be one of 'cos' or 'linear', instead got {other}"
        ))),
    }
}
