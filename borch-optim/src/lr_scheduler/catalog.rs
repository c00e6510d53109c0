//! The scheduler catalog: every scheduler of `torch.optim.lr_scheduler` by its torch name, with
//! its signature (after the optimizer) in the op catalog's syntax and one builder, and
//! [`Scheduler`], which steps epoch schedulers, ReduceLROnPlateau, SequentialLR and
//! ChainedScheduler alike. Bindings build schedulers here by name; a new scheduler is one entry.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use borch_tensor::{BorchError, Result};

use super::args::Bound;
use super::{
    AnnealStrategy, ChainedScheduler, ConstantLR, CosineAnnealingLR, CosineAnnealingWarmRestarts,
    CyclicLR, CyclicOptions, ExponentialLR, LRScheduler, LambdaLR, LinearLR, LrLambda, MultiStepLR,
    MultiplicativeLR, OneCycleLR, OneCycleOptions, PlateauOptions, PolynomialLR, ReduceLROnPlateau,
    SchedulerState, SequentialLR, StepLR,
};
use crate::optimizer::Optimizer;
use crate::value::Value;

/// A scheduler shared by its owner and the SequentialLR or ChainedScheduler that steps it.
pub type SharedScheduler = Rc<RefCell<Scheduler>>;

/// Any scheduler of the catalog.
pub enum Scheduler {
    /// An epoch-driven scheduler, with its torch name.
    Epoch(&'static str, Box<dyn LRScheduler>),
    /// ReduceLROnPlateau, stepped with a metric.
    Plateau(ReduceLROnPlateau),
    /// SequentialLR.
    Sequential(SequentialLR),
    /// ChainedScheduler.
    Chained(ChainedScheduler),
}

impl Scheduler {
    /// torch's class name.
    pub fn name(&self) -> &'static str {
        match self {
            Scheduler::Epoch(name, _) => name,
            Scheduler::Plateau(_) => "ReduceLROnPlateau",
            Scheduler::Sequential(_) => "SequentialLR",
            Scheduler::Chained(_) => "ChainedScheduler",
        }
    }

    /// torch's `step()`, or ReduceLROnPlateau's `step(metrics)`.
    pub fn step(&mut self, optimizer: &mut dyn Optimizer, metrics: Option<f64>) -> Result<()> {
        match (self, metrics) {
            (Scheduler::Plateau(p), Some(m)) => p.step(optimizer, m),
            (Scheduler::Plateau(_), None) => Err(BorchError::Type(
                "ReduceLROnPlateau.step() missing 1 required positional argument: 'metrics'".into(),
            )),
            (s, Some(_)) => Err(BorchError::NotImplemented(format!(
                "{}.step(epoch) is not supported by borch (torch deprecates it); call step()",
                s.name()
            ))),
            (Scheduler::Epoch(_, s), None) => s.step(optimizer),
            (Scheduler::Sequential(s), None) => s.step(optimizer),
            (Scheduler::Chained(s), None) => s.step(optimizer),
        }
    }

    /// torch's `get_last_lr()`.
    pub fn get_last_lr(&self) -> Vec<f64> {
        match self {
            Scheduler::Epoch(_, s) => s.get_last_lr(),
            Scheduler::Plateau(p) => p.get_last_lr(),
            Scheduler::Sequential(s) => s.get_last_lr(),
            Scheduler::Chained(s) => s.get_last_lr(),
        }
    }

    /// torch's `last_epoch` (ChainedScheduler has none: its last child's).
    pub fn last_epoch(&self) -> i64 {
        match self {
            Scheduler::Epoch(_, s) => s.last_epoch(),
            Scheduler::Plateau(p) => p.last_epoch,
            Scheduler::Sequential(s) => s.last_epoch,
            Scheduler::Chained(s) => s
                .schedulers
                .last()
                .and_then(|c| c.try_borrow().ok().map(|c| c.last_epoch()))
                .unwrap_or(0),
        }
    }

