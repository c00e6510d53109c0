//! torch.optim.ASGD: averaged SGD (the average `ax`, the decaying `eta` and `mu`).

use borch_tensor::{Result, Tensor};

use crate::fused::{Slot, Template, f, launch};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `ASGD`.
#[allow(clippy::upper_case_acronyms)]
pub type ASGD = Optim<ASGDOptions>;

const TEMPLATE: &str = include_str!("kernels/asgd.wgsl");
const KERNEL_FLAGS: [&str; 3] = ["MAXIMIZE", "WEIGHT_DECAY", "AX_COPY"];

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

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    crate::kernel_variants("asgd", TEMPLATE, &KERNEL_FLAGS)
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
        let ax = Slot::take(state, "ax", param)?;
        let eta = state.scalar("eta").unwrap_or(f64::from(f(self.lr)));
        let mu = state.scalar("mu").unwrap_or(1.0);
        let flags = [
            ("MAXIMIZE", self.maximize),
            ("WEIGHT_DECAY", self.weight_decay != 0.0),
            ("AX_COPY", mu == 1.0),
        ];
        let template = Template {
            name: "asgd",
            source: TEMPLATE,
            flags: &flags,
        };
        let scalars = [
            f(1.0 - self.lambd * eta),
            f(eta),
            f(mu),
            f(self.weight_decay),
        ];
        launch(&template, param, grad, &[&ax], &scalars)?;
        let step = state.step() + 1.0;
        state.set_step(step);
        let new_eta = self.lr / (1.0 + self.lambd * self.lr * step).powf(self.alpha);
        state.set_scalar("eta", new_eta);
        state.set_scalar("mu", 1.0 / 1f64.max(step - self.t0));
        ax.store(state);
        Ok(())
    }
}
