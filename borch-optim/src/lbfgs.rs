//! torch.optim.LBFGS: limited-memory BFGS over all parameters as one flat vector, with a closure
//! that re-evaluates the loss, and optionally torch's strong-Wolfe line search. Its step decides
//! what to do from values (losses, gradient norms, curvature), so it reads the gradients back
//! after each evaluation and keeps its history on the host in float32, as torch's tensors are;
//! a browser cannot read back inside a synchronous call, so borch-js refuses it.

mod flat;
mod strong_wolfe;

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result, Tensor};

use crate::fused::check_param;
use crate::group::{Declared, MomentumKind};
use crate::optimizer::Optimizer;
use crate::state::{GroupState, ParamState, StateDict};
use crate::value::Value;
use flat::{abs_max, abs_sum, add_scaled, dot, neg, r32, scaled, sub};

crate::options::declare_options! {
    /// The options of LBFGS's one param group; `Default` is torch's (`max_eval=None` becomes
    /// `max_iter * 5 // 4`).
    pub struct LBFGSOptions {
        lr: f64 = 1.0,
        max_iter: i64 = 20,
        max_eval: Option<i64> = None,
        tolerance_grad: f64 = 1e-7,
        tolerance_change: f64 = 1e-9,
        history_size: i64 = 100,
        line_search_fn: Option<String> = None,
        maximize: bool = false,
    }
}

/// The history torch keeps in `state[params[0]]`.
#[derive(Default)]
struct History {
    func_evals: i64,
    n_iter: i64,
    d: Vec<f32>,
    t: f64,
    old_dirs: Vec<Vec<f32>>,
    old_stps: Vec<Vec<f32>>,
    ro: Vec<f64>,
    h_diag: f64,
    prev_flat_grad: Option<Vec<f32>>,
}

/// torch's `LBFGS(params, lr=1, max_iter=20, …)`.
#[allow(clippy::upper_case_acronyms)]
pub struct LBFGS {
    params: Vec<Tensor>,
    options: LBFGSOptions,
    extra: BTreeMap<String, f64>,
    history: History,
}

/// A closure re-evaluating the model: it zeroes the gradients, computes the loss, runs backward
/// and returns the loss.
pub type Closure<'a> = dyn FnMut() -> Result<f64> + 'a;

impl LBFGS {
    /// LBFGS over `params` (one group, as torch requires).
    pub fn new(params: Vec<Tensor>, mut options: LBFGSOptions) -> Result<LBFGS> {
        if cfg!(target_arch = "wasm32") {
            return Err(BorchError::NotImplemented(
                "LBFGS reads the loss and the gradients back during its step (line search, \
                 curvature history), which a browser cannot do inside a synchronous call; borch \
                 runs LBFGS natively only"
                    .into(),
            ));
        }
        crate::check_lr(options.lr)?;
        if params.is_empty() {
            return Err(BorchError::Value(
                "optimizer got an empty parameter list".into(),
            ));
        }
        for p in &params {
            check_param(p)?;
        }
        check_line_search(&options.line_search_fn)?;
        options.max_eval = Some(options.max_eval.unwrap_or(options.max_iter * 5 / 4));
        Ok(LBFGS {
            params,
            options,
            extra: BTreeMap::new(),
            history: History::default(),
        })
    }

