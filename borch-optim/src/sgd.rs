//! torch.optim.SGD: momentum, dampening, nesterov, weight decay, maximize.

use borch_tensor::{BorchError, Result, Tensor};

use crate::fused::{Fused, Slot, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `SGD`.
#[allow(clippy::upper_case_acronyms)]
pub type SGD = Optim<SgdOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "sgd",
    source: include_str!("kernels/sgd.wgsl"),
    flags: &["MAXIMIZE", "WEIGHT_DECAY", "MOMENTUM", "NESTEROV"],
};

crate::options::declare_options! {
    /// The options of an SGD param group; `Default` is torch's (`lr=1e-3`).
    pub struct SgdOptions {
        lr: f64 = 1e-3,
        momentum: f64 = 0.0,
        dampening: f64 = 0.0,
        weight_decay: f64 = 0.0,
        nesterov: bool = false,
        maximize: bool = false,
    }
}

impl Hyper for SgdOptions {
    const NAME: &'static str = "SGD";
    const MOMENTUM: MomentumKind = MomentumKind::Momentum;
    const FLAGS: &'static [(&'static str, &'static str)] = &[
        ("foreach", "None"),
        ("differentiable", "False"),
        ("fused", "None"),
    ];

    fn momentum(&self) -> Option<f64> {
        Some(self.momentum)
    }
    fn set_momentum(&mut self, momentum: f64) {
        self.momentum = momentum;
    }

    fn validate(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        if self.momentum < 0.0 {
            return Err(BorchError::Value(format!(
                "Invalid momentum value: {}",
                crate::py_float(self.momentum)
            )));
        }
        crate::check_nonneg("weight_decay", self.weight_decay)?;
        if self.nesterov && (self.momentum <= 0.0 || self.dampening != 0.0) {
            return Err(BorchError::Value(
                "Nesterov momentum requires a momentum and zero dampening".into(),
            ));
        }
        Ok(())
    }

    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let on = [
            self.maximize,
            self.weight_decay != 0.0,
            self.momentum != 0.0,
            self.nesterov,
        ];
        let scalars = [
            f(self.lr),
            f(self.weight_decay),
            f(self.momentum),
            f(1.0 - self.dampening),
        ];
        if self.momentum == 0.0 {
            return KERNEL.run(&on, param, grad, &[], &scalars);
        }
        let buf = Slot::take(state, "momentum_buffer", param)?;
        KERNEL.run(&on, param, grad, &[&buf], &scalars)?;
        buf.store(state);
        Ok(())
    }
}
