//! torch.optim.RMSprop: centered, momentum, weight decay, maximize.

use borch_tensor::{Result, Tensor};

use crate::fused::{Slot, Template, f, launch};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `RMSprop`.
pub type RMSprop = Optim<RMSpropOptions>;

const TEMPLATE: &str = include_str!("kernels/rmsprop.wgsl");
const KERNEL_FLAGS: [&str; 4] = ["MAXIMIZE", "WEIGHT_DECAY", "CENTERED", "MOMENTUM"];

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

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    crate::kernel_variants("rmsprop", TEMPLATE, &KERNEL_FLAGS)
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
