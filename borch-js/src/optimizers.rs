//! The JavaScript side of `optim` and `optim.lrScheduler`: options objects and parameter lists to
//! the catalog's options and param groups, state dicts to plain objects and back, and the
//! registries that let a scheduler find the optimizer (and SequentialLR its schedulers) it is
//! given. Every optimizer and scheduler is built by name in the core's catalogs
//! (`borch_optim::catalog`, `borch_optim::lr_scheduler::catalog`); every update and every
//! schedule is the core's.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

use borch_optim::lr_scheduler::{Scheduler, SchedulerArgs, SharedScheduler};
use borch_optim::{
    GroupState, Optimizer, Options, ParamState, Params, StateDict, StateValue, Value, catalog,
};
use borch_tensor::{BorchError, Tensor};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::bind::wrong_argument;
use borch_optim::lr_scheduler::SchedulerParam;

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
    /// torch's `optim.<name>(params, **options)`, built by the catalog.
    pub fn build(name: &str, params: &JsValue, options: &JsValue) -> JsResult<Opt> {
        let entry = catalog::find(name).map_err(to_js)?;
        let items = params_array(entry.name, params)?;
        let params = if is_group_list(&items) {
            let groups = items
                .iter()
                .map(|g| group(entry.name, g))
                .collect::<JsResult<Vec<_>>>()?;
            Params::Groups(groups)
        } else {
            Params::Tensors(tensor_list(entry.name, &items)?)
        };
        let options = options_of(entry.name, options)?;
        let optimizer = entry.build(params, &options).map_err(to_js)?;
        let inner: Shared = Rc::new(RefCell::new(optimizer));
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
    optimizer_at(name, 1, v)
}

