//! torch.optim.Adam: bias-corrected moments, amsgrad, L2 or decoupled weight decay, maximize.

use borch_tensor::{BorchError, Result, Tensor};

use crate::fused::{Slot, Template, f, launch};
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `Adam`.
pub type Adam = Optim<AdamOptions>;

const TEMPLATE: &str = include_str!("kernels/adam.wgsl");

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
        crate::check_lr(self.lr)?;
        crate::check_nonneg_as("epsilon value", self.eps)?;
        for (i, beta) in [self.betas.0, self.betas.1].into_iter().enumerate() {
            if !(0.0..1.0).contains(&beta) {
                return Err(BorchError::Value(format!(
                    "Invalid beta parameter at index {i}: {}",
                    crate::py_float(beta)
                )));
            }
        }
        crate::check_nonneg("weight_decay", self.weight_decay)
    }

    /// One fused Adam step; torch's step counting and bias corrections on the host in f64.
    pub(crate) fn fused_step(
        &self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        let exp_avg = Slot::take(state, "exp_avg", param)?;
        let exp_avg_sq = Slot::take(state, "exp_avg_sq", param)?;
        let max_sq = match self.amsgrad {
            true => Some(Slot::take(state, "max_exp_avg_sq", param)?),
            false => None,
        };
        let step = state.step() + 1.0;
        let (beta1, beta2) = self.betas;
        let bias_correction1 = 1.0 - beta1.powf(step);
        let bias_correction2 = 1.0 - beta2.powf(step);
        let step_size = self.lr / bias_correction1;
        let bias_correction2_sqrt = bias_correction2.powf(0.5);
        let scalars = [
            f(step_size),
            f(bias_correction2_sqrt),
            f(self.eps),
            f(self.weight_decay),
            f(1.0 - self.lr * self.weight_decay),
            f(1.0 - beta1),
            f(beta2),
            f(1.0 - beta2),
        ];
        let flags = flags(self);
        let template = Template {
            name: "adam",
            source: TEMPLATE,
            flags: &flags,
        };
        let mut slots = vec![&exp_avg, &exp_avg_sq];
        slots.extend(max_sq.as_ref());
        launch(&template, param, grad, &slots, &scalars)?;
        state.set_step(step);
        exp_avg.store(state);
        exp_avg_sq.store(state);
        if let Some(m) = max_sq {
            m.store(state);
        }
        Ok(())
    }
}

fn flags(o: &AdamOptions) -> [(&'static str, bool); 4] {
    [
        ("MAXIMIZE", o.maximize),
        ("WEIGHT_DECAY", o.weight_decay != 0.0),
        ("DECOUPLED", o.decoupled_weight_decay),
        ("AMSGRAD", o.amsgrad),
    ]
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    crate::kernel_variants(
        "adam",
        TEMPLATE,
        &["MAXIMIZE", "WEIGHT_DECAY", "DECOUPLED", "AMSGRAD"],
    )
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
