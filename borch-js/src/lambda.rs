//! LambdaLR's JavaScript `lrLambda(epoch)`. The core asks for the factor inside its step, where
//! a JavaScript throw or a non-number could only become NaN (a learning rate of NaN, silently);
//! so the binding calls the function first, once per epoch, and a throw or a non-number is the
//! step's (or the constructor's) error before any learning rate is set. The core's own call
//! then reads the value computed for that epoch.

use std::cell::Cell;
use std::rc::Rc;

use borch_optim::lr_scheduler::LrLambda;
use js_sys::Function;
use wasm_bindgen::prelude::*;

use crate::errors::{JsResult, type_error};

pub struct JsLambda {
    f: Function,
    /// The epoch last evaluated and its factor.
    computed: Cell<Option<(i64, f64)>>,
}

impl JsLambda {
    /// `f`, which must be a function (LambdaLR's second argument).
    pub fn new(f: &JsValue) -> JsResult<Rc<JsLambda>> {
        let f = crate::bind::function("LambdaLR", 2, f)?;
        Ok(Rc::new(JsLambda {
            f,
            computed: Cell::new(None),
        }))
    }

    /// Call `lrLambda(epoch)` now: its error, or a TypeError when it gives no number.
    pub fn prepare(&self, epoch: i64) -> JsResult<()> {
        let v = self
            .f
            .call1(&JsValue::UNDEFINED, &JsValue::from_f64(epoch as f64))?;
        let factor = v.as_f64().ok_or_else(|| {
            type_error(format!(
                "LambdaLR: lr_lambda({epoch}) must return a number, not {}",
                crate::js::type_name(&v)
            ))
        })?;
        self.computed.set(Some((epoch, factor)));
        Ok(())
    }

    /// The factor for the core: the one `prepare` computed for `epoch` (NaN for an epoch it did
    /// not prepare, which the binding never lets the core ask for).
    pub fn for_core(self: &Rc<Self>) -> LrLambda {
        let this = self.clone();
        Rc::new(move |epoch| match this.computed.get() {
            Some((e, factor)) if e == epoch => factor,
            _ => f64::NAN,
        })
    }
}