    /// torch's `LBFGS.step(closure)`: returns the loss of the closure's first evaluation.
    pub fn step_closure(&mut self, closure: &mut Closure<'_>) -> Result<f64> {
        let o = self.options.clone();
        let max_eval = o.max_eval.unwrap_or(o.max_iter * 5 / 4);
        let this = Evaluator {
            params: &self.params,
            maximize: o.maximize,
        };
        let orig_loss = this.loss(closure)?;
        let mut loss = orig_loss;
        let mut current_evals = 1;
        self.history.func_evals += 1;
        let mut flat_grad = this.grad()?;
        if abs_max(&flat_grad) <= o.tolerance_grad {
            return Ok(signed(orig_loss, o.maximize));
        }
        let mut x = this.params()?;
        let h = &mut self.history;
        let mut n_iter = 0;
        while n_iter < o.max_iter {
            n_iter += 1;
            h.n_iter += 1;
            if h.n_iter == 1 {
                h.d = neg(&flat_grad);
                h.old_dirs.clear();
                h.old_stps.clear();
                h.ro.clear();
                h.h_diag = 1.0;
            } else {
                let prev = h.prev_flat_grad.as_deref().unwrap_or(&[]);
                let y = sub(&flat_grad, prev);
                let s = scaled(&h.d, h.t);
                let ys = dot(&y, &s);
                if ys > 1e-10 {
                    if h.old_dirs.len() as i64 == o.history_size {
                        h.old_dirs.remove(0);
                        h.old_stps.remove(0);
                        h.ro.remove(0);
                    }
                    h.h_diag = r32(ys / dot(&y, &y));
                    h.old_dirs.push(y);
                    h.old_stps.push(s);
                    h.ro.push(r32(1.0 / ys));
                }
                let num_old = h.old_dirs.len();
                let mut al = vec![0.0; num_old];
                let mut q = neg(&flat_grad);
                for i in (0..num_old).rev() {
                    al[i] = r32(dot(&h.old_stps[i], &q) * h.ro[i]);
                    add_scaled(&mut q, &h.old_dirs[i], -al[i]);
                }
                let mut r = scaled(&q, h.h_diag);
                for (i, al_i) in al.iter().enumerate() {
                    let be_i = r32(dot(&h.old_dirs[i], &r) * h.ro[i]);
                    add_scaled(&mut r, &h.old_stps[i], r32(al_i - be_i));
                }
                h.d = r;
            }
            h.prev_flat_grad = Some(flat_grad.clone());
            let prev_loss = loss;
            h.t = if h.n_iter == 1 {
                let inv = r32(1.0 / abs_sum(&flat_grad));
                if inv < 1.0 { r32(inv * o.lr) } else { o.lr }
            } else {
                o.lr
            };
            let gtd = dot(&flat_grad, &h.d);
            if gtd > -o.tolerance_change {
                break;
            }
            let mut ls_func_evals = 0;
            let mut opt_cond = false;
            if o.line_search_fn.is_some() {
                let d = h.d.clone();
                let mut eval = |t: f64| -> Result<(f64, Vec<f32>)> {
                    let mut moved = x.clone();
                    add_scaled(&mut moved, &d, t);
                    this.set(&moved)?;
                    let loss = this.loss(closure)?;
                    let g = this.grad()?;
                    this.set(&x)?;
                    Ok((loss, g))
                };
                let found = strong_wolfe::strong_wolfe(
                    &mut eval,
                    h.t,
                    &d,
                    loss,
                    &flat_grad,
                    gtd,
                    o.tolerance_change,
                    max_eval - current_evals,
                )?;
                (loss, flat_grad, h.t, ls_func_evals) = (found.f, found.g, found.t, found.evals);
                add_scaled(&mut x, &d, h.t);
                this.set(&x)?;
                opt_cond = abs_max(&flat_grad) <= o.tolerance_grad;
            } else {
                add_scaled(&mut x, &h.d, h.t);
                this.set(&x)?;
                if n_iter != o.max_iter {
                    loss = this.loss(closure)?;
                    flat_grad = this.grad()?;
                    opt_cond = abs_max(&flat_grad) <= o.tolerance_grad;
                    ls_func_evals = 1;
                }
            }
            current_evals += ls_func_evals;
            h.func_evals += ls_func_evals;
            if n_iter == o.max_iter || current_evals >= max_eval || opt_cond {
                break;
            }
            if abs_max(&h.d) * h.t.abs() <= o.tolerance_change {
                break;
            }
            if (loss - prev_loss).abs() < o.tolerance_change {
                break;
            }
        }
        Ok(signed(orig_loss, o.maximize))
    }
}

/// The loss as the closure returned it.
fn signed(loss: f64, maximize: bool) -> f64 {
    if maximize { -loss } else { loss }
}

/// A tensor's values on the host (natively; a browser cannot block on a read, and LBFGS::new
/// refuses there first).
#[cfg(not(target_arch = "wasm32"))]
fn read_back(t: &Tensor) -> Result<Vec<f32>> {
    t.to_vec_blocking::<f32>()
}

#[cfg(target_arch = "wasm32")]
fn read_back(_: &Tensor) -> Result<Vec<f32>> {
    Err(BorchError::NotImplemented(
        "LBFGS runs natively only (it reads values back during its step)".into(),
    ))
}

fn check_line_search(f: &Option<String>) -> Result<()> {
    match f.as_deref() {
        None | Some("strong_wolfe") => Ok(()),
        Some(_) => Err(BorchError::Runtime(
            "only 'strong_wolfe' is supported".into(),
        )),
    }
}

/// The parameters seen by the closure's evaluations inside a step.
struct Evaluator<'a> {
    params: &'a [Tensor],
    maximize: bool,
}

