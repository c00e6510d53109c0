//! `optim` and `optim.lrScheduler`: one JavaScript class per kind, `Optimizer` and `LRScheduler`,
//! made by name through `newOptimizer(name, params, options)` and `newScheduler(name, optimizer,
//! args)`, which forward to the core's catalogs (`borch_optim::catalog`,
//! `borch_optim::lr_scheduler::catalog`). The package's `optim.Adam`, `optim.lrScheduler.StepLR`,
//! … are generated from those catalogs by `cargo xtask build-js` (`xtask/src/js_api/
//! optim_classes.rs`); nothing here is per optimizer or per scheduler.

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::bind;
use crate::errors::JsResult;
use crate::optimizers::{Opt, Sched, numbers, state_dict_js};
use crate::param_groups::param_groups;

/// An optimizer of `torch.optim`, made by `newOptimizer` (the package's `new optim.Adam(…)`).
#[wasm_bindgen(js_name = Optimizer)]
pub struct JsOptimizer(Opt);

/// torch's `optim.<name>(params, **options)`: `params` is an array of Tensors or of param-group
/// objects (`{ params, ...options }`); `options` holds camelCase keyword arguments.
#[wasm_bindgen(js_name = newOptimizer)]
pub fn new_optimizer(
    name: &str,
    #[wasm_bindgen(
        unchecked_param_type = "Tensor[] | Array<{ params: Tensor[]; [option: string]: unknown }>"
    )]
    params: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Record<string, unknown>")] options: JsValue,
) -> JsResult<JsOptimizer> {
    Opt::build(name, &params, &options).map(JsOptimizer)
}

#[wasm_bindgen(js_class = Optimizer)]
impl JsOptimizer {
    /// torch's class name (`"Adam"`).
    #[wasm_bindgen(getter = optimizerName)]
    pub fn optimizer_name(&self) -> JsResult<String> {
        self.0.with(|o| Ok(o.name().to_string()))
    }

    /// torch's `step()`: one fused update of every parameter that has a `.grad`.
    pub fn step(&self) -> JsResult<()> {
        self.0.with(|o| o.step())
    }

    /// torch's `zero_grad(set_to_none=True)`.
    #[wasm_bindgen(js_name = zeroGrad)]
    pub fn zero_grad(
        &self,
        #[wasm_bindgen(js_name = setToNone, unchecked_optional_param_type = "boolean")] set_to_none: Option<
            JsValue,
        >,
    ) -> JsResult<()> {
        let set_to_none = bind::flag("zero_grad", "set_to_none: Bool = True", set_to_none)?;
        self.0.with(|o| o.zero_grad(set_to_none))
    }

    /// torch's `state_dict()`: `{ state, paramGroups }` with camelCase keys; state tensors alias
    /// the optimizer's.
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
        #[wasm_bindgen(
            js_name = stateDict,
            unchecked_param_type = "{ state: object; paramGroups: object[] }"
        )]
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

/// A learning-rate scheduler of `torch.optim.lr_scheduler`, made by `newScheduler` (the
/// package's `new optim.lrScheduler.StepLR(…)`).
#[wasm_bindgen(js_name = LRScheduler)]
pub struct JsLRScheduler(Sched);

/// torch's `lr_scheduler.<name>(optimizer, *args, **kwargs)`: `args` are the arguments after
/// the optimizer, the last one optionally an object of camelCase keyword arguments.
#[wasm_bindgen(js_name = newScheduler)]
pub fn new_scheduler(
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "Optimizer | null | undefined")] optimizer: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] args: Array,
) -> JsResult<JsLRScheduler> {
    Sched::build(name, &optimizer, &args).map(JsLRScheduler)
}

#[wasm_bindgen(js_class = LRScheduler)]
impl JsLRScheduler {
    /// torch's `step()`; ReduceLROnPlateau's `step(metrics)`.
    pub fn step(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] metrics: Option<JsValue>,
    ) -> JsResult<()> {
        self.0.step(&metrics.unwrap_or_default())
    }

    /// torch's `get_last_lr()`: one learning rate per param group.
    #[wasm_bindgen(js_name = getLastLr, unchecked_return_type = "number[]")]
    pub fn get_last_lr(&self) -> JsResult<Array> {
        self.0.with(|s| Ok(numbers(s.get_last_lr())))
    }

    /// torch's `last_epoch`.
    #[wasm_bindgen(getter = lastEpoch)]
    pub fn last_epoch(&self) -> JsResult<f64> {
        self.0.with(|s| Ok(s.last_epoch() as f64))
    }

    /// torch's class name (`"StepLR"`).
    #[wasm_bindgen(getter = schedulerName)]
    pub fn scheduler_name(&self) -> JsResult<String> {
        self.0.with(|s| Ok(s.name().to_string()))
    }

    /// torch's `state_dict()`: the scheduler's attributes under torch's own names (`base_lrs`,
    /// `last_epoch`, `_step_count`, …), JSON-serialisable.
    #[wasm_bindgen(js_name = stateDict, unchecked_return_type = "Record<string, unknown>")]
    pub fn state_dict(&self) -> JsResult<Object> {
        self.0.state_dict()
    }

    /// torch's `load_state_dict(state_dict)`.
    #[wasm_bindgen(js_name = loadStateDict)]
    pub fn load_state_dict(
        &self,
        #[wasm_bindgen(js_name = stateDict, unchecked_param_type = "Record<string, unknown>")]
        state_dict: JsValue,
    ) -> JsResult<()> {
        self.0.load_state_dict(&state_dict)
    }

    /// The registry id SequentialLR and ChainedScheduler find this scheduler by.
    #[wasm_bindgen(getter = __borchScheduler)]
    pub fn scheduler_id(&self) -> f64 {
        self.0.id as f64
    }
}

/// The optimizer names of the catalog, for `namespaces()`.
pub fn optimizers() -> Vec<&'static str> {
    borch_optim::catalog::names()
}

/// The scheduler names of the catalog, for `namespaces()`.
pub fn schedulers() -> Vec<&'static str> {
    borch_optim::lr_scheduler::catalog::names()
}
