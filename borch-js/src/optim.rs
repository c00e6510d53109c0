//! `optim` and `optim.lrScheduler`: torch's optimizers (`new SGD(params, { lr, momentum })`) and
//! learning-rate schedulers (`new StepLR(optimizer, { stepSize, gamma })`) as JavaScript classes
//! forwarding to `borch_optim`. Options objects take camelCase keys. The package groups these
//! classes under `optim` and `optim.lrScheduler` (see `namespaces()`).

use borch_optim::lr_scheduler::{
    CosineAnnealingLR, ExponentialLR, LRScheduler, LinearLR, MultiStepLR, OneCycleLR,
    OneCycleOptions, PlateauOptions, ReduceLROnPlateau, StepLR,
};
use borch_optim::{AdagradOptions, AdamOptions, AdamWOptions, RMSpropOptions, SgdOptions};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::bind::{self, ints, opt_i64};
use crate::errors::{JsResult, to_js};
use crate::optimizers::{
    Opt, Sched, Shared, anneal_strategy, borrow, numbers, optimizer_of, scheduler_dict,
    state_dict_js, torch_dict_js,
};
use crate::param_groups::param_groups;

macro_rules! optimizer_classes {
    ($(
        $(#[$doc:meta])*
        $rust:ident as $js:ident($options:ty, $ts:tt);
    )*) => {
        $(
            $(#[$doc])*
            #[wasm_bindgen(js_name = $js)]
            pub struct $rust(Opt);

            #[wasm_bindgen(js_class = $js)]
            impl $rust {
                /// torch's constructor: `params` is an array of Tensors or of param-group objects
                /// (`{ params, ...options }`); `options` holds camelCase keyword arguments.
                #[wasm_bindgen(constructor)]
                pub fn new(
                    #[wasm_bindgen(
                        unchecked_param_type = "Tensor[] | Array<{ params: Tensor[]; [option: string]: unknown }>"
                    )]
                    params: JsValue,
                    #[wasm_bindgen(unchecked_param_type = $ts)] options: JsValue,
                ) -> JsResult<$rust> {
                    Opt::build::<$options>(stringify!($js), &params, &options).map($rust)
                }

                /// torch's `step()`: one fused update of every parameter that has a `.grad`.
                pub fn step(&self) -> JsResult<()> {
                    self.0.with(|o| o.step())
                }

                /// torch's `zero_grad(set_to_none=True)`.
                #[wasm_bindgen(js_name = zeroGrad)]
                pub fn zero_grad(
                &self,
                #[wasm_bindgen(js_name = setToNone, unchecked_param_type = "boolean")]
                set_to_none: Option<JsValue>,
            ) -> JsResult<()> {
                    let set_to_none =
                        bind::flag("zero_grad", "set_to_none: Bool = True", set_to_none)?;
                    self.0.with(|o| o.zero_grad(set_to_none))
                }

                /// torch's `state_dict()`: `{ state, paramGroups }` with camelCase keys; state
                /// tensors alias the optimizer's.
                #[wasm_bindgen(
                    js_name = stateDict,
                    unchecked_return_type = "{ state: Record<string, Record<string, number | Tensor>>; paramGroups: Array<Record<string, unknown>> }"
                )]
                pub fn state_dict(&self) -> JsResult<Object> {
                    self.0.with(|o| Ok(state_dict_js(o.state_dict())))
                }

                /// torch's `load_state_dict(state_dict)` (copies the state tensors).
                #[wasm_bindgen(js_name = loadStateDict)]
                pub fn load_state_dict(
                    &self,
                    #[wasm_bindgen(js_name = stateDict, unchecked_param_type = "{ state: object; paramGroups: object[] }")]
                    state_dict: JsValue,
                ) -> JsResult<()> {
                    self.0.load_state_dict(&state_dict)
                }

                /// torch's `param_groups`: one live `ParamGroup` per group (`g.lr = 0.01`).
                #[wasm_bindgen(getter = paramGroups, unchecked_return_type = "ParamGroup[]")]
                pub fn param_groups(&self) -> JsResult<Array> {
                    param_groups(&self.0)
                }

                /// The registry id schedulers find this optimizer by.
                #[wasm_bindgen(getter = __borchOptimizer)]
                pub fn optimizer_id(&self) -> f64 {
                    self.0.id as f64
                }
            }
        )*

        /// The class names of `optim`, for `namespaces()`.
        pub const OPTIMIZERS: &[&str] = &[$(stringify!($js)),*];
    };
}

