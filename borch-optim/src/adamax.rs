//! torch.optim.Adamax: Adam with the infinity norm of the gradients.

use borch_tensor::{Result, Tensor};

use crate::fused::{Fused, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `Adamax`.
pub type Adamax = Optim<AdamaxOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "adamax",
    source: include_str!("kernels/adamax.wgsl"),
    flags: &["MAXIMIZE", "WEIGHT_DECAY"],
};

crate::options::declare_options! {
    /// The options of an Adamax param group; `Default` is torch's (`lr=2e-3`).
    pub struct AdamaxOptions {
        lr: f64 = 2e-3,
        betas(beta1, beta2): (f64, f64) = (0.9, 0.999),
        eps: f64 = 1e-8,
        weight_decay: f64 = 0.0,
        maximize: bool = false,
    }
}

impl Hyper for AdamaxOptions {
    const NAME: &'static str = "Adamax";
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
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let step = state.step() + 1.0;
        let (beta1, beta2) = self.betas;
        let clr = self.lr / (1.0 - beta1.powf(step));
        let scalars = [
            f(clr),
            f(self.eps),
            f(self.weight_decay),
            f(1.0 - beta1),
            f(beta2),
        ];
        let on = [self.maximize, self.weight_decay != 0.0];
        KERNEL.step(&on, param, grad, state, &["exp_avg", "exp_inf"], &scalars)
    }
}