impl Evaluator<'_> {
    /// The parameters as one flat vector.
    fn params(&self) -> Result<Vec<f32>> {
        let mut out = Vec::new();
        for p in self.params {
            out.extend(read_back(p)?);
        }
        Ok(out)
    }

    /// Write the flat `x` into the parameters (torch's `_add_grad` / `_set_param`).
    fn set(&self, x: &[f32]) -> Result<()> {
        let was = borch_tensor::set_grad_enabled(false);
        let mut offset = 0;
        let mut result = Ok(());
        for p in self.params {
            let n = p.numel();
            result =
                Tensor::from_slice(&x[offset..offset + n], p.shape()).and_then(|v| p.copy_(&v));
            if result.is_err() {
                break;
            }
            offset += n;
        }
        borch_tensor::set_grad_enabled(was);
        result
    }

    /// The closure's loss as torch's `float(closure())`, negated for `maximize`.
    fn loss(&self, closure: &mut Closure<'_>) -> Result<f64> {
        let was = borch_tensor::set_grad_enabled(true);
        let loss = closure();
        borch_tensor::set_grad_enabled(was);
        let loss = r32(loss?);
        Ok(if self.maximize { -loss } else { loss })
    }

    /// torch's `_gather_flat_grad()` (negated for `maximize`).
    fn grad(&self) -> Result<Vec<f32>> {
        let mut out = Vec::new();
        for p in self.params {
            match p.grad() {
                Some(g) => out.extend(read_back(&g.contiguous()?)?),
                None => out.extend(std::iter::repeat_n(0.0, p.numel())),
            }
        }
        if self.maximize {
            out.iter_mut().for_each(|x| *x = -*x);
        }
        Ok(out)
    }
}

impl Optimizer for LBFGS {
    fn name(&self) -> &'static str {
        "LBFGS"
    }
    fn step(&mut self) -> Result<()> {
        Err(BorchError::Type(
            "LBFGS.step() missing 1 required positional argument: 'closure'".into(),
        ))
    }
    fn step_with_closure(&mut self, closure: &mut Closure<'_>) -> Result<f64> {
        self.step_closure(closure)
    }
    fn zero_grad(&mut self, set_to_none: bool) -> Result<()> {
        crate::optimizer::zero_grads(&self.params, set_to_none)
    }
    fn num_param_groups(&self) -> usize {
        1
    }
    fn group_params(&self, _: usize) -> &[Tensor] {
        &self.params
    }
    fn lr(&self, _: usize) -> f64 {
        self.options.lr
    }
    fn set_lr(&mut self, _: usize, lr: f64) {
        self.options.lr = lr;
    }
    fn momentum_kind(&self) -> MomentumKind {
        MomentumKind::None
    }
    fn momentum(&self, _: usize) -> Option<f64> {
        None
    }
    fn set_momentum(&mut self, _: usize, _: f64) {}
    fn group_extra(&self, _: usize, key: &str) -> Option<f64> {
        self.extra.get(key).copied()
    }
    fn set_group_extra(&mut self, _: usize, key: &str, value: f64) {
        self.extra.insert(key.into(), value);
    }
    fn group_options(&self, group: usize) -> Result<BTreeMap<String, Value>> {
        if group != 0 {
            return Err(BorchError::Index("list index out of range".into()));
        }
        let mut map = self.options.declared_map();
        for (k, v) in &self.extra {
            map.insert(k.clone(), Value::Float(*v));
        }
        Ok(map)
    }
    fn set_group_option(&mut self, group: usize, key: &str, value: Value) -> Result<()> {
        if group != 0 {
            return Err(BorchError::Index("list index out of range".into()));
        }
        let mut map = self.options.declared_map();
        if map.contains_key(key) {
            map.insert(key.into(), value);
            let options = LBFGSOptions::declared_read(&map)?;
            check_line_search(&options.line_search_fn)?;
            self.options = options;
            return Ok(());
        }
        match value.as_f64() {
            Some(x) => {
                self.extra.insert(key.into(), x);
                Ok(())
            }
            None => Err(BorchError::NotImplemented(format!(
                "param group entry '{key}': borch keeps only numbers besides the LBFGS options"
            ))),
        }
    }
    /// torch's state of `params[0]`: borch gives `func_evals` and `n_iter` (its history stays
    /// inside the optimizer).
    fn state_dict(&self) -> StateDict {
        let mut state = BTreeMap::new();
        if self.history.func_evals > 0 {
            let mut s = ParamState::default();
            s.set_scalar("func_evals", self.history.func_evals as f64);
            s.set_scalar("n_iter", self.history.n_iter as f64);
            state.insert(0, s);
        }
        let mut options = self.options.declared_map();
        for (k, v) in &self.extra {
            options.insert(k.clone(), Value::Float(*v));
        }
        StateDict {
            state,
            param_groups: vec![GroupState {
                options,
                params: (0..self.params.len()).collect(),
            }],
        }
    }
    fn load_state_dict(&mut self, _: &StateDict) -> Result<()> {
        Err(BorchError::NotImplemented(
            "LBFGS.load_state_dict: borch does not save or restore LBFGS's history (its \
             directions, steps and previous gradient); make a new LBFGS instead"
                .into(),
        ))
    }
}
