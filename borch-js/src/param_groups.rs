//! `optimizer.paramGroups`: one object per param group whose `lr` (and every other entry, through
//! `get`/`set`) reads and writes the optimizer's group, as torch's `param_groups[i]["lr"] = …`.

use borch_optim::Optimizer;
use borch_tensor::BorchError;
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::bind;
use crate::call::snake;
use crate::errors::{JsResult, to_js};
use crate::modules::tensors;
use crate::optimizers::{Opt, Shared, borrow, dict_js, option_value, value_js};

/// One param group of an optimizer, live: writes change the optimizer's next `step()`.
#[wasm_bindgen(js_name = ParamGroup)]
pub struct JsParamGroup {
    optimizer: Shared,
    index: usize,
}

impl JsParamGroup {
    fn with<R>(
        &self,
        f: impl FnOnce(&mut dyn Optimizer) -> borch_tensor::Result<R>,
    ) -> JsResult<R> {
        f(&mut **borrow(&self.optimizer)?).map_err(to_js)
    }
}

/// The groups of `opt`, in order.
pub fn param_groups(opt: &Opt) -> JsResult<Array> {
    let count = borrow(&opt.inner)?.num_param_groups();
    Ok((0..count)
        .map(|index| {
            JsValue::from(JsParamGroup {
                optimizer: opt.inner.clone(),
                index,
            })
        })
        .collect())
}

/// A key argument, bound as torch's `__getitem__(key: str)`.
fn key_of(key: &JsValue) -> JsResult<String> {
    bind::build("__getitem__", "key: Str", &Array::of1(key), |a| {
        a.str(0).map(str::to_string)
    })
}

#[wasm_bindgen(js_class = ParamGroup)]
impl JsParamGroup {
    /// `param_groups[i]["params"]`.
    #[wasm_bindgen(getter, unchecked_return_type = "Tensor[]")]
    pub fn params(&self) -> JsResult<Array> {
        self.with(|o| Ok(tensors(o.group_params(self.index).to_vec())))
    }

    /// `param_groups[i]["lr"]`.
    #[wasm_bindgen(getter)]
    pub fn lr(&self) -> JsResult<f64> {
        self.with(|o| Ok(o.lr(self.index)))
    }

    /// `param_groups[i]["lr"] = lr`: the learning rate of the next `step()`.
    #[wasm_bindgen(setter)]
    pub fn set_lr(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] lr: JsValue,
    ) -> JsResult<()> {
        let lr = bind::build("lr", "lr: Float", &Array::of1(&lr), |a| a.f64(0))?;
        self.with(|o| o.set_group_option(self.index, "lr", lr.into()))
    }

    /// `param_groups[i][key]` (camelCase or torch's snake_case); a missing key throws torch's
    /// `KeyError`.
    pub fn get(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
    ) -> JsResult<JsValue> {
        let key = key_of(&key)?;
        let key = key.as_str();
        if key == "params" {
            return self.params().map(JsValue::from);
        }
        let options = self.with(|o| o.group_options(self.index))?;
        options
            .get(&snake(key))
            .map(value_js)
            .ok_or_else(|| to_js(BorchError::Key(format!("'{key}'"))))
    }

    /// `param_groups[i][key] = value`: an option of the algorithm (`momentum`, `weightDecay`,
    /// `betas`, …) or a number a scheduler keeps there (`initialLr`).
    pub fn set(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
        value: JsValue,
    ) -> JsResult<()> {
        let key = key_of(&key)?;
        let value = option_value(&value)?;
        self.with(|o| o.set_group_option(self.index, &snake(&key), value))
    }

    /// Every entry but `params`, as a plain object with camelCase keys (a copy).
    #[wasm_bindgen(js_name = toObject, unchecked_return_type = "Record<string, unknown>")]
    pub fn to_object(&self) -> JsResult<Object> {
        self.with(|o| o.group_options(self.index).map(|d| dict_js(&d)))
    }
}
