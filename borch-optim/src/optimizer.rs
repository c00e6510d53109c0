//! The `Optimizer` trait schedulers and training loops use, and `Optim<H>`, torch's `Optimizer`
//! base class over the options `H` of one algorithm.

use std::collections::{BTreeMap, HashMap};

use borch_tensor::{BorchError, Result, Tensor};

use crate::fused::{check_grad, check_param};
use crate::group::{Hyper, MomentumKind, ParamGroup};
use crate::state::{GroupState, ParamState, StateDict, StateValue, adopt};
use crate::value::Value;

/// What every optimizer offers, object-safe so schedulers take `&mut dyn Optimizer`.
pub trait Optimizer {
    /// torch's class name (`"Adam"`).
    fn name(&self) -> &'static str;
    /// One update of every parameter that has a `.grad` (one fused dispatch each).
    fn step(&mut self) -> Result<()>;
    /// torch's `step(closure)`: the loss `closure()` returns (computed with grad enabled), then
    /// the update; LBFGS calls the closure as often as it needs.
    fn step_with_closure(&mut self, closure: &mut crate::lbfgs::Closure<'_>) -> Result<f64> {
        let was = borch_tensor::set_grad_enabled(true);
        let loss = closure();
        borch_tensor::set_grad_enabled(was);
        let loss = loss?;
        self.step()?;
        Ok(loss)
    }
    /// torch's `zero_grad(set_to_none)`.
    fn zero_grad(&mut self, set_to_none: bool) -> Result<()>;
    /// `len(optimizer.param_groups)`.
    fn num_param_groups(&self) -> usize;
    /// `param_groups[group]["params"]`.
    fn group_params(&self, group: usize) -> &[Tensor];
    /// `param_groups[group]["lr"]`.
    fn lr(&self, group: usize) -> f64;
    /// Set `param_groups[group]["lr"]`.
    fn set_lr(&mut self, group: usize, lr: f64);
    /// Whether the groups have `momentum`, `betas`, or neither (torch's `defaults`).
    fn momentum_kind(&self) -> MomentumKind;
    /// `param_groups[group]["momentum"]` or `["betas"][0]`.
    fn momentum(&self, group: usize) -> Option<f64>;
    /// Set `param_groups[group]["momentum"]` or `["betas"][0]`.
    fn set_momentum(&mut self, group: usize, momentum: f64);
    /// A scheduler's entry of a group (`initial_lr`, `max_lr`, …), if set.
    fn group_extra(&self, group: usize, key: &str) -> Option<f64>;
    /// Set a scheduler's entry of a group.
    fn set_group_extra(&mut self, group: usize, key: &str, value: f64);
    /// `param_groups[group]` without `params`: the options and the schedulers' entries, by
    /// torch's names.
    fn group_options(&self, group: usize) -> Result<BTreeMap<String, Value>>;
    /// `param_groups[group][key] = value` (an option, or a scheduler's numeric entry).
    fn set_group_option(&mut self, group: usize, key: &str, value: Value) -> Result<()>;
    /// torch's `state_dict()`.
    fn state_dict(&self) -> StateDict;
    /// torch's `load_state_dict(state_dict)`.
    fn load_state_dict(&mut self, state_dict: &StateDict) -> Result<()>;
}

/// torch's `Optimizer` for the algorithm whose options are `H` (see the aliases `SGD`, `Adam`, …).
pub struct Optim<H: Hyper> {
    /// torch's `defaults`: the constructor's options, which groups added later start from.
    pub defaults: H,
    /// torch's `param_groups`.
    pub param_groups: Vec<ParamGroup<H>>,
    state: HashMap<u64, ParamState>,
}

impl<H: Hyper> Optim<H> {
    /// An optimizer over `params` with `defaults` (torch's `SGD(params, lr=…, …)`).
    pub fn new(params: Vec<Tensor>, defaults: H) -> Result<Optim<H>> {
        if params.is_empty() {
            return Err(BorchError::Value(
                "optimizer got an empty parameter list".into(),
            ));
        }
        Self::with_groups(vec![ParamGroup::new(params, defaults.clone())], defaults)
    }