optimizer_classes! {
    /// torch's `optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
    /// nesterov=False, maximize=False)`.
    JsSGD as SGD(
        SgdOptions,
        "{ lr?: number; momentum?: number; dampening?: number; weightDecay?: number; nesterov?: boolean; maximize?: boolean }"
    );
    /// torch's `optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    /// amsgrad=False, maximize=False, decoupled_weight_decay=False)`.
    JsAdam as Adam(
        AdamOptions,
        "{ lr?: number; betas?: [number, number]; eps?: number; weightDecay?: number; amsgrad?: boolean; maximize?: boolean; decoupledWeightDecay?: boolean }"
    );
    /// torch's `optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
    /// amsgrad=False, maximize=False)`.
    JsAdamW as AdamW(
        AdamWOptions,
        "{ lr?: number; betas?: [number, number]; eps?: number; weightDecay?: number; amsgrad?: boolean; maximize?: boolean }"
    );
    /// torch's `optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    /// centered=False, maximize=False)`.
    JsRMSprop as RMSprop(
        RMSpropOptions,
        "{ lr?: number; alpha?: number; eps?: number; weightDecay?: number; momentum?: number; centered?: boolean; maximize?: boolean }"
    );
    /// torch's `optim.Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0,
    /// initial_accumulator_value=0, eps=1e-10, maximize=False)`.
    JsAdagrad as Adagrad(
        AdagradOptions,
        "{ lr?: number; lrDecay?: number; weightDecay?: number; initialAccumulatorValue?: number; eps?: number; maximize?: boolean }"
    );
}

/// The methods of every epoch-driven scheduler.
macro_rules! scheduler_methods {
    ($rust:ident, $js:ident) => {
        #[wasm_bindgen(js_class = $js)]
        impl $rust {
            /// torch's `step()`: advance one epoch and set the optimizer's learning rates.
            pub fn step(&mut self) -> JsResult<()> {
                self.0.step()
            }

            /// torch's `get_last_lr()`: one learning rate per param group.
            #[wasm_bindgen(js_name = getLastLr, unchecked_return_type = "number[]")]
            pub fn get_last_lr(&self) -> Array {
                numbers(self.0.inner.get_last_lr())
            }

            /// torch's `last_epoch`.
            #[wasm_bindgen(getter = lastEpoch)]
            pub fn last_epoch(&self) -> f64 {
                self.0.inner.last_epoch() as f64
            }

            /// torch's `state_dict()`: the scheduler's attributes under torch's own names
            /// (`base_lrs`, `last_epoch`, `_step_count`, …), JSON-serialisable.
            #[wasm_bindgen(js_name = stateDict, unchecked_return_type = "Record<string, unknown>")]
            pub fn state_dict(&self) -> Object {
                torch_dict_js(&self.0.inner.state_dict().to_map())
            }

            /// torch's `load_state_dict(state_dict)`.
            #[wasm_bindgen(js_name = loadStateDict)]
            pub fn load_state_dict(
                &mut self,
                #[wasm_bindgen(js_name = stateDict, unchecked_param_type = "Record<string, unknown>")]
                state_dict: JsValue,
            ) -> JsResult<()> {
                self.0.load_state_dict(&state_dict)
            }
        }
    };
}

