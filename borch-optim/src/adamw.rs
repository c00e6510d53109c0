//! torch.optim.AdamW: Adam with decoupled weight decay (default 1e-2).

use std::collections::BTreeMap;

use borch_tensor::{Result, Tensor};

use crate::adam::AdamOptions;
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;
use crate::value::Value;

/// torch's `AdamW`.
pub type AdamW = Optim<AdamWOptions>;

/// The options of an AdamW param group; `Default` is torch's (`weight_decay=1e-2`).
#[derive(Debug, Clone, PartialEq)]
pub struct AdamWOptions {
    pub lr: f64,
    pub betas: (f64, f64),
    pub eps: f64,
    pub weight_decay: f64,
    pub amsgrad: bool,
    pub maximize: bool,
}

impl Default for AdamWOptions {
    fn default() -> Self {
        AdamWOptions {
            lr: 1e-3,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 1e-2,
            amsgrad: false,
            maximize: false,
        }
    }
}

impl AdamWOptions {
    /// Options with `lr` and torch's other defaults.
    pub fn new(lr: f64) -> AdamWOptions {
        AdamWOptions {
            lr,
            ..Default::default()
        }
    }
    pub fn betas(mut self, beta1: f64, beta2: f64) -> Self {
        self.betas = (beta1, beta2);
        self
    }
    pub fn eps(mut self, eps: f64) -> Self {
        self.eps = eps;
        self
    }
    pub fn weight_decay(mut self, weight_decay: f64) -> Self {
        self.weight_decay = weight_decay;
        self
    }
    pub fn amsgrad(mut self, amsgrad: bool) -> Self {
        self.amsgrad = amsgrad;
        self
    }
    pub fn maximize(mut self, maximize: bool) -> Self {
        self.maximize = maximize;
        self
    }

    fn adam(&self) -> AdamOptions {
        AdamOptions {
            lr: self.lr,
            betas: self.betas,
            eps: self.eps,
            weight_decay: self.weight_decay,
            amsgrad: self.amsgrad,
            maximize: self.maximize,
            decoupled_weight_decay: true,
        }
    }
}

impl Hyper for AdamWOptions {
    const NAME: &'static str = "AdamW";
    const MOMENTUM: MomentumKind = MomentumKind::Beta1;

    fn lr(&self) -> f64 {
        self.lr
    }
    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }
    fn momentum(&self) -> Option<f64> {
        Some(self.betas.0)
    }
    fn set_momentum(&mut self, momentum: f64) {
        self.betas.0 = momentum;
    }
    fn validate(&self) -> Result<()> {
        self.adam().check()
    }
    fn to_map(&self) -> BTreeMap<String, Value> {
        self.adam().map()
    }
    fn from_map(map: &BTreeMap<String, Value>) -> Result<Self> {
        // torch's AdamW.__setstate__ forces decoupled weight decay whatever was saved.
        let mut map = map.clone();
        map.insert("decoupled_weight_decay".into(), Value::Bool(true));
        let a = AdamOptions::read(&map)?;
        Ok(AdamWOptions {
            lr: a.lr,
            betas: a.betas,
            eps: a.eps,
            weight_decay: a.weight_decay,
            amsgrad: a.amsgrad,
            maximize: a.maximize,
        })
    }
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        self.adam().fused_step(param, grad, state)
    }
}
