//! torch's MultiplicativeLR: multiply the learning rate by a function of the epoch each step.

use borch_tensor::{BorchError, Result};

use super::{LRScheduler, LrLambda, SchedulerBase, initial_step, lrs};
use crate::optimizer::Optimizer;

/// torch's `MultiplicativeLR(optimizer, lr_lambda)`.
pub struct MultiplicativeLR {
    base: SchedulerBase,
    lr_lambdas: Vec<LrLambda>,
}

impl MultiplicativeLR {
    /// One function per group (torch's list), or one for every group when `lr_lambdas` holds one.
    pub fn new(optimizer: &mut dyn Optimizer, mut lr_lambdas: Vec<LrLambda>) -> Result<Self> {
        let n = optimizer.num_param_groups();
        if lr_lambdas.len() == 1 && n != 1 {
            lr_lambdas = vec![lr_lambdas[0].clone(); n];
        }
        if lr_lambdas.len() != n {
            return Err(BorchError::Value(format!(
                "Expected {n} lr_lambdas, but got {}",
                lr_lambdas.len()
            )));
        }
        let base = SchedulerBase::attach(optimizer);
        initial_step(MultiplicativeLR { base, lr_lambdas }, optimizer)
    }
}

impl LRScheduler for MultiplicativeLR {
    fn base(&self) -> &SchedulerBase {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SchedulerBase {
        &mut self.base
    }
    fn get_lr(&mut self, optimizer: &mut dyn Optimizer) -> Result<Vec<f64>> {
        let current = lrs(optimizer);
        if self.base.is_initial {
            return Ok(current);
        }
        let epoch = self.base.last_epoch;
        Ok(current
            .into_iter()
            .zip(&self.lr_lambdas)
            .map(|(lr, f)| lr * f(epoch))
            .collect())
    }
}