    /// torch's `state_dict()`, key for key.
    pub fn state_dict(&self) -> Result<BTreeMap<String, Value>> {
        match self {
            Scheduler::Epoch(_, s) => Ok(s.state_dict().to_map()),
            Scheduler::Plateau(p) => Ok(p.state_dict()),
            Scheduler::Sequential(s) => s.state_dict(),
            Scheduler::Chained(s) => s.state_dict(),
        }
    }

    /// torch's `load_state_dict(state_dict)`.
    pub fn load_state_dict(&mut self, state: &BTreeMap<String, Value>) -> Result<()> {
        match self {
            Scheduler::Epoch(_, s) => s.load_state_dict(&SchedulerState::from_map(state)?),
            Scheduler::Plateau(p) => p.load_state_dict(state),
            Scheduler::Sequential(s) => s.load_state_dict(state),
            Scheduler::Chained(s) => s.load_state_dict(state),
        }
    }
}

/// A scheduler's arguments after the optimizer: positional values and keywords by torch's
/// names, with the functions (LambdaLR, MultiplicativeLR) and child schedulers (SequentialLR,
/// ChainedScheduler) given apart, since they are not values.
#[derive(Default, Clone)]
pub struct SchedulerArgs {
    /// Positional values after the optimizer.
    pub positional: Vec<Value>,
    /// Keyword values by torch's names.
    pub keywords: BTreeMap<String, Value>,
    /// `lr_lambda`: one function for all groups or one per group.
    pub lr_lambdas: Vec<LrLambda>,
    /// `schedulers`: the children of SequentialLR or ChainedScheduler.
    pub schedulers: Vec<SharedScheduler>,
}

/// One scheduler of the catalog.
pub struct SchedulerEntry {
    /// torch's class name.
    pub name: &'static str,
    /// The parameters after `optimizer` (ChainedScheduler's: `schedulers`, then `optimizer`).
    pub signature: &'static str,
    build: fn(&mut dyn Optimizer, &Bound, SchedulerArgs) -> Result<Scheduler>,
}

impl SchedulerEntry {
    /// Bind `args` to the signature and build on `optimizer`.
    pub fn build(&self, optimizer: &mut dyn Optimizer, args: SchedulerArgs) -> Result<Scheduler> {
        let bound = Bound::bind(self.name, self.signature, &args)?;
        if bound.has("last_epoch") && bound.i64("last_epoch")? != -1 {
            return Err(BorchError::NotImplemented(format!(
                "{}(last_epoch={}) is not supported by borch: resume a schedule with \
                 load_state_dict instead",
                self.name,
                bound.i64("last_epoch")?
            )));
        }
        (self.build)(optimizer, &bound, args)
    }
}

fn epoch<S: LRScheduler + 'static>(name: &'static str, s: Result<S>) -> Result<Scheduler> {
    Ok(Scheduler::Epoch(name, Box::new(s?)))
}

fn lambdas(name: &str, args: &SchedulerArgs) -> Result<Vec<LrLambda>> {
    if args.lr_lambdas.is_empty() {
        return Err(BorchError::Type(format!(
            "{name}() missing 1 required positional argument: 'lr_lambda'"
        )));
    }
    Ok(args.lr_lambdas.clone())
}

