//! torch.optim.RMSprop: centered, momentum, weight decay, maximize.

use borch_tensor::{Result, Tensor};

use crate::fused::{Fused, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `RMSprop`.
pub type RMSprop = Optim<RMSpropOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "rmsprop",
    source: include_str!("kernels/rmsprop.wgsl"),
    flags: &["MAXIMIZE", "WEIGHT_DECAY", "CENTERED", "MOMENTUM"],
};

crate::options::declare_options! {
    /// The options of an RMSprop param group; `Default` is torch's (`lr=1e-2`, `alpha=0.99`).
    pub struct RMSpropOptions {
        lr: f64 = 1e-2,
        alpha: f64 = 0.99,
        eps: f64 = 1e-8,
        weight_decay: f64 = 0.0,
        momentum: f64 = 0.0,
        centered: bool = false,
        maximize: bool = false,
    }
}

impl Hyper for RMSpropOptions {
    const NAME: &'static str = "RMSprop";
    const MOMENTUM: MomentumKind = MomentumKind::Momentum;
    const FLAGS: &'static [(&'static str, &'static str)] = &[
        ("capturable", "False"),
        ("foreach", "None"),
        ("differentiable", "False"),
    ];

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

    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let with_momentum = self.momentum > 0.0;
        let mut slots = vec!["square_avg"];
        if self.centered {
            slots.push("grad_avg");
        }
        if with_momentum {
            slots.push("momentum_buffer");
        }
        let scalars = [
            f(self.lr),
            f(self.alpha),
            f(1.0 - self.alpha),
            f(self.eps),
            f(self.weight_decay),
            f(self.momentum),
        ];
        let on = [
            self.maximize,
            self.weight_decay != 0.0,
            self.centered,
            with_momentum,
        ];
        KERNEL.step(&on, param, grad, state, &slots, &scalars)
    }
}
