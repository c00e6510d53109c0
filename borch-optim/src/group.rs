//! Param groups: parameters with their own options, as torch's `optimizer.param_groups`.

use std::collections::BTreeMap;

use borch_tensor::{Result, Tensor};

use crate::state::ParamState;
use crate::value::Value;

/// Which group option torch's OneCycleLR cycles: `momentum` (SGD, RMSprop), `betas[0]` (Adam,
/// AdamW), or none (Adagrad).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MomentumKind {
    /// Nothing to cycle (Adagrad and the like).
    None,
    /// The `momentum` option (SGD, RMSprop).
    Momentum,
    /// `betas[0]` (Adam, AdamW and the like).
    Beta1,
}

/// What `declare_options!` writes for an options struct: its map, read back, its `lr` and its
/// option list, so `Hyper`'s own methods default to them.
pub trait Declared: Sized {
    /// The options as a `param_groups` entry's map, by torch's names.
    fn declared_map(&self) -> BTreeMap<String, Value>;
    /// The options read back from such a map (missing keys take torch's defaults).
    fn declared_read(map: &BTreeMap<String, Value>) -> Result<Self>;
    /// The `lr` option.
    fn declared_lr(&self) -> f64;
    /// Set the `lr` option.
    fn declared_set_lr(&mut self, lr: f64);
    /// torch's keywords with their kinds and defaults, in torch's order.
    fn specs() -> Vec<crate::options::OptionSpec>;
}

/// The options of one algorithm (one param group's hyperparameters) and its fused update.
pub trait Hyper: Declared + Clone + std::fmt::Debug + 'static {
    /// torch's class name.
    const NAME: &'static str;
    /// The group option schedulers that cycle momentum change.
    const MOMENTUM: MomentumKind;

    /// The keyword-only flags torch's constructor also takes, with their defaults
    /// (`("foreach", "None")`); the catalog accepts them (`capturable` and `differentiable`
    /// only when False).
    const FLAGS: &'static [(&'static str, &'static str)] = &[];

    /// The `lr` option.
    fn lr(&self) -> f64 {
        self.declared_lr()
    }
    /// Set the `lr` option (what schedulers do).
    fn set_lr(&mut self, lr: f64) {
        self.declared_set_lr(lr)
    }
    /// `momentum` or `betas[0]`, per `MOMENTUM`.
    fn momentum(&self) -> Option<f64> {
        None
    }
    /// Set `momentum` or `betas[0]`, per `MOMENTUM` (nothing for `MomentumKind::None`).
    fn set_momentum(&mut self, _momentum: f64) {}
    /// torch's constructor checks (`ValueError: Invalid learning rate: -1.0`, …).
    fn validate(&self) -> Result<()>;
    /// The group's entries as in torch's `param_groups[i]` (without `params`).
    fn to_map(&self) -> BTreeMap<String, Value> {
        self.declared_map()
    }
    /// Options from a saved group's entries.
    fn from_map(map: &BTreeMap<String, Value>) -> Result<Self> {
        Self::declared_read(map)
    }
    /// State made when a parameter joins the optimizer (torch's Adagrad does this), else none.
    fn init_state(_defaults: &Self, _param: &Tensor) -> Result<Option<ParamState>> {
        Ok(None)
    }
    /// One fused step of `param` from `grad` (contiguous, same shape), creating state on first
    /// use. `defaults` are the optimizer's constructor options.
    fn update(
        &self,
        defaults: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()>;
}

/// One param group: its parameters, its options, and the entries schedulers add to torch's group
/// dict (`initial_lr`, `max_lr`, `min_lr`, `max_momentum`, `base_momentum`).
#[derive(Clone)]
pub struct ParamGroup<H> {
    /// The group's parameters.
    pub params: Vec<Tensor>,
    /// The group's options.
    pub options: H,
    /// The entries schedulers add, by torch's names.
    pub extra: BTreeMap<String, f64>,
}

impl<H> ParamGroup<H> {
    /// A group of `params` with `options`.
    pub fn new(params: Vec<Tensor>, options: H) -> ParamGroup<H> {
        ParamGroup {
            params,
            options,
            extra: BTreeMap::new(),
        }
    }
}