const ALL: &[SchedulerEntry] = &[
    SchedulerEntry {
        name: "LambdaLR",
        signature: "lr_lambda: Function, last_epoch: Int = -1",
        build: |o, _, a| {
            let fns = lambdas("LambdaLR", &a)?;
            let n = o.num_param_groups();
            let fns = if fns.len() == 1 && n != 1 {
                vec![fns[0].clone(); n]
            } else {
                fns
            };
            epoch("LambdaLR", LambdaLR::per_group(o, fns))
        },
    },
    SchedulerEntry {
        name: "MultiplicativeLR",
        signature: "lr_lambda: Function, last_epoch: Int = -1",
        build: |o, _, a| {
            let fns = lambdas("MultiplicativeLR", &a)?;
            epoch("MultiplicativeLR", MultiplicativeLR::new(o, fns))
        },
    },
    SchedulerEntry {
        name: "StepLR",
        signature: "step_size: Int, gamma: Float = 0.1, last_epoch: Int = -1",
        build: |o, b, _| {
            epoch(
                "StepLR",
                StepLR::new(o, b.i64("step_size")?, b.f64("gamma")?),
            )
        },
    },
    SchedulerEntry {
        name: "MultiStepLR",
        signature: "milestones: Ints, gamma: Float = 0.1, last_epoch: Int = -1",
        build: |o, b, _| {
            let m = b.ints("milestones")?;
            epoch("MultiStepLR", MultiStepLR::new(o, &m, b.f64("gamma")?))
        },
    },
    SchedulerEntry {
        name: "ConstantLR",
        signature: "factor: Float = 0.3333333333333333, total_iters: Int = 5, last_epoch: Int = -1",
        build: |o, b, _| {
            let s = ConstantLR::new(o, b.f64("factor")?, b.i64("total_iters")?);
            epoch("ConstantLR", s)
        },
    },
    SchedulerEntry {
        name: "LinearLR",
        signature: "start_factor: Float = 0.3333333333333333, end_factor: Float = 1.0, \
                    total_iters: Int = 5, last_epoch: Int = -1",
        build: |o, b, _| {
            let (s, e) = (b.f64("start_factor")?, b.f64("end_factor")?);
            epoch("LinearLR", LinearLR::new(o, s, e, b.i64("total_iters")?))
        },
    },
    SchedulerEntry {
        name: "ExponentialLR",
        signature: "gamma: Float, last_epoch: Int = -1",
        build: |o, b, _| epoch("ExponentialLR", ExponentialLR::new(o, b.f64("gamma")?)),
    },
    SchedulerEntry {
        name: "SequentialLR",
        signature: "schedulers: Schedulers, milestones: Ints, last_epoch: Int = -1",
        build: |o, b, a| {
            let s = SequentialLR::new(o, a.schedulers.clone(), b.ints("milestones")?)?;
            Ok(Scheduler::Sequential(s))
        },
    },
    SchedulerEntry {
        name: "CosineAnnealingLR",
        signature: "T_max: Int, eta_min: Float = 0.0, last_epoch: Int = -1",
        build: |o, b, _| {
            let s = CosineAnnealingLR::new(o, b.i64("T_max")?, b.f64("eta_min")?);
            epoch("CosineAnnealingLR", s)
        },
    },
    SchedulerEntry {
        name: "ChainedScheduler",
        signature: "schedulers: Schedulers, optimizer: Optimizer = None",
        build: |o, _, a| Ok(Scheduler::Chained(ChainedScheduler::new(o, a.schedulers)?)),
    },
    SchedulerEntry {
        name: "ReduceLROnPlateau",
        signature: "mode: Str = 'min', factor: Float = 0.1, patience: Int = 10, threshold: Float \
                    = 0.0001, threshold_mode: Str = 'rel', cooldown: Int = 0, min_lr: Floats = \
                    0.0, eps: Float = 1e-08",
        build: |o, b, _| {
            let options = PlateauOptions {
                mode: b.str("mode")?,
                factor: b.f64("factor")?,
                patience: b.i64("patience")?,
                threshold: b.f64("threshold")?,
                threshold_mode: b.str("threshold_mode")?,
                cooldown: b.i64("cooldown")?,
                min_lr: b.per_group("min_lr")?,
                eps: b.f64("eps")?,
            };
            Ok(Scheduler::Plateau(ReduceLROnPlateau::new(o, options)?))
        },
    },
    SchedulerEntry {
        name: "CyclicLR",
        signature: "base_lr: Floats, max_lr: Floats, step_size_up: Int = 2000, step_size_down: \
                    Int = None, mode: Str = 'triangular', gamma: Float = 1.0, scale_fn: Function \
                    = None, scale_mode: Str = 'cycle', cycle_momentum: Bool = True, \
                    base_momentum: Floats = 0.8, max_momentum: Floats = 0.9, last_epoch: Int = -1",
        build: |o, b, a| {
            if !a.lr_lambdas.is_empty() {
                return Err(BorchError::NotImplemented(
                    "CyclicLR(scale_fn=...) is not supported by borch; use mode='triangular', \
                     'triangular2' or 'exp_range'"
                        .into(),
                ));
            }
            let options = CyclicOptions {
                step_size_up: b.i64("step_size_up")? as f64,
                step_size_down: b.opt_i64("step_size_down")?.map(|x| x as f64),
                mode: b.str("mode")?,
                gamma: b.f64("gamma")?,
                scale_mode: b.str("scale_mode")?,
                cycle_momentum: b.bool("cycle_momentum")?,
                base_momentum: b.per_group("base_momentum")?,
                max_momentum: b.per_group("max_momentum")?,
            };
            let s = CyclicLR::new(o, b.per_group("base_lr")?, b.per_group("max_lr")?, options);
            epoch("CyclicLR", s)
        },
    },
    SchedulerEntry {
        name: "CosineAnnealingWarmRestarts",
        signature: "T_0: Int, T_mult: Int = 1, eta_min: Float = 0.0, last_epoch: Int = -1",
        build: |o, b, _| {
            let s = CosineAnnealingWarmRestarts::new(
                o,
                b.i64("T_0")?,
                b.i64("T_mult")?,
                b.f64("eta_min")?,
            );
            epoch("CosineAnnealingWarmRestarts", s)
        },
    },
    SchedulerEntry {
        name: "OneCycleLR",
        signature: "max_lr: Floats, total_steps: Int = None, epochs: Int = None, \
                    steps_per_epoch: Int = None, pct_start: Float = 0.3, anneal_strategy: Str = \
                    'cos', cycle_momentum: Bool = True, base_momentum: Floats = 0.85, \
                    max_momentum: Floats = 0.95, div_factor: Float = 25.0, final_div_factor: \
                    Float = 10000.0, three_phase: Bool = False, last_epoch: Int = -1",
        build: |o, b, _| {
            let anneal_strategy = match b.str("anneal_strategy")?.as_str() {
                "cos" => AnnealStrategy::Cos,
                "linear" => AnnealStrategy::Linear,
                other => {
                    return Err(BorchError::Value(format!(
                        "anneal_strategy must be one of 'cos' or 'linear', instead got {other}"
                    )));
                }
            };
            let options = OneCycleOptions {
                total_steps: b.opt_i64("total_steps")?,
                epochs: b.opt_i64("epochs")?,
                steps_per_epoch: b.opt_i64("steps_per_epoch")?,
                pct_start: b.f64("pct_start")?,
                anneal_strategy,
                cycle_momentum: b.bool("cycle_momentum")?,
                base_momentum: b.per_group("base_momentum")?,
                max_momentum: b.per_group("max_momentum")?,
                div_factor: b.f64("div_factor")?,
                final_div_factor: b.f64("final_div_factor")?,
                three_phase: b.bool("three_phase")?,
            };
            epoch(
                "OneCycleLR",
                OneCycleLR::new(o, b.per_group("max_lr")?, options),
            )
        },
    },
    SchedulerEntry {
        name: "PolynomialLR",
        signature: "total_iters: Int = 5, power: Float = 1.0, last_epoch: Int = -1",
        build: |o, b, _| {
            let s = PolynomialLR::new(o, b.i64("total_iters")?, b.f64("power")?);
            epoch("PolynomialLR", s)
        },
    },
];

/// Every scheduler of `torch.optim.lr_scheduler`, in torch's `__all__` order.
pub fn schedulers() -> &'static [SchedulerEntry] {
    ALL
}

/// The schedulers' torch names, in the catalog's order.
pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|e| e.name).collect()
}

/// The entry of scheduler `name`, or torch's `AttributeError` wording.
pub fn find(name: &str) -> Result<&'static SchedulerEntry> {
    ALL.iter().find(|e| e.name == name).ok_or_else(|| {
        BorchError::Type(format!(
            "module 'torch.optim.lr_scheduler' has no attribute '{name}'"
        ))
    })
}

/// torch's `lr_scheduler.<name>(optimizer, *args, **kwargs)`.
pub fn build(name: &str, optimizer: &mut dyn Optimizer, args: SchedulerArgs) -> Result<Scheduler> {
    find(name)?.build(optimizer, args)
}
