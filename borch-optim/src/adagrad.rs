//! torch.optim.Adagrad (dense gradients): lr decay, weight decay, initial accumulator, maximize.

use std::collections::BTreeMap;

use borch_tensor::{Result, Tensor};

use crate::fused::{Slot, Template, f, launch};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;
use crate::value::{Reader, Value};

/// torch's `Adagrad`.
pub type Adagrad = Optim<AdagradOptions>;

const TEMPLATE: &str = include_str!("kernels/adagrad.wgsl");
const FLAGS: [&str; 2] = ["MAXIMIZE", "WEIGHT_DECAY"];

/// The options of an Adagrad param group; `Default` is torch's (`lr=1e-2`, `eps=1e-10`).
#[derive(Debug, Clone, PartialEq)]
pub struct AdagradOptions {
    pub lr: f64,
    pub lr_decay: f64,
    pub weight_decay: f64,
    /// As in torch, the optimizer's constructor value fills every parameter's `sum`, whatever a
    /// group says.
    pub initial_accumulator_value: f64,
    pub eps: f64,
    pub maximize: bool,
}

impl Default for AdagradOptions {
    fn default() -> Self {
        AdagradOptions {
            lr: 1e-2,
            lr_decay: 0.0,
            weight_decay: 0.0,
            initial_accumulator_value: 0.0,
            eps: 1e-10,
            maximize: false,
        }
    }
}

impl AdagradOptions {
    /// Options with `lr` and torch's other defaults.
    pub fn new(lr: f64) -> AdagradOptions {
        AdagradOptions {
            lr,
            ..Default::default()
        }
    }
    pub fn lr_decay(mut self, lr_decay: f64) -> Self {
        self.lr_decay = lr_decay;
        self
    }
    pub fn weight_decay(mut self, weight_decay: f64) -> Self {
        self.weight_decay = weight_decay;
        self
    }
    pub fn initial_accumulator_value(mut self, value: f64) -> Self {
        self.initial_accumulator_value = value;
        self
    }
    pub fn eps(mut self, eps: f64) -> Self {
        self.eps = eps;
        self
    }
    pub fn maximize(mut self, maximize: bool) -> Self {
        self.maximize = maximize;
        self
    }
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    crate::kernel_variants("adagrad", TEMPLATE, &FLAGS)
}

impl Hyper for AdagradOptions {
    const NAME: &'static str = "Adagrad";
    const MOMENTUM: MomentumKind = MomentumKind::None;

    fn lr(&self) -> f64 {
        self.lr
    }
    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }

    fn validate(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        crate::check_nonneg("lr_decay", self.lr_decay)?;
        crate::check_nonneg("weight_decay", self.weight_decay)?;
        crate::check_nonneg("initial_accumulator_value", self.initial_accumulator_value)?;
        crate::check_nonneg_as("epsilon value", self.eps)
    }

    fn to_map(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("lr".into(), self.lr.into()),
            ("lr_decay".into(), self.lr_decay.into()),
            ("eps".into(), self.eps.into()),
            ("weight_decay".into(), self.weight_decay.into()),
            (
                "initial_accumulator_value".into(),
                self.initial_accumulator_value.into(),
            ),
            ("maximize".into(), self.maximize.into()),
        ])
    }

    fn from_map(map: &BTreeMap<String, Value>) -> Result<Self> {
        let r = Reader(map);
        Ok(AdagradOptions {
            lr: r.f64("lr")?,
            lr_decay: r.f64("lr_decay")?,
            weight_decay: r.f64("weight_decay")?,
            initial_accumulator_value: r.f64("initial_accumulator_value")?,
            eps: r.f64("eps")?,
            maximize: r.bool("maximize")?,
        })
    }

    /// torch's Adagrad fills `sum` when the optimizer is made, so its state dict has it at once.
    fn init_state(defaults: &Self, param: &Tensor) -> Result<Option<ParamState>> {
        let mut state = ParamState::default();
        state.set_step(0.0);
        state.set_tensor("sum", param.full_like(defaults.initial_accumulator_value)?);
        Ok(Some(state))
    }

    fn update(
        &self,
        defaults: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let flags = [
            ("MAXIMIZE", self.maximize),
            ("WEIGHT_DECAY", self.weight_decay != 0.0),
        ];
        let template = Template {
            name: "adagrad",
            source: TEMPLATE,
            flags: &flags,
        };
        let sum = Slot::take(state, "sum", param)?;
        let step = state.step() + 1.0;
        let clr = self.lr / (1.0 + (step - 1.0) * self.lr_decay);
        let scalars = [
            f(clr),
            f(self.eps),
            f(self.weight_decay),
            f(defaults.initial_accumulator_value),
        ];
        launch(&template, param, grad, &[&sum], &scalars)?;
        state.set_step(step);
        sum.store(state);
        Ok(())
    }
}
