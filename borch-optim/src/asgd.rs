//! torch.optim.ASGD: averaged SGD (the average `ax`, the decaying `eta` and `mu`).

use borch_tensor::{Result, Tensor};

use crate::fused::{Fused, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `ASGD`.
#[allow(clippy::upper_case_acronyms)]
pub type ASGD = Optim<ASGDOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "asgd",
    source: include_str!("kernels/asgd.wgsl"),
    flags: &["MAXIMIZE", "WEIGHT_DECAY", "AX_COPY"],
};

crate::options::declare_options! {
    /// The options of an ASGD param group; `Default` is torch's (`lr=1e-2`).
    pub struct ASGDOptions {
        lr: f64 = 1e-2,
        lambd: f64 = 1e-4,
        alpha: f64 = 0.75,
        t0: f64 = 1e6,
        weight_decay: f64 = 0.0,
        maximize: bool = false,
    }
}

impl Hyper for ASGDOptions {
    const NAME: &'static str = "ASGD";
    const MOMENTUM: MomentumKind = MomentumKind::None;
    const FLAGS: &'static [(&'static str, &'static str)] = crate::FOREACH_DIFF_CAPTURABLE;

    fn validate(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        crate::check_nonneg("weight_decay", self.weight_decay)
    }
    /// `eta` and `mu` are torch's float32 scalars (state entries), advanced on the host.
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let eta = state.scalar("eta").unwrap_or(f64::from(f(self.lr)));
        let mu = state.scalar("mu").unwrap_or(1.0);
        let scalars = [
            f(1.0 - self.lambd * eta),
            f(eta),
            f(mu),
            f(self.weight_decay),
        ];
        let on = [self.maximize, self.weight_decay != 0.0, mu == 1.0];
        KERNEL.step(&on, param, grad, state, &["ax"], &scalars)?;
        let step = state.step();
        let new_eta = self.lr / (1.0 + self.lambd * self.lr * step).powf(self.alpha);
        state.set_scalar("eta", new_eta);
        state.set_scalar("mu", 1.0 / 1f64.max(step - self.t0));
        Ok(())
    }
}