/// The optimizer of a JavaScript optimizer object given as argument `position` of `name`.
pub fn optimizer_at(name: &str, position: usize, v: &JsValue) -> JsResult<Shared> {
    let found = LIVE.branded(v, OPTIMIZER_ID).and_then(|w| w.upgrade());
    found
        .ok_or_else(|| wrong_argument(name, position, "an optimizer (optim.SGD, optim.Adam, …)", v))
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

/// One param-group object: its tensors and its other entries (camelCase or snake_case keys).
fn group(name: &str, g: &JsValue) -> JsResult<(Vec<Tensor>, Options)> {
    let params = Reflect::get(g, &JsValue::from_str("params"))?;
    if params.is_undefined() {
        return Err(to_js(BorchError::Value(
            "parameter group didn't specify a value of required optimization parameter params"
                .into(),
        )));
    }
    let entries = crate::js::entries(g)?
        .into_iter()
        .filter(|(k, _)| k != "params")
        .map(|(k, v)| Ok((snake(&k), option_value(&v)?)))
        .collect::<JsResult<Options>>()?;
    Ok((tensor_list(name, &params_array(name, &params)?)?, entries))
}

/// The options object (camelCase keys) as the catalog's options, by torch's names.
fn options_of(name: &str, obj: &JsValue) -> JsResult<Options> {
    if obj.is_undefined() || obj.is_null() {
        return Ok(Options::new());
    }
    if !is_options(obj) {
        return Err(wrong_argument(name, 2, "an options object", obj));
    }
    dict_from(obj)
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
    if is_options(v) {
        // A nested dict (a child scheduler's state), keys as given.
        return dict_with_keys(v, str::to_string).map(Value::Dict);
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
        Value::Dict(d) => torch_dict_js(d).into(),
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

/// The property a scheduler object answers with its registry id.
pub const SCHEDULER_ID: &str = "__borchScheduler";

/// LambdaLR's and MultiplicativeLR's JavaScript functions, each with the scheduler that calls
/// it (its own, or a child of SequentialLR / ChainedScheduler).
type Lambdas = Vec<(Rc<JsLambda>, SharedScheduler)>;

/// What the scheduler registry holds of a live scheduler object.
#[derive(Clone)]
struct SchedRef {
    scheduler: std::rc::Weak<RefCell<Scheduler>>,
    optimizer: Weak<RefCell<Box<dyn Optimizer>>>,
    lambdas: Rc<Lambdas>,
}

thread_local! {
    static SCHEDULERS: RefCell<Registry<SchedRef>> = RefCell::default();
}

/// The scheduler of a JavaScript scheduler object; `None` for `null` / `undefined`.
pub fn scheduler_of(name: &str, position: usize, v: &JsValue) -> JsResult<Option<SharedScheduler>> {
    if v.is_null() || v.is_undefined() {
        return Ok(None);
    }
    let found = SCHEDULERS
        .branded(v, SCHEDULER_ID)
        .and_then(|r| r.scheduler.upgrade());
    found.map(Some).ok_or_else(|| {
        wrong_argument(
            name,
            position,
            "a learning-rate scheduler (optim.lrScheduler.StepLR, …) or null",
            v,
        )
    })
}

/// A scheduler of the catalog with the optimizer it steps.
pub struct Sched {
    pub id: u64,
    pub optimizer: Shared,
    pub inner: SharedScheduler,
    lambdas: Rc<Lambdas>,
}

impl Drop for Sched {
    fn drop(&mut self) {
        SCHEDULERS.unregister(self.id);
    }
}

fn sched_busy() -> JsValue {
    to_js(BorchError::Runtime(
        "this scheduler is in use by a call that has not returned".into(),
    ))
}

/// The arguments of `newScheduler(name, optimizer, args)` sorted for the catalog: values,
/// functions, child schedulers, and the optimizer ChainedScheduler may name.
#[derive(Default)]
struct Sorted {
    args: SchedulerArgs,
    /// The functions given to this scheduler.
    own: Vec<Rc<JsLambda>>,
    /// The child schedulers' functions.
    children: Lambdas,
    optimizer: Option<Shared>,
}

impl Sorted {
    /// Put `v`, the argument for parameter `param`, where the catalog takes it.
    fn take(
        &mut self,
        name: &str,
        param: &SchedulerParam,
        v: &JsValue,
        keyword: bool,
    ) -> JsResult<()> {
        match param.kind.as_str() {
            "Function" if v.is_undefined() || v.is_null() => {}
            "Function" => {
                let fns = crate::js::elements(v)?.unwrap_or_else(|| vec![v.clone()]);
                for f in fns {
                    let lambda = JsLambda::new(name, &f)?;
                    self.args.lr_lambdas.push(lambda.for_core());
                    self.own.push(lambda);
                }
            }
            "Schedulers" => {
                let items = crate::js::elements(v)?
                    .ok_or_else(|| wrong_argument(name, 2, "a list of schedulers", v))?;
                for item in items {
                    let found = SCHEDULERS.branded(&item, SCHEDULER_ID);
                    let r = found
                        .ok_or_else(|| wrong_argument(name, 2, "a list of schedulers", &item))?;
                    let child = r.scheduler.upgrade().ok_or_else(sched_busy)?;
                    self.children.extend(r.lambdas.iter().cloned());
                    if self.optimizer.is_none() {
                        self.optimizer = r.optimizer.upgrade();
                    }
                    self.args.schedulers.push(child);
                }
            }
            "Optimizer" if v.is_undefined() || v.is_null() => {}
            "Optimizer" => self.optimizer = Some(optimizer_of(name, v)?),
            _ if keyword => {
                self.args
                    .keywords
                    .insert(param.name.clone(), option_value(v)?);
            }
            _ => self.args.positional.push(option_value(v)?),
        }
        Ok(())
    }
}

/// The arguments after the optimizer: positional values, then an optional options object
/// (camelCase keys, or torch's own: `T_max`).
fn sort_arguments(name: &str, signature: &str, args: &Array) -> JsResult<Sorted> {
    let params = borch_optim::lr_scheduler::parse_signature(signature);
    let mut items: Vec<JsValue> = args.iter().collect();
    let keywords = match items.last() {
        Some(last) if is_options(last) && SCHEDULERS.branded(last, SCHEDULER_ID).is_none() => {
            crate::js::entries(&items.pop().unwrap_or_default())?
        }
        _ => Vec::new(),
    };
    let mut sorted = Sorted::default();
    if items.len() > params.len() {
        return Err(type_error(format!(
            "{name}() takes {} positional arguments but {} were given",
            params.len() + 1,
            items.len() + 1
        )));
    }
    for (param, v) in params.iter().zip(&items) {
        sorted.take(name, param, v, false)?;
    }
    for (key, v) in keywords {
        let key = snake(&key);
        // `tMax`, `T_max` and Python's camelCase `TMax` all name `T_max`.
        let norm = |k: &str| k.replace('_', "").to_lowercase();
        let param = params.iter().find(|p| norm(&p.name) == norm(&key));
        let param = param.ok_or_else(|| {
            type_error(format!(
                "{name}() got an unexpected keyword argument '{key}'"
            ))
        })?;
        sorted.take(name, param, &v, true)?;
    }
    Ok(sorted)
}

impl Sched {
    /// torch's `lr_scheduler.<name>(optimizer, *args, **kwargs)`, built by the catalog.
    pub fn build(name: &str, optimizer: &JsValue, args: &Array) -> JsResult<Sched> {
        let entry = borch_optim::lr_scheduler::catalog::find(name).map_err(to_js)?;
        let mut sorted = sort_arguments(entry.name, entry.signature, args)?;
        let shared = match sorted.optimizer.take() {
            Some(o) if optimizer.is_undefined() || optimizer.is_null() => o,
            _ => optimizer_of(entry.name, optimizer)?,
        };
        for lambda in &sorted.own {
            lambda.prepare(&[0])?;
        }
        let scheduler = {
            let mut o = borrow(&shared)?;
            entry.build(&mut **o, sorted.args).map_err(to_js)?
        };
        let inner: SharedScheduler = Rc::new(RefCell::new(scheduler));
        // A function given here belongs to this scheduler; a child's stays with its child.
        let mut lambdas: Lambdas = sorted.own.into_iter().map(|l| (l, inner.clone())).collect();
        lambdas.extend(sorted.children);
        let lambdas = Rc::new(lambdas);
        let id = SCHEDULERS.insert(SchedRef {
            scheduler: Rc::downgrade(&inner),
            optimizer: Rc::downgrade(&shared),
            lambdas: lambdas.clone(),
        });
        Ok(Sched {
            id,
            optimizer: shared,
            inner,
            lambdas,
        })
    }

    /// torch's `step()` (ReduceLROnPlateau's `step(metrics)`): each JavaScript function is
    /// called first for the epochs its scheduler may ask (the next one, and 0 for a restart).
    pub fn step(&self, metrics: &JsValue) -> JsResult<()> {
        for (lambda, owner) in self.lambdas.iter() {
            let next = owner.try_borrow().map_err(|_| sched_busy())?.last_epoch() + 1;
            lambda.prepare(&[next, 0])?;
        }
        let metrics = match option_value(metrics)? {
            Value::None => None,
            v => Some(v.as_f64().ok_or_else(|| {
                type_error(format!(
                    "step(): metrics must be a number, not {}",
                    crate::js::describe(metrics)
                ))
            })?),
        };
        let mut o = borrow(&self.optimizer)?;
        let mut s = self.inner.try_borrow_mut().map_err(|_| sched_busy())?;
        s.step(&mut **o, metrics).map_err(to_js)
    }

    /// Run `f` on the scheduler.
    pub fn with<R>(
        &self,
        f: impl FnOnce(&mut Scheduler) -> borch_tensor::Result<R>,
    ) -> JsResult<R> {
        let mut s = self.inner.try_borrow_mut().map_err(|_| sched_busy())?;
        f(&mut s).map_err(to_js)
    }

    /// torch's `state_dict()` under torch's own keys.
    pub fn state_dict(&self) -> JsResult<Object> {
        self.with(|s| s.state_dict().map(|d| torch_dict_js(&d)))
    }

    /// torch's `load_state_dict(state_dict)` from what `stateDict()` gave.
    pub fn load_state_dict(&self, obj: &JsValue) -> JsResult<()> {
        let dict = scheduler_dict("LRScheduler", obj)?;
        self.with(|s| s.load_state_dict(&dict))
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

/// The optimizer of a scheduler, borrowed.
pub fn borrow(shared: &Shared) -> JsResult<std::cell::RefMut<'_, Box<dyn Optimizer>>> {
    shared.try_borrow_mut().map_err(|_| busy())
}
