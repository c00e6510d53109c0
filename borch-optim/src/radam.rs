//! torch.optim.RAdam: Adam with the variance rectification, L2 or decoupled weight decay.

use borch_tensor::{Result, Tensor};

use crate::fused::{Slot, Template, f, launch};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `RAdam`.
pub type RAdam = Optim<RAdamOptions>;

const TEMPLATE: &str = include_str!("kernels/radam.wgsl");
const KERNEL_FLAGS: [&str; 4] = ["MAXIMIZE", "WEIGHT_DECAY", "DECOUPLED", "RECTIFY"];

crate::options::declare_options! {
    /// The options of a RAdam param group; `Default` is torch's.
    pub struct RAdamOptions {
        lr: f64 = 1e-3,
        betas(beta1, beta2): (f64, f64) = (0.9, 0.999),
        eps: f64 = 1e-8,
        weight_decay: f64 = 0.0,
        decoupled_weight_decay: bool = false,
        maximize: bool = false,
    }
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    crate::kernel_variants("radam", TEMPLATE, &KERNEL_FLAGS)
}

impl Hyper for RAdamOptions {
    const NAME: &'static str = "RAdam";
    const MOMENTUM: MomentumKind = MomentumKind::Beta1;
    const FLAGS: &'static [(&'static str, &'static str)] = crate::FOREACH_DIFF_CAPTURABLE;

    fn momentum(&self) -> Option<f64> {
        Some(self.betas.0)
    }
    fn set_momentum(&mut self, momentum: f64) {
        self.betas.0 = momentum;
    }
    fn validate(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        crate::check_nonneg_as("epsilon value", self.eps)?;
        crate::check_betas(self.betas)?;
        crate::check_nonneg("weight_decay", self.weight_decay)
    }
    /// The rectification test (`rho_t > 5`) depends only on the step, so the host picks the
    /// kernel's branch.
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let exp_avg = Slot::take(state, "exp_avg", param)?;
        let exp_avg_sq = Slot::take(state, "exp_avg_sq", param)?;
        let step = state.step() + 1.0;
        let (beta1, beta2) = self.betas;
        let bias_correction1 = 1.0 - beta1.powf(step);
        let bias_correction2 = 1.0 - beta2.powf(step);
        let rho_inf = 2.0 / (1.0 - beta2) - 1.0;
        let rho_t = rho_inf - 2.0 * step * beta2.powf(step) / bias_correction2;
        let rectify = rho_t > 5.0;
        let rect = if rectify {
            ((rho_t - 4.0) * (rho_t - 2.0) * rho_inf / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t))
                .powf(0.5)
        } else {
            0.0
        };
        let flags = [
            ("MAXIMIZE", self.maximize),
            ("WEIGHT_DECAY", self.weight_decay != 0.0),
            ("DECOUPLED", self.decoupled_weight_decay),
            ("RECTIFY", rectify),
        ];
        let template = Template {
            name: "radam",
            source: TEMPLATE,
            flags: &flags,
        };
        let scalars = [
            f(1.0 - self.lr * self.weight_decay),
            f(self.weight_decay),
            f(1.0 - beta1),
            f(beta2),
            f(1.0 - beta2),
            f(bias_correction1),
            f(self.lr),
            f(bias_correction2.powf(0.5)),
            f(self.eps),
            f(rect),
        ];
        launch(&template, param, grad, &[&exp_avg, &exp_avg_sq], &scalars)?;
        state.set_step(step);
        exp_avg.store(state);
        exp_avg_sq.store(state);
        Ok(())
    }
}
