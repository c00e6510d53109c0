//! torch.optim.Adafactor: factored second moments (a row and a column per matrix), relative step
//! sizes and update clipping. Its two norms make one step a short chain of tensor ops rather
//! than one fused kernel (the dispatch count is pinned in tests/dispatches.rs); nothing is read
//! back, so it runs in a browser as natively.

use borch_tensor::{BorchError, DType, Result, Tensor};

use crate::group::{Hyper, MomentumKind};
use crate::optimizer::Optim;
use crate::state::ParamState;

/// torch's `Adafactor`.
pub type Adafactor = Optim<AdafactorOptions>;

crate::options::declare_options! {
    /// The options of an Adafactor param group; `Default` is torch's (`lr=1e-2`,
    /// `eps=(None, 1e-3)`: `None` is float32's machine epsilon).
    pub struct AdafactorOptions {
        lr: f64 = 1e-2,
        beta2_decay: f64 = -0.8,
        eps: (Option<f64>, f64) = (None, 1e-3),
        d: f64 = 1.0,
        weight_decay: f64 = 0.0,
        maximize: bool = false,
    }
}

impl AdafactorOptions {
    /// Sets `eps` (torch's default `(None, 1e-3)`).
    pub fn epsilons(mut self, eps1: Option<f64>, eps2: f64) -> Self {
        self.eps = (eps1, eps2);
        self
    }
}

fn invalid(what: &str, x: f64) -> BorchError {
    BorchError::Value(format!("{what} but is: {}", crate::py_float(x)))
}

/// Runs `f` with autograd off (the update is not part of any graph), restoring the mode.
fn without_grad<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    let was = borch_tensor::set_grad_enabled(false);
    let out = f();
    borch_tensor::set_grad_enabled(was);
    out
}

/// `state[key]`, or zeros of `shape` for a new parameter.
fn moment(state: &ParamState, key: &str, shape: &[usize]) -> Result<Tensor> {
    match state.tensor(key) {
        Some(t) => Ok(t.clone()),
        None => borch_tensor::zeros(shape, DType::Float32),
    }
}

impl Hyper for AdafactorOptions {
    const NAME: &'static str = "Adafactor";
    const MOMENTUM: MomentumKind = MomentumKind::None;
    const FLAGS: &'static [(&'static str, &'static str)] = &[("foreach", "None")];

    fn validate(&self) -> Result<()> {
        crate::check_lr(self.lr)?;
        if self.beta2_decay.is_nan() || self.beta2_decay > 0.0 {
            return Err(invalid("beta2_decay should be <= 0", self.beta2_decay));
        }
        if let Some(e1) = self.eps.0.filter(|e| e.is_nan() || *e < 0.0) {
            return Err(invalid("epsilon1 should be >= 0", e1));
        }
        if self.eps.1.is_nan() || self.eps.1 < 0.0 {
            return Err(invalid("epsilon2 should be >= 0", self.eps.1));
        }
        if self.d.is_nan() || self.d < 1.0 {
            return Err(invalid("Clipping threshold d should be >= 1", self.d));
        }
        if self.weight_decay.is_nan() || self.weight_decay < 0.0 {
            return Err(invalid("weight_decay should be >= 0", self.weight_decay));
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
        without_grad(|| self.step_one(param, grad, state))
    }
}

impl AdafactorOptions {
    /// torch's `_single_tensor_adafactor` for one parameter; the two `.item()` norms of torch's
    /// stay on the device as 0-d tensors.
    fn step_one(&self, param: &Tensor, grad: &Tensor, state: &mut ParamState) -> Result<()> {
        let grad = if self.maximize {
            grad.neg()?
        } else {
            grad.clone()
        };
        let eps1 = self.eps.0.unwrap_or(f64::from(f32::EPSILON));
        let eps2 = self.eps.1;
        let step = state.step() + 1.0;
        let one_minus_beta2_t = step.powf(self.beta2_decay);
        let rho_t = self.lr.min(1.0 / step.powf(0.5));
        let numel_sqrt = (param.numel() as f64).powf(0.5);
        let alpha = param
            .norm(2.0, None, false)?
            .div(numel_sqrt)?
            .clamp_min(eps2)?
            .mul(rho_t)?;
        let mut x = param.clone();
        if self.weight_decay != 0.0 {
            x = x.mul(1.0 - self.lr * self.weight_decay)?;
        }
        let shape = grad.shape().to_vec();
        let var_estimate = if shape.len() > 1 {
            let (rows, cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
            let mut row_shape = shape.clone();
            *row_shape.last_mut().unwrap() = 1;
            let mut col_shape = shape.clone();
            col_shape[shape.len() - 2] = 1;
            let row_mean = grad
                .norm(2.0, Some(&[-1]), true)?
                .square()?
                .div(cols as f64)?;
            let row_var =
                moment(state, "row_var", &row_shape)?.lerp(&row_mean, one_minus_beta2_t)?;
            let col_mean = grad
                .norm(2.0, Some(&[-2]), true)?
                .square()?
                .div(rows as f64)?;
            let col_var =
                moment(state, "col_var", &col_shape)?.lerp(&col_mean, one_minus_beta2_t)?;
            let estimate = row_var
                .matmul(&col_var)?
                .div(&row_var.mean(Some(&[-2]), true)?.clamp_min(eps1)?)?;
            state.set_tensor("row_var", row_var);
            state.set_tensor("col_var", col_var);
            estimate
        } else {
            let variance =
                moment(state, "variance", &shape)?.lerp(&grad.mul(&grad)?, one_minus_beta2_t)?;
            state.set_tensor("variance", variance.clone());
            variance
        };
        let update = var_estimate.clamp_min(eps1 * eps1)?.rsqrt()?.mul(&grad)?;
        let denom = update
            .norm(2.0, None, false)?
            .div(numel_sqrt * self.d)?
            .clamp_min(1.0)?;
        let scale = alpha.div(&denom)?.neg()?;
        param.copy_(&x.add(&update.mul(&scale)?)?)?;
        state.set_step(step);
        Ok(())
    }
}
