//! torch.optim.RMSprop: centered, momentum, weight decay, maximize.

use std::collections::BTreeMap;

use borch_tensor::{Result, Tensor};

use crate::fused::{Slot, Template, f, launch};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;
use crate::value::{Reader, Value};

/// torch's `RMSprop`.
pub type RMSprop = Optim<RMSpropOptions>;

const TEMPLATE: &str = include_str!("kernels/rmsprop.wgsl");
const FLAGS: [&str; 4] = ["MAXIMIZE", "WEIGHT_DECAY", "CENTERED", "MOMENTUM"];

/// The options of an RMSprop param group; `Default` is torch's (`lr=1e-2`, `alpha=0.99`).
#[derive(Debug, Clone, PartialEq)]
pub struct RMSpropOptions {
    pub lr: f64,
    pub alpha: f64,
    pub eps: f64,
    pub weight_decay: f64,
    pub momentum: f64,
    pub centered: bool,
    pub maximize: bool,
}

impl Default for RMSpropOptions {
    fn default() -> Self {
        RMSpropOptions {
            lr: 1e-2,
            alpha: 0.99,
            eps: 1e-8,
            weight_decay: 0.0,
            momentum: 0.0,
            centered: false,
            maximize: false,
        }
    }
}

impl RMSpropOptions {
    /// Options with `lr` and torch's other defaults.
    pub fn new(lr: f64) -> RMSpropOptions {
        RMSpropOptions {
            lr,
            ..Default::default()
        }
    }
    pub fn alpha(mut self, alpha: f64) -> Self {
        self.alpha = alpha;
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
    pub fn momentum(mut self, momentum: f64) -> Self {
        self.momentum = momentum;
        self
    }
    pub fn centered(mut self, centered: bool) -> Self {
        self.centered = centered;
        self
    }
    pub fn maximize(mut self, maximize: bool) -> Self {
        self.maximize = maximize;
        self
    }
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    crate::kernel_variants("rmsprop", TEMPLATE, &FLAGS)
}

impl Hyper for RMSpropOptions {
    const NAME: &'static str = "RMSprop";
    const MOMENTUM: MomentumKind = MomentumKind::Momentum;

    fn lr(&self) -> f64 {
        self.lr
    }
    fn set_lr(&mut self, lr: f64) {
        self.lr = lr;
    }
    fn momentum(&self) -> Option<f64> {
        Some(self.momentum)
    }
    fn set_momentum(&mut self, momentum: f64) {
        self.momentum = momentum;
    }

    fn validate(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        crate::check_nonneg_as("epsilon value", self.eps)?;
        crate::check_nonneg("momentum", self.momentum)?;
        crate::check_nonneg("weight_decay", self.weight_decay)?;
        crate::check_nonneg("alpha", self.alpha)
    }

    fn to_map(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("lr".into(), self.lr.into()),
            ("alpha".into(), self.alpha.into()),
            ("eps".into(), self.eps.into()),
            ("weight_decay".into(), self.weight_decay.into()),
            ("momentum".into(), self.momentum.into()),
            ("centered".into(), self.centered.into()),
            ("maximize".into(), self.maximize.into()),
        ])
    }

    fn from_map(map: &BTreeMap<String, Value>) -> Result<Self> {
        let r = Reader(map);
        Ok(RMSpropOptions {
            lr: r.f64("lr")?,
            alpha: r.f64("alpha")?,
            eps: r.f64("eps")?,
            weight_decay: r.f64("weight_decay")?,
            momentum: r.f64("momentum")?,
            centered: r.bool("centered")?,
            maximize: r.bool("maximize")?,
        })
    }

    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let with_momentum = self.momentum > 0.0;
        let flags = [
            ("MAXIMIZE", self.maximize),
            ("WEIGHT_DECAY", self.weight_decay != 0.0),
            ("CENTERED", self.centered),
            ("MOMENTUM", with_momentum),
        ];
        let template = Template {
            name: "rmsprop",
            source: TEMPLATE,
            flags: &flags,
        };
        let square_avg = Slot::take(state, "square_avg", param)?;
        let grad_avg = match self.centered {
            true => Some(Slot::take(state, "grad_avg", param)?),
            false => None,
        };
        let buf = match with_momentum {
            true => Some(Slot::take(state, "momentum_buffer", param)?),
            false => None,
        };
        let mut slots = vec![&square_avg];
        slots.extend(grad_avg.as_ref());
        slots.extend(buf.as_ref());
        let scalars = [
            f(self.lr),
            f(self.alpha),
            f(1.0 - self.alpha),
            f(self.eps),
            f(self.weight_decay),
            f(self.momentum),
        ];
        launch(&template, param, grad, &slots, &scalars)?;
        state.set_step(state.step() + 1.0);
        for slot in [Some(square_avg), grad_avg, buf].into_iter().flatten() {
            slot.store(state);
        }
        Ok(())
    }
}
