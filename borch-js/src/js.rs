//! Reading JavaScript values that may run user code (a Proxy's traps, getters, a revoked Proxy):
//! every read here catches what that code throws, so a hostile value becomes an error instead of
//! an exception unwinding through Rust frames (which would leave borrows held and memory
//! leaked); arrays are read with their `length` read once and bounded before any element is.
//! Which objects are borch's own is asked of `js/guard.js`, which brands every object the
//! package makes.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use crate::errors::JsResult;

/// The longest array an argument may be (a shape, a list of dims or of tensors, a subscript):
/// longer ones are refused before any element is read.
pub const MAX_LIST: usize = 1 << 16;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array_js(v: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = entries)]
    fn entries_js(v: &JsValue) -> Result<Array, JsValue>;
}

#[wasm_bindgen(module = "/js/guard.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = typeName)]
    fn type_name_js(v: &JsValue) -> Result<String, JsValue>;
    #[wasm_bindgen(catch, js_name = brandedId)]
    fn branded_id_js(v: &JsValue, property: &str) -> Result<Option<f64>, JsValue>;
    #[wasm_bindgen(catch, js_name = freedClass)]
    fn freed_class_js(v: &JsValue) -> Result<Option<String>, JsValue>;
}

/// `Array.isArray(v)` (true for a Proxy of an array; a revoked Proxy throws).
pub fn is_array(v: &JsValue) -> JsResult<bool> {
    is_array_js(v)
}

/// The `length` of the array `v`, read once: `Err(length)` when it is above `max` (or not a
/// length at all, as a Proxy may answer), so that nothing more is read.
pub fn length(v: &JsValue, max: usize) -> JsResult<Result<u32, f64>> {
    let length = Reflect::get(v, &JsValue::from_str("length"))?
        .as_f64()
        .unwrap_or(f64::NAN);
    Ok(
        if length >= 0.0 && length <= max as f64 && length.fract() == 0.0 {
            Ok(length as u32)
        } else {
            Err(length)
        },
    )
}

/// Element `i` of the array `v` (a getter or a Proxy's trap may throw).
pub fn item(v: &JsValue, i: u32) -> JsResult<JsValue> {
    Reflect::get_u32(v, i)
}

/// The elements of `v` when it is an array of at most `MAX_LIST` (a longer one is a TypeError
/// before any element is read), `None` when it is not an array.
pub fn elements(v: &JsValue) -> JsResult<Option<Vec<JsValue>>> {
    if !is_array(v)? {
        return Ok(None);
    }
    let n = length(v, MAX_LIST)?.map_err(|n| {
        crate::errors::type_error(format!(
            "an array of {n} elements is longer than borch-ts reads (at most {MAX_LIST})"
        ))
    })?;
    (0..n)
        .map(|i| item(v, i))
        .collect::<JsResult<_>>()
        .map(Some)
}

/// The own enumerable `[key, value]` pairs of an object (`Object.entries`), at most `MAX_LIST`.
pub fn entries(v: &JsValue) -> JsResult<Vec<(String, JsValue)>> {
    let pairs = entries_js(v)?;
    if pairs.length() as usize > MAX_LIST {
        return Err(crate::errors::type_error(format!(
            "an options object of {} keys is more than borch-ts reads (at most {MAX_LIST})",
            pairs.length()
        )));
    }
    Ok(pairs
        .iter()
        .map(|pair| {
            let pair: Array = pair.unchecked_into();
            (pair.get(0).as_string().unwrap_or_default(), pair.get(1))
        })
        .collect())
}

/// The prototype of an object (a Proxy's trap may throw).
pub fn prototype(v: &JsValue) -> JsResult<JsValue> {
    Reflect::get_prototype_of(v).map(JsValue::from)
}

/// The name of `v`'s type for messages: `typeof` for primitives, the class for borch's objects
/// and other class instances (`ReLU`, `Map`), `Object` for plain objects, `function`.
pub fn type_name(v: &JsValue) -> String {
    type_name_js(v).unwrap_or_else(|_| "object".into())
}

/// `v` for messages: `type_name`, or "a freed Tensor (free() was called on it)".
pub fn describe(v: &JsValue) -> String {
    match freed_class(v) {
        Some(class) => format!("a freed {class} (free() was called on it)"),
        None => type_name(v),
    }
}

/// The handle id `property` (`__borchId`, `__borchModule`, `__borchOptimizer`) of a live object
/// that borch-ts made, read through its class's own getter; `None` for anything else (a freed
/// object, a look-alike `{ __borchId: 3 }`, another class).
pub fn branded_id(v: &JsValue, property: &str) -> Option<f64> {
    if !v.is_object() {
        return None;
    }
    branded_id_js(v, property).ok().flatten()
}

/// The class name of an object borch-ts made whose `free()` has run.
pub fn freed_class(v: &JsValue) -> Option<String> {
    if !v.is_object() {
        return None;
    }
    freed_class_js(v).ok().flatten()
}
