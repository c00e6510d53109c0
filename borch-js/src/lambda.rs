//! LambdaLR's (and MultiplicativeLR's) JavaScript `lrLambda(epoch)`. The core asks for the
//! factor inside its step, where
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
    name: String,
    /// The epochs last evaluated and their factors (the next epoch, and 0 for SequentialLR's
    /// restart of a child).
    computed: Cell<[Option<(i64, f64)>; 2]>,
}

impl JsLambda {
    /// `f`, which must be a function (the scheduler's `lr_lambda`).
    pub fn new(scheduler: &str, f: &JsValue) -> JsResult<Rc<JsLambda>> {
        let f = crate::bind::function(scheduler, 2, f)?;
        Ok(Rc::new(JsLambda {
            f,
            name: scheduler.to_string(),
            computed: Cell::new([None, None]),
        }))
    }

    /// Call `lrLambda(epoch)` now for each of `epochs` (at most two): its error, or a TypeError
    /// when it gives no number.
    pub fn prepare(&self, epochs: &[i64]) -> JsResult<()> {
        let mut computed = [None, None];
        for (slot, &epoch) in computed.iter_mut().zip(epochs) {
            let v = self
                .f
                .call1(&JsValue::UNDEFINED, &JsValue::from_f64(epoch as f64))?;
            let factor = v.as_f64().ok_or_else(|| {
                type_error(format!(
                    "{}: lr_lambda({epoch}) must return a number, not {}",
                    self.name,
                    crate::js::type_name(&v)
                ))
            })?;
            *slot = Some((epoch, factor));
        }
        self.computed.set(computed);
        Ok(())
    }

    /// The factor for the core: the one `prepare` computed for `epoch` (NaN for an epoch it did
    /// not prepare, which the binding never lets the core ask for).
    pub fn for_core(self: &Rc<Self>) -> LrLambda {
        let this = self.clone();
        Rc::new(move |epoch| {
            let found = this
                .computed
                .get()
                .into_iter()
                .flatten()
                .find(|(e, _)| *e == epoch);
            found.map_or(f64::NAN, |(_, factor)| factor)
        })
    }
}
