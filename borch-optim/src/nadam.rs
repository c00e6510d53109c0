//! torch.optim.NAdam: Adam with Nesterov momentum (momentum_decay), L2 or decoupled weight decay.

use borch_tensor::{BorchError, Result, Tensor};

use crate::fused::{Fused, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `NAdam`.
pub type NAdam = Optim<NAdamOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "nadam",
    source: include_str!("kernels/nadam.wgsl"),
    flags: &["MAXIMIZE", "WEIGHT_DECAY", "DECOUPLED"],
};

crate::options::declare_options! {
    /// The options of an NAdam param group; `Default` is torch's (`lr=2e-3`).
    pub struct NAdamOptions {
        lr: f64 = 2e-3,
        betas(beta1, beta2): (f64, f64) = (0.9, 0.999),
        eps: f64 = 1e-8,
        weight_decay: f64 = 0.0,
        momentum_decay: f64 = 4e-3,
        decoupled_weight_decay: bool = false,
        maximize: bool = false,
    }
}

impl Hyper for NAdamOptions {
    const NAME: &'static str = "NAdam";
    const MOMENTUM: MomentumKind = MomentumKind::Beta1;
    const FLAGS: &'static [(&'static str, &'static str)] = crate::FOREACH_DIFF_CAPTURABLE;

    fn momentum(&self) -> Option<f64> {
        Some(self.betas.0)
    }
    fn set_momentum(&mut self, momentum: f64) {
        self.betas.0 = momentum;
    }
    fn validate(&self) -> Result<()> {
        crate::check_adam(self.lr, self.eps, self.betas, self.weight_decay)?;
        if self.momentum_decay.is_nan() || self.momentum_decay < 0.0 {
            return Err(BorchError::Value(format!(
                "Invalid momentum_decay value: {}",
                crate::py_float(self.momentum_decay)
            )));
        }
        Ok(())
    }
    /// torch keeps `mu_product` (a float32 scalar, starting at 1) per parameter; the host
    /// advances it in float32 as torch's `mu_product *= mu` does.
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let step = state.step() + 1.0;
        let (beta1, beta2) = self.betas;
        let bias_correction2 = 1.0 - beta2.powf(step);
        let mu = beta1 * (1.0 - 0.5 * 0.96f64.powf(step * self.momentum_decay));
        let mu_next = beta1 * (1.0 - 0.5 * 0.96f64.powf((step + 1.0) * self.momentum_decay));
        let previous = state.scalar("mu_product").unwrap_or(1.0);
        let mu_product = f64::from(f(previous) * f(mu));
        let mu_product_next = mu_product * mu_next;
        let scalars = [
            f(1.0 - self.lr * self.weight_decay),
            f(self.weight_decay),
            f(1.0 - beta1),
            f(beta2),
            f(1.0 - beta2),
            f(bias_correction2),
            f(self.eps),
            f(-self.lr * (1.0 - mu) / (1.0 - mu_product)),
            f(-self.lr * mu_next / (1.0 - mu_product_next)),
        ];
        let on = [
            self.maximize,
            self.weight_decay != 0.0,
            self.decoupled_weight_decay,
        ];
        KERNEL.step(
            &on,
            param,
            grad,
            state,
            &["exp_avg", "exp_avg_sq"],
            &scalars,
        )?;
        state.set_scalar("mu_product", mu_product);
        Ok(())
    }
}
