//! torch.optim.Adadelta: running averages of squared gradients and squared updates.

use borch_tensor::{BorchError, Result, Tensor};

use crate::fused::{Fused, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `Adadelta`.
pub type Adadelta = Optim<AdadeltaOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "adadelta",
    source: include_str!("kernels/adadelta.wgsl"),
    flags: &["MAXIMIZE", "WEIGHT_DECAY"],
};

crate::options::declare_options! {
    /// The options of an Adadelta param group; `Default` is torch's (`lr=1.0`).
    pub struct AdadeltaOptions {
        lr: f64 = 1.0,
        rho: f64 = 0.9,
        eps: f64 = 1e-6,
        weight_decay: f64 = 0.0,
        maximize: bool = false,
    }
}

impl Hyper for AdadeltaOptions {
    const NAME: &'static str = "Adadelta";
    const MOMENTUM: MomentumKind = MomentumKind::None;
    const FLAGS: &'static [(&'static str, &'static str)] = crate::FOREACH_DIFF_CAPTURABLE;

    fn validate(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        if !(0.0..=1.0).contains(&self.rho) {
            return Err(BorchError::Value(format!(
                "Invalid rho value: {}",
                crate::py_float(self.rho)
            )));
        }
        crate::check_nonneg_as("epsilon value", self.eps)?;
        crate::check_nonneg("weight_decay", self.weight_decay)
    }
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let scalars = [
            f(self.lr),
            f(self.rho),
            f(1.0 - self.rho),
            f(self.eps),
            f(self.weight_decay),
        ];
        let on = [self.maximize, self.weight_decay != 0.0];
        let slots = ["square_avg", "acc_delta"];
        KERNEL.step(&on, param, grad, state, &slots, &scalars)
    }
}
