//! torch.optim.AdamW: Adam with decoupled weight decay (default 1e-2).

use std::collections::BTreeMap;

use borch_tensor::{Result, Tensor};

use crate::adam::AdamOptions;
use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;
use crate::value::Value;

/// torch's `AdamW`.
pub type AdamW = Optim<AdamWOptions>;

crate::options::declare_options! {
    /// The options of an AdamW param group; `Default` is torch's (`weight_decay=1e-2`).
    pub struct AdamWOptions {
        lr: f64 = 1e-3,
        betas(beta1, beta2): (f64, f64) = (0.9, 0.999),
        eps: f64 = 1e-8,
        weight_decay: f64 = 1e-2,
        amsgrad: bool = false,
        maximize: bool = false,
    }
    /// These options as Adam's, with decoupled weight decay.
    fn adam() -> AdamOptions { decoupled_weight_decay: true }
}

impl Hyper for AdamWOptions {
    const NAME: &'static str = "AdamW";
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
        self.adam().check()
    }
    fn to_map(&self) -> BTreeMap<String, Value> {
        // torch's AdamW groups say `decoupled_weight_decay=True`, as Adam's would.
        let mut map = self.map();
        map.insert("decoupled_weight_decay".into(), Value::Bool(true));
        map
    }
    fn from_map(map: &BTreeMap<String, Value>) -> Result<Self> {
        // torch's AdamW.__setstate__ forces decoupled weight decay whatever was saved, so a saved
        // `decoupled_weight_decay` is not read.
        AdamWOptions::read(map)
    }
    fn update(
        &self,
        _: &Self,
        param: &Tensor,
        grad: &Tensor,
        state: &mut ParamState,
    ) -> Result<()> {
        self.adam().fused_step(param, grad, state)
    }
}