/// Epoch-driven schedulers: `Rust as JsName("TS rest type", "signature after the optimizer") =
/// |optimizer, args| core constructor;`.
macro_rules! scheduler_classes {
    ($(
        $(#[$doc:meta])*
        $rust:ident as $js:ident($ts:tt, $sig:tt) = |$o:ident, $a:ident| $build:expr;
    )*) => {
        $(
            $(#[$doc])*
            #[wasm_bindgen(js_name = $js)]
            pub struct $rust(Sched);

            #[wasm_bindgen(js_class = $js)]
            impl $rust {
                #[wasm_bindgen(constructor, variadic)]
                pub fn new(
                    #[wasm_bindgen(unchecked_param_type = "SGD | Adam | AdamW | RMSprop | Adagrad")]
                    optimizer: JsValue,
                    #[wasm_bindgen(unchecked_param_type = $ts)] args: Array,
                ) -> JsResult<$rust> {
                    Sched::build(stringify!($js), &optimizer, |$o| {
                        bind::build(stringify!($js), $sig, &args, |$a| {
                            $build.map(|s| Box::new(s) as Box<dyn LRScheduler>)
                        })
                    })
                    .map($rust)
                }
            }

            scheduler_methods!($rust, $js);
        )*

        /// The epoch-driven scheduler class names, for `namespaces()`.
        pub const EPOCH_SCHEDULERS: &[&str] = &[$(stringify!($js)),*];
    };
}

scheduler_classes! {
    /// torch's `StepLR(optimizer, step_size, gamma=0.1)`.
    JsStepLR as StepLR(
        "[stepSize: number, gamma?: number] | [{ stepSize: number; gamma?: number }]",
        "step_size: Int, gamma: Float = 0.1"
    ) = |o, a| StepLR::new(o, a.i64(0)?, a.f64(1)?);
    /// torch's `MultiStepLR(optimizer, milestones, gamma=0.1)`.
    JsMultiStepLR as MultiStepLR(
        "[milestones: number[], gamma?: number] | [{ milestones: number[]; gamma?: number }]",
        "milestones: Ints, gamma: Float = 0.1"
    ) = |o, a| MultiStepLR::new(o, &ints(a, 0)?, a.f64(1)?);
    /// torch's `ExponentialLR(optimizer, gamma)`.
    JsExponentialLR as ExponentialLR(
        "[gamma: number] | [{ gamma: number }]",
        "gamma: Float"
    ) = |o, a| ExponentialLR::new(o, a.f64(0)?);
    /// torch's `CosineAnnealingLR(optimizer, T_max, eta_min=0.0)` (`tMax`, `etaMin`).
    JsCosineAnnealingLR as CosineAnnealingLR(
        "[tMax: number, etaMin?: number] | [{ tMax: number; etaMin?: number }]",
        "t_max: Int, eta_min: Float = 0.0"
    ) = |o, a| CosineAnnealingLR::new(o, a.i64(0)?, a.f64(1)?);
    /// torch's `LinearLR(optimizer, start_factor=1/3, end_factor=1.0, total_iters=5)`.
    JsLinearLR as LinearLR(
        "[startFactor?: number, endFactor?: number, totalIters?: number] | [{ startFactor?: number; endFactor?: number; totalIters?: number }]",
        "start_factor: Float = 0.3333333333333333, end_factor: Float = 1.0, total_iters: Int = 5"
    ) = |o, a| LinearLR::new(o, a.f64(0)?, a.f64(1)?, a.i64(2)?);
    /// torch's `OneCycleLR(optimizer, max_lr, total_steps=None, epochs=None,
    /// steps_per_epoch=None, pct_start=0.3, anneal_strategy='cos', cycle_momentum=True,
    /// base_momentum=0.85, max_momentum=0.95, div_factor=25.0, final_div_factor=1e4,
    /// three_phase=False)`.
    JsOneCycleLR as OneCycleLR(
        "[maxLr: number, options?: { totalSteps?: number; epochs?: number; stepsPerEpoch?: number; pctStart?: number; annealStrategy?: 'cos' | 'linear'; cycleMomentum?: boolean; baseMomentum?: number; maxMomentum?: number; divFactor?: number; finalDivFactor?: number; threePhase?: boolean }]",
        "max_lr: Float, total_steps: Int = None, epochs: Int = None, steps_per_epoch: Int = None, pct_start: Float = 0.3, anneal_strategy: Str = 'cos', cycle_momentum: Bool = True, base_momentum: Float = 0.85, max_momentum: Float = 0.95, div_factor: Float = 25.0, final_div_factor: Float = 10000.0, three_phase: Bool = False"
    ) = |o, a| OneCycleLR::new(o, a.f64(0)?, OneCycleOptions {
        total_steps: opt_i64(a, 1)?,
        epochs: opt_i64(a, 2)?,
        steps_per_epoch: opt_i64(a, 3)?,
        pct_start: a.f64(4)?,
        anneal_strategy: anneal_strategy(a.str(5)?)?,
        cycle_momentum: a.bool(6)?,
        base_momentum: a.f64(7)?.into(),
        max_momentum: a.f64(8)?.into(),
        div_factor: a.f64(9)?,
        final_div_factor: a.f64(10)?,
        three_phase: a.bool(11)?,
    });
}

/// torch's `LambdaLR(optimizer, lr_lambda)`: `lrLambda(epoch)` gives the factor of the initial
/// learning rate.
#[wasm_bindgen(js_name = LambdaLR)]
pub struct JsLambdaLR(Sched);

#[wasm_bindgen(js_class = LambdaLR)]
impl JsLambdaLR {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "SGD | Adam | AdamW | RMSprop | Adagrad")]
        optimizer: JsValue,
        #[wasm_bindgen(js_name = lrLambda, unchecked_param_type = "(epoch: number) => number")]
        f: JsValue,
    ) -> JsResult<JsLambdaLR> {
        Sched::lambda("LambdaLR", &optimizer, &f).map(JsLambdaLR)
    }
}

