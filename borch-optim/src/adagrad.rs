//! torch.optim.Adagrad (dense gradients): lr decay, weight decay, initial accumulator, maximize.

use borch_tensor::{Result, Tensor};

use crate::fused::{Fused, f};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `Adagrad`.
pub type Adagrad = Optim<AdagradOptions>;

pub(crate) const KERNEL: Fused = Fused {
    name: "adagrad",
    source: include_str!("kernels/adagrad.wgsl"),
    flags: &["MAXIMIZE", "WEIGHT_DECAY"],
};

crate::options::declare_options! {
    /// The options of an Adagrad param group; `Default` is torch's (`lr=1e-2`, `eps=1e-10`).
    pub struct AdagradOptions {
        lr: f64 = 1e-2,
        lr_decay: f64 = 0.0,
        weight_decay: f64 = 0.0,
        /// As in torch, the optimizer's constructor value fills every parameter's `sum`, whatever
        /// a group says.
        initial_accumulator_value: f64 = 0.0,
        eps: f64 = 1e-10,
        maximize: bool = false,
    }
}

impl Hyper for AdagradOptions {
    const NAME: &'static str = "Adagrad";
    const MOMENTUM: MomentumKind = MomentumKind::None;
    const FLAGS: &'static [(&'static str, &'static str)] = &[
        ("foreach", "None"),
        ("differentiable", "False"),
        ("fused", "None"),
    ];

    fn validate(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        crate::check_nonneg("lr_decay", self.lr_decay)?;
        crate::check_nonneg("weight_decay", self.weight_decay)?;
        crate::check_nonneg("initial_accumulator_value", self.initial_accumulator_value)?;
        crate::check_nonneg_as("epsilon value", self.eps)
    }

    /// torch's Adagrad fills `sum` when the optimizer is made, so its state dict has it at once.
    fn init_state(defaults: &Self, param: &Tensor) -> Result<Option<ParamState>> {
        let mut state = ParamState::default();
        state.set_step(0.0);
        state.set_tensor("sum", param.full_like(defaults.initial_accumulator_value)?);
        Ok(Some(state))
    }

    fn update(
        &self,
        defaults: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let step = state.step() + 1.0;
        let clr = self.lr / (1.0 + (step - 1.0) * self.lr_decay);
        let scalars = [
            f(clr),
            f(self.eps),
            f(self.weight_decay),
            f(defaults.initial_accumulator_value),
        ];
        let on = [self.maximize, self.weight_decay != 0.0];
        KERNEL.step(&on, param, grad, state, &["sum"], &scalars)
    }
}
