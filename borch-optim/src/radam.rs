//! torch.optim.RAdam: Adam with the variance rectification, L2 or decoupled weight decay.

use borch_tensor::{Result, Tensor};

use crate::fused::{Fused, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `RAdam`.
pub type RAdam = Optim<RAdamOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "radam",
    source: include_str!("kernels/radam.wgsl"),
    flags: &["MAXIMIZE", "WEIGHT_DECAY", "DECOUPLED", "RECTIFY"],
};

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
        crate::check_adam(self.lr, self.eps, self.betas, self.weight_decay)
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
        let on = [
            self.maximize,
            self.weight_decay != 0.0,
            self.decoupled_weight_decay,
            rectify,
        ];
        KERNEL.step(
            &on,
            param,
            grad,
            state,
            &["exp_avg", "exp_avg_sq"],
            &scalars,
        )
    }
}
