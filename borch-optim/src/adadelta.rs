//! torch.optim.Adadelta: running averages of squared gradients and squared updates.

use borch_tensor::{BorchError, Result, Tensor};

use crate::fused::{Slot, Template, f, launch};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `Adadelta`.
pub type Adadelta = Optim<AdadeltaOptions>;

const TEMPLATE: &str = include_str!("kernels/adadelta.wgsl");
const KERNEL_FLAGS: [&str; 2] = ["MAXIMIZE", "WEIGHT_DECAY"];

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

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    crate::kernel_variants("adadelta", TEMPLATE, &KERNEL_FLAGS)
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
        let flags = [
            ("MAXIMIZE", self.maximize),
            ("WEIGHT_DECAY", self.weight_decay != 0.0),
        ];
        let template = Template {
            name: "adadelta",
            source: TEMPLATE,
            flags: &flags,
        };
        let square_avg = Slot::take(state, "square_avg", param)?;
        let acc_delta = Slot::take(state, "acc_delta", param)?;
        let scalars = [
            f(self.lr),
            f(self.rho),
            f(1.0 - self.rho),
            f(self.eps),
            f(self.weight_decay),
        ];
        launch(&template, param, grad, &[&square_avg, &acc_delta], &scalars)?;
        state.set_step(state.step() + 1.0);
        square_avg.store(state);
        acc_delta.store(state);
        Ok(())
    }
}
