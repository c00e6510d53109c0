//! torch.optim.Adam: bias-corrected moments, amsgrad, L2 or decoupled weight decay, maximize.

use borch_tensor::{Result, Tensor};

use crate::fused::{Fused, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `Adam`.
pub type Adam = Optim<AdamOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "adam",
    source: include_str!("kernels/adam.wgsl"),
    flags: &["MAXIMIZE", "WEIGHT_DECAY", "DECOUPLED", "AMSGRAD"],
};

crate::options::declare_options! {
    /// The options of an Adam param group; `Default` is torch's.
    pub struct AdamOptions {
        lr: f64 = 1e-3,
        betas(beta1, beta2): (f64, f64) = (0.9, 0.999),
        eps: f64 = 1e-8,
        weight_decay: f64 = 0.0,
        amsgrad: bool = false,
        maximize: bool = false,
        /// AdamW's weight decay (torch's `Adam(decoupled_weight_decay=True)`).
        decoupled_weight_decay: bool = false,
    }
}

impl AdamOptions {
    pub(crate) fn check(&self) -> Result<()> {
        crate::check_adam(self.lr, self.eps, self.betas, self.weight_decay)
    }

    /// One fused Adam step; torch's step counting and bias corrections on the host in f64.
    pub(crate) fn fused_step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let step = state.step() + 1.0;
        let (beta1, beta2) = self.betas;
        let bias_correction1 = 1.0 - beta1.powf(step);
        let bias_correction2 = 1.0 - beta2.powf(step);
        let step_size = self.lr / bias_correction1;
        let bias_correction2_sqrt = bias_correction2.powf(0.5);
        let scalars = [
            f(1.0 - self.lr * self.weight_decay),
            f(self.weight_decay),
            f(1.0 - beta1),
            f(beta2),
            f(1.0 - beta2),
            f(step_size),
            f(bias_correction2_sqrt),
            f(self.eps),
        ];
        let on = [
            self.maximize,
            self.weight_decay != 0.0,
            self.decoupled_weight_decay,
            self.amsgrad,
        ];
        let mut slots = vec!["exp_avg", "exp_avg_sq"];
        if self.amsgrad {
            slots.push("max_exp_avg_sq");
        }
        KERNEL.step(&on, param, grad, state, &slots, &scalars)
    }
}

impl Hyper for AdamOptions {
    const NAME: &'static str = "Adam";
    const MOMENTUM: MomentumKind = MomentumKind::Beta1;
    const FLAGS: &'static [(&'static str, &'static str)] = &[
        ("foreach", "None"),
        ("capturable", "False"),
        ("differentiable", "False"),
        ("fused", "None"),
    ];

    fn momentum(&self) -> Option<f64> {
        Some(self.betas.0)
    }
    fn set_momentum(&mut self, momentum: f64) {
        self.betas.0 = momentum;
    }
    fn validate(&self) -> Result<()> {
        self.check()
    }
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        self.fused_step(param, grad, state)
    }
}