    /// An optimizer over several groups, each with its own options (torch's list of dicts).
    pub fn with_groups(groups: Vec<ParamGroup<H>>, defaults: H) -> Result<Optim<H>> {
        defaults.validate()?;
        if groups.is_empty() {
            return Err(BorchError::Value(
                "optimizer got an empty parameter list".into(),
            ));
        }
        let mut opt = Optim {
            defaults,
            param_groups: Vec::new(),
            state: HashMap::new(),
        };
        for group in groups {
            opt.add_param_group(group)?;
        }
        Ok(opt)
    }

    /// torch's `add_param_group`.
    pub fn add_param_group(&mut self, group: ParamGroup<H>) -> Result<()> {
        group.options.validate()?;
        for p in &group.params {
            check_param(p)?;
        }
        let taken: Vec<u64> = self.params().map(Tensor::id).collect();
        if group.params.iter().any(|p| taken.contains(&p.id())) {
            return Err(BorchError::Value(
                "some parameters appear in more than one parameter group".into(),
            ));
        }
        for p in &group.params {
            if let Some(state) = H::init_state(&self.defaults, p)? {
                self.state.insert(p.id(), state);
            }
        }
        self.param_groups.push(group);
        Ok(())
    }

    /// Every parameter, group by group.
    pub fn params(&self) -> impl Iterator<Item = &Tensor> {
        self.param_groups.iter().flat_map(|g| g.params.iter())
    }

    /// torch's `optimizer.state[param]`, if the parameter has state.
    pub fn state(&self, param: &Tensor) -> Option<&ParamState> {
        self.state.get(&param.id())
    }
}

