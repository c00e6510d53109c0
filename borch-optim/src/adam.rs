//! torch.optim.Adam: bias-corrected moments, amsgrad, L2 or decoupled weight decay, maximize.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result, Tensor};

use crate::fused::{Slot, Template, f, launch};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;
use crate::value::{Reader, Value};

/// torch's `Adam`.
pub type Adam = Optim<AdamOptions>;

const TEMPLATE: &str = include_str!("kernels/adam.wgsl");

/// The options of an Adam param group; `Default` is torch's.
#[derive(Debug, Clone, PartialEq)]
pub struct AdamOptions {
    pub lr: f64,
    pub betas: (f64, f64),
    pub eps: f64,
    pub weight_decay: f64,
    pub amsgrad: bool,
    pub maximize: bool,
    /// AdamW's weight decay (torch's `Adam(decoupled_weight_decay=True)`).
    pub decoupled_weight_decay: bool,
}

impl Default for AdamOptions {
    fn default() -> Self {
        AdamOptions {
            lr: 1e-3,
            betas: (0.9, 0.999),
            eps: 1e-8,
            weight_decay: 0.0,
            amsgrad: false,
            maximize: false,
            decoupled_weight_decay: false,
        }
    }
}

impl AdamOptions {
    /// Options with `lr` and torch's other defaults.
    pub fn new(lr: f64) -> AdamOptions {
        AdamOptions {
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
    pub fn decoupled_weight_decay(mut self, decoupled: bool) -> Self {
        self.decoupled_weight_decay = decoupled;
        self
    }

    pub(crate) fn check(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        crate::check_nonneg_as("epsilon value", self.eps)?;
        for (i, beta) in [self.betas.0, self.betas.1].into_iter().enumerate() {
            if !(0.0..1.0).contains(&beta) {
                return Err(BorchError::Value(format!(
                    "Invalid beta parameter at index {i}: {}",
                    crate::py_float(beta)
                )));
            }
        }
        crate::check_nonneg("weight_decay", self.weight_decay)
    }

    pub(crate) fn map(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("lr".into(), self.lr.into()),
            ("betas".into(), self.betas.into()),
            ("eps".into(), self.eps.into()),
            ("weight_decay".into(), self.weight_decay.into()),
            ("amsgrad".into(), self.amsgrad.into()),
            ("maximize".into(), self.maximize.into()),
            (
                "decoupled_weight_decay".into(),
                self.decoupled_weight_decay.into(),
            ),
        ])
    }

    pub(crate) fn read(map: &BTreeMap<String, Value>) -> Result<Self> {
        let r = Reader(map);
        Ok(AdamOptions {
            lr: r.f64("lr")?,
            betas: r.pair("betas")?,
            eps: r.f64("eps")?,
            weight_decay: r.f64("weight_decay")?,
            amsgrad: r.bool("amsgrad")?,
            maximize: r.bool("maximize")?,
            decoupled_weight_decay: r.bool("decoupled_weight_decay")?,
        })
    }

    /// One fused Adam step; torch's step counting and bias corrections on the host in f64.
    pub(crate) fn fused_step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let exp_avg = Slot::take(state, "exp_avg", param)?;
        let exp_avg_sq = Slot::take(state, "exp_avg_sq", param)?;
        let max_sq = match self.amsgrad {
            true => Some(Slot::take(state, "max_exp_avg_sq", param)?),
            false => None,
        };
        let step = state.step() + 1.0;
        let (beta1, beta2) = self.betas;
        let bias_correction1 = 1.0 - beta1.powf(step);
        let bias_correction2 = 1.0 - beta2.powf(step);
        let step_size = self.lr / bias_correction1;
        let bias_correction2_sqrt = bias_correction2.powf(0.5);
        let scalars = [
            f(step_size),
            f(bias_correction2_sqrt),
            f(self.eps),
            f(self.weight_decay),
            f(1.0 - self.lr * self.weight_decay),
            f(1.0 - beta1),
            f(beta2),
            f(1.0 - beta2),
        ];
        let flags = flags(self);
        let template = Template {
            name: "adam",
            source: TEMPLATE,
            flags: &flags,
        };
        let mut slots = vec![&exp_avg, &exp_avg_sq];
        slots.extend(max_sq.as_ref());
        launch(&template, param, grad, &slots, &scalars)?;
        state.set_step(step);
        exp_avg.store(state);
        exp_avg_sq.store(state);
        if let Some(m) = max_sq {
            m.store(state);
        }
        Ok(())
    }
}

fn flags(o: &AdamOptions) -> [(&'static str, bool); 4] {
    [
        ("MAXIMIZE", o.maximize),
        ("WEIGHT_DECAY", o.weight_decay != 0.0),
        ("DECOUPLED", o.decoupled_weight_decay),
        ("AMSGRAD", o.amsgrad),
    ]
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    crate::kernel_variants(
        "adam",
        TEMPLATE,
        &["MAXIMIZE", "WEIGHT_DECAY", "DECOUPLED", "AMSGRAD"],
    )
}

impl Hyper for AdamOptions {
    const NAME: &'static str = "Adam";
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
        self.check()
    }
    fn to_map(&self) -> BTreeMap<String, Value> {
        self.map()
    }
    fn from_map(map: &BTreeMap<String, Value>) -> Result<Self> {
        AdamOptions::read(map)
    }
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        self.fused_step(param, grad, state)
    }
}
