//! torch's LambdaLR: the learning rate is the base one times a function of the epoch.

use std::rc::Rc;

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, SchedulerBase, initial_step};
use crate::optimizer::Optimizer;

/// A learning-rate multiplier as a function of the epoch.
pub type LrLambda = Rc<dyn Fn(i64) -> f64>;

/// torch's `LambdaLR(optimizer, lr_lambda)`.
pub struct LambdaLR {
    base: SchedulerBase,
    lr_lambdas: Vec<LrLambda>,
}

impl LambdaLR {
    /// One function for every group.
    pub fn new(
        optimizer: &mut dyn Optimizer,
        lr_lambda: impl Fn(i64) -> f64 + 'static,
    ) -> Result<LambdaLR> {
        let f: LrLambda = Rc::new(lr_lambda);
        let n = optimizer.num_param_groups();
        Self::per_group(optimizer, vec![f; n])
    }

    /// One function per group (torch's list of lambdas).
    pub fn per_group(optimizer: &mut dyn Optimizer, lr_lambdas: Vec<LrLambda>) -> Result<Self> {
        let n = optimizer.num_param_groups();
        if lr_lambdas.len() != n {
            return Err(BorchError::Value(format!(
                "Expected {n} lr_lambdas, but got {}",
                lr_lambdas.len()
            )));
        }
        let base = SchedulerBase::attach(optimizer);
        initial_step(LambdaLR { base, lr_lambdas }, optimizer)
    }
}

impl LRScheduler for LambdaLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, _: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let epoch = self.base.last_epoch;
        Ok(self
            .lr_lambdas
            .iter()
            .zip(&self.base.base_lrs)
            .map(|(f, base)| base * f(epoch))
            .collect())
    }
}
