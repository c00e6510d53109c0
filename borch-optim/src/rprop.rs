//! torch.optim.Rprop: per-element step sizes grown or shrunk by the sign of the gradient.

use borch_tensor::{BorchError, Result, Tensor};

use crate::fused::{Fused, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `Rprop`.
pub type Rprop = Optim<RpropOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "rprop",
    source: include_str!("kernels/rprop.wgsl"),
    flags: &["MAXIMIZE"],
};

crate::options::declare_options! {
    /// The options of an Rprop param group; `Default` is torch's (`lr=1e-2`).
    pub struct RpropOptions {
        lr: f64 = 1e-2,
        etas(etaminus, etaplus): (f64, f64) = (0.5, 1.2),
        step_sizes(min, max): (f64, f64) = (1e-6, 50.0),
        maximize: bool = false,
    }
}

impl Hyper for RpropOptions {
    const NAME: &'static str = "Rprop";
    const MOMENTUM: MomentumKind = MomentumKind::None;
    const FLAGS: &'static [(&'static str, &'static str)] = crate::FOREACH_DIFF_CAPTURABLE;

    fn validate(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        let (minus, plus) = self.etas;
        if !(0.0 < minus && minus < 1.0 && 1.0 < plus) {
            return Err(BorchError::Value(format!(
                "Invalid eta values: {}, {}",
                crate::py_float(minus),
                crate::py_float(plus)
            )));
        }
        Ok(())
    }
    /// A new parameter's `step_size` starts at the group's `lr`, as torch's `full_like`.
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let scalars = [
            f(self.lr),
            f(self.etas.0),
            f(self.etas.1),
            f(self.step_sizes.0),
            f(self.step_sizes.1),
        ];
        let slots = ["prev", "step_size"];
        KERNEL.step(&[self.maximize], param, grad, state, &slots, &scalars)
    }
}