scheduler_methods!(JsLambdaLR, LambdaLR);

/// torch's `ReduceLROnPlateau(optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4,
/// threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-8)`; `step(metric)` after each epoch.
#[wasm_bindgen(js_name = ReduceLROnPlateau)]
pub struct JsReduceLROnPlateau {
    optimizer: Shared,
    inner: ReduceLROnPlateau,
}

const PLATEAU: &str = "mode: Str = 'min', factor: Float = 0.1, patience: Int = 10, \
     threshold: Float = 0.0001, threshold_mode: Str = 'rel', cooldown: Int = 0, \
     min_lr: Float = 0.0, eps: Float = 1e-08";

#[wasm_bindgen(js_class = ReduceLROnPlateau)]
impl JsReduceLROnPlateau {
    #[wasm_bindgen(constructor, variadic)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "SGD | Adam | AdamW | RMSprop | Adagrad")]
        optimizer: JsValue,
        #[wasm_bindgen(
            unchecked_param_type = "[options?: { mode?: 'min' | 'max'; factor?: number; patience?: number; threshold?: number; thresholdMode?: 'rel' | 'abs'; cooldown?: number; minLr?: number; eps?: number }]"
        )]
        args: Array,
    ) -> JsResult<JsReduceLROnPlateau> {
        let optimizer = optimizer_of("ReduceLROnPlateau", &optimizer)?;
        let inner = bind::build("ReduceLROnPlateau", PLATEAU, &args, |a| {
            let options = PlateauOptions {
                mode: a.str(0)?.to_string(),
                factor: a.f64(1)?,
                patience: a.i64(2)?,
                threshold: a.f64(3)?,
                threshold_mode: a.str(4)?.to_string(),
                cooldown: a.i64(5)?,
                min_lr: a.f64(6)?.into(),
                eps: a.f64(7)?,
            };
            ReduceLROnPlateau::new(
                &mut **borrow(&optimizer).map_err(|_| busy_error())?,
                options,
            )
        })?;
        Ok(JsReduceLROnPlateau { optimizer, inner })
    }

    /// torch's `step(metrics)`.
    pub fn step(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number")] metrics: JsValue,
    ) -> JsResult<()> {
        let metrics = bind::bind("step", "metrics: Float", &Array::of1(&metrics))?;
        let metrics = metrics.f64(0).map_err(to_js)?;
        self.inner
            .step(&mut **borrow(&self.optimizer)?, metrics)
            .map_err(to_js)
    }

    /// torch's `get_last_lr()`.
    #[wasm_bindgen(js_name = getLastLr, unchecked_return_type = "number[]")]
    pub fn get_last_lr(&self) -> Array {
        numbers(self.inner.get_last_lr())
    }

    /// torch's `state_dict()` under torch's names (`num_bad_epochs`, `cooldown_counter`, …).
    #[wasm_bindgen(js_name = stateDict, unchecked_return_type = "Record<string, unknown>")]
    pub fn state_dict(&self) -> Object {
        torch_dict_js(&self.inner.state_dict())
    }

    /// torch's `load_state_dict(state_dict)`.
    #[wasm_bindgen(js_name = loadStateDict)]
    pub fn load_state_dict(
        &mut self,
        #[wasm_bindgen(js_name = stateDict, unchecked_param_type = "Record<string, unknown>")]
        state_dict: JsValue,
    ) -> JsResult<()> {
        let dict = scheduler_dict("ReduceLROnPlateau", &state_dict)?;
        self.inner.load_state_dict(&dict).map_err(to_js)
    }
}

fn busy_error() -> borch_tensor::BorchError {
    borch_tensor::BorchError::Runtime(
        "this optimizer is in use by a call that has not returned".into(),
    )
}

/// The scheduler class names, for `namespaces()`.
pub fn schedulers() -> Vec<&'static str> {
    let mut all = EPOCH_SCHEDULERS.to_vec();
    all.extend(["LambdaLR", "ReduceLROnPlateau"]);
    all
}