impl<H: Hyper> Optimizer for Optim<H> {
    fn name(&self) -> &'static str {
        H::NAME
    }

    fn step(&mut self) -> Result<()> {
        for group in &self.param_groups {
            for p in &group.params {
                let Some(grad) = p.grad() else { continue };
                check_param(p)?;
                let grad = check_grad(p, &grad)?;
                let state = self.state.entry(p.id()).or_default();
                group.options.update(&self.defaults, p, &grad, state)?;
            }
        }
        Ok(())
    }

    fn zero_grad(&mut self, set_to_none: bool) -> Result<()> {
        zero_grads(self.params(), set_to_none)
    }

    fn num_param_groups(&self) -> usize {
        self.param_groups.len()
    }

    fn group_params(&self, group: usize) -> &[Tensor] {
        &self.param_groups[group].params
    }

    fn lr(&self, group: usize) -> f64 {
        self.param_groups[group].options.lr()
    }

    fn set_lr(&mut self, group: usize, lr: f64) {
        self.param_groups[group].options.set_lr(lr);
    }

    fn momentum_kind(&self) -> MomentumKind {
        H::MOMENTUM
    }

    fn momentum(&self, group: usize) -> Option<f64> {
        self.param_groups[group].options.momentum()
    }

    fn set_momentum(&mut self, group: usize, momentum: f64) {
        self.param_groups[group].options.set_momentum(momentum);
    }

    fn group_extra(&self, group: usize, key: &str) -> Option<f64> {
        self.param_groups[group].extra.get(key).copied()
    }

    fn set_group_extra(&mut self, group: usize, key: &str, value: f64) {
        self.param_groups[group].extra.insert(key.into(), value);
    }

    fn group_options(&self, group: usize) -> Result<BTreeMap<String, Value>> {
        let g = self
            .param_groups
            .get(group)
            .ok_or_else(group_out_of_range)?;
        let mut options = g.options.to_map();
        for (k, v) in &g.extra {
            options.insert(k.clone(), Value::Float(*v));
        }
        Ok(options)
    }

    fn set_group_option(&mut self, group: usize, key: &str, value: Value) -> Result<()> {
        let g = self
            .param_groups
            .get_mut(group)
            .ok_or_else(group_out_of_range)?;
        let mut options = g.options.to_map();
        if options.contains_key(key) {
            options.insert(key.to_string(), value);
            g.options = H::from_map(&options)?;
            return Ok(());
        }
        match (key, value.as_f64()) {
            ("params", _) => Err(BorchError::NotImplemented(
                "replacing a param group's 'params' is not supported by borch; make a new \
                 optimizer (or use add_param_group)"
                    .into(),
            )),
            (_, Some(x)) => {
                g.extra.insert(key.to_string(), x);
                Ok(())
            }
            (_, None) => Err(BorchError::NotImplemented(format!(
                "param group entry '{key}': borch keeps only numbers besides the {} options",
                H::NAME
            ))),
        }
    }

    fn state_dict(&self) -> StateDict {
        let mut index: HashMap<u64, usize> = HashMap::new();
        let mut param_groups = Vec::new();
        let mut start = 0;
        for group in &self.param_groups {
            let mut options = group.options.to_map();
            for (k, v) in &group.extra {
                options.insert(k.clone(), Value::Float(*v));
            }
            let mut ids = Vec::new();
            for (i, p) in group.params.iter().enumerate() {
                let i = *index.entry(p.id()).or_insert(start + i);
                ids.push(i);
            }
            start += group.params.len();
            param_groups.push(GroupState {
                options,
                params: ids,
            });
        }
        let mut state = BTreeMap::new();
        for p in self.params() {
            if let Some(s) = self.state.get(&p.id()).filter(|s| !s.is_empty()) {
                state.insert(index[&p.id()], s.clone());
            }
        }
        StateDict {
            state,
            param_groups,
        }
    }

    fn load_state_dict(&mut self, state_dict: &StateDict) -> Result<()> {
        let saved = &state_dict.param_groups;
        if saved.len() != self.param_groups.len() {
            return Err(BorchError::Value(
                "loaded state dict has a different number of parameter groups".into(),
            ));
        }
        if saved
            .iter()
            .zip(&self.param_groups)
            .any(|(s, g)| s.params.len() != g.params.len())
        {
            return Err(BorchError::Value(
                "loaded state dict contains a parameter group that doesn't match the size of \
                 optimizer's group"
                    .into(),
            ));
        }
        let mut options = Vec::new();
        for s in saved {
            let opts = H::from_map(&s.options)?;
            let known = opts.to_map();
            let extra: BTreeMap<String, f64> = s
                .options
                .iter()
                .filter(|(k, _)| !known.contains_key(*k))
                .filter_map(|(k, v)| v.as_f64().map(|x| (k.clone(), x)))
                .collect();
            options.push((opts, extra));
        }
        let id_map: HashMap<usize, &Tensor> = saved
            .iter()
            .flat_map(|s| s.params.iter().copied())
            .zip(self.params())
            .collect();
        let mut state = HashMap::new();
        for (index, saved_state) in &state_dict.state {
            let Some(param) = id_map.get(index) else {
                continue;
            };
            let mut loaded = ParamState::default();
            for (key, value) in &saved_state.entries {
                let value = match value {
                    StateValue::Tensor(t) => StateValue::Tensor(adopt(param, key, t)?),
                    StateValue::Step(s) => StateValue::Step(*s),
                };
                loaded.entries.insert(key.clone(), value);
            }
            state.insert(param.id(), loaded);
        }
        self.state = state;
        for (group, (opts, extra)) in self.param_groups.iter_mut().zip(options) {
            group.options = opts;
            group.extra = extra;
        }
        Ok(())
    }
}

/// torch's `zero_grad(set_to_none)` over `params`.
pub(crate) fn zero_grads<'a>(
    params: impl IntoIterator<Item = &'a Tensor>,
    set_to_none: bool,
) -> Result<()> {
    for p in params {
        let Some(grad) = p.grad() else { continue };
        if set_to_none {
            p.set_grad(None);
        } else {
            grad.set_requires_grad(false)?;
            grad.zero_()?;
        }
    }
    Ok(())
}

/// Python's error for `param_groups[i]` past the end.
fn group_out_of_range() -> BorchError {
    BorchError::Index("list index out of range".into())
}
