//! Calls into the core's op catalog from the generated JavaScript methods: arguments become core
//! values (a trailing plain object holds keyword arguments), results come back as JavaScript.

use borch_tensor::api::{self, Value};
use js_sys::{Array, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::errors::{JsResult, to_js, type_error};
use crate::handles::{self, ID_PROPERTY};
use crate::js;
use crate::tensor::JsTensor;

/// `tensor.name(...args)` for the catalog entry `name` (torch's spelling).
#[wasm_bindgen(js_name = callMethod)]
pub fn call_method(name: &str, this: JsValue, args: Array) -> JsResult<JsValue> {
    let (positional, keywords) = method_arguments(name, &this, &args)?;
    result(api::call(name, true, positional, keywords).map_err(to_js)?)
}

/// `name(...args)`, the catalog's function form.
#[wasm_bindgen(js_name = callFunction)]
pub fn call_function(name: &str, args: Array) -> JsResult<JsValue> {
    let (positional, keywords) = arguments(&args)?;
    result(api::call(name, false, positional, keywords).map_err(to_js)?)
}

/// `tensor.name(...args)` for an async entry of the catalog (`nonzero`, `unique`, …: the result's
/// shape depends on the values): the arguments are bound and read now (a wrong one throws), the
/// promise resolves to the result once the values are read back.
#[wasm_bindgen(js_name = callMethodAsync, unchecked_return_type = "Promise<unknown>")]
pub fn call_method_async(name: &str, this: JsValue, args: Array) -> JsResult<Promise> {
    let (positional, keywords) = method_arguments(name, &this, &args)?;
    pending(api::call_async(name, true, positional, keywords))
}

/// `name(...args)`, the function form of an async entry: a promise, as `callMethodAsync`.
#[wasm_bindgen(js_name = callFunctionAsync, unchecked_return_type = "Promise<unknown>")]
pub fn call_function_async(name: &str, args: Array) -> JsResult<Promise> {
    let (positional, keywords) = arguments(&args)?;
    pending(api::call_async(name, false, positional, keywords))
}

/// The promise of an op's pending result (or the binding error, thrown now).
fn pending(op: borch_tensor::Result<api::Pending>) -> JsResult<Promise> {
    let op = op.map_err(to_js)?;
    Ok(future_to_promise(async move {
        result(op.await.map_err(to_js)?)
    }))
}

/// A method's arguments: `this` (a Tensor) first, then the call's.
fn method_arguments(name: &str, this: &JsValue, args: &Array) -> JsResult<Arguments> {
    let (mut positional, keywords) = arguments(args)?;
    let this = match value(this)? {
        Value::Tensor(t) => t,
        other => {
            return Err(type_error(format!(
                "Tensor.{name}(): 'this' is not a Tensor (got {})",
                other.type_name()
            )));
        }
    };
    positional.insert(0, Value::Tensor(this));
    Ok((positional, keywords))
}

/// `nn.functional.name(...args)`, the catalog of `borch_nn::api`.
#[wasm_bindgen(js_name = callFunctional)]
pub fn call_functional(name: &str, args: Array) -> JsResult<JsValue> {
    let (positional, keywords) = arguments(&args)?;
    result(borch_nn::api::call(name, positional, keywords).map_err(to_js)?)
}

type Arguments = (Vec<Value>, Vec<(String, Value)>);

/// Positional values, and keyword values from a trailing plain object (camelCase keys).
pub(crate) fn arguments(args: &Array) -> JsResult<Arguments> {
    let (positional, keywords) = raw_arguments(args)?;
    values(positional, keywords)
}

type RawArguments = (Vec<JsValue>, Vec<(String, JsValue)>);

/// The positional JavaScript values, and the keyword ones (snake_case keys) from a trailing
/// plain object, not yet converted.
pub(crate) fn raw_arguments(args: &Array) -> JsResult<RawArguments> {
    if args.length() as usize > js::MAX_LIST {
        return Err(type_error(format!(
            "{} arguments are more than borch-ts reads (at most {})",
            args.length(),
            js::MAX_LIST
        )));
    }
    let mut items: Vec<JsValue> = args.iter().collect();
    let mut keywords = Vec::new();
    if let Some(last) = items.last()
        && is_options(last)
    {
        let options = items.pop().unwrap_or_default();
        for (key, v) in js::entries(&options)? {
            keywords.push((snake(&key), v));
        }
    }
    Ok((items, keywords))
}

/// Raw arguments as core values.
pub(crate) fn values(
    positional: Vec<JsValue>,
    keywords: Vec<(String, JsValue)>,
) -> JsResult<Arguments> {
    let keywords = keywords
        .into_iter()
        .map(|(k, v)| Ok((k, value(&v)?)))
        .collect::<JsResult<Vec<_>>>()?;
    let positional = positional
        .iter()
        .map(value)
        .collect::<JsResult<Vec<Value>>>()?;
    Ok((positional, keywords))
}

/// A plain object (`{ dim: 1 }`), which no positional parameter accepts.
pub(crate) fn is_options(v: &JsValue) -> bool {
    v.is_object()
        && !js::is_array(v).unwrap_or(true)
        && tensor_id(v).is_none()
        && marked_float(v).is_none()
        && js::prototype(v).is_ok_and(|proto| {
            proto.is_null() || proto == JsValue::from(Object::get_prototype_of(&Object::new()))
        })
}

/// The handle id of a live `Tensor` that borch-ts made (not of a look-alike object).
fn tensor_id(v: &JsValue) -> Option<f64> {
    js::branded_id(v, ID_PROPERTY)
}

/// The property of the objects `asFloat(x)` makes.
const FLOAT_PROPERTY: &str = "__borchFloat";

/// torch's Python float `x` (`2.0`), for where an int and a float differ (`intTensor.mul(2.0)` is
/// float32 in torch): a JavaScript number that is a whole number otherwise binds as an int.
#[wasm_bindgen(js_name = asFloat, unchecked_return_type = "FloatScalar")]
pub fn as_float(#[wasm_bindgen(unchecked_param_type = "number")] x: JsValue) -> JsResult<Object> {
    // A number as it is (-0.0 keeps its sign); anything else is refused by the binder.
    let x = match x.as_f64() {
        Some(x) => x,
        None => crate::bind::build("asFloat", "x: Float", &Array::of1(&x), |a| a.f64(0))?,
    };
    let marked = Object::new();
    let _ = Reflect::set(
        &marked,
        &JsValue::from_str(FLOAT_PROPERTY),
        &JsValue::from_f64(x),
    );
    Ok(Object::freeze(&marked))
}

#[wasm_bindgen(typescript_custom_section)]
const FLOAT_SCALAR: &str = r#"
/** A number marked as a float by `asFloat(x)` (Python's `2.0`). */
export type FloatScalar = { readonly __borchFloat: number };
"#;

/// The number of an `asFloat(x)` object.
pub(crate) fn marked_float(v: &JsValue) -> Option<f64> {
    if !v.is_object() {
        return None;
    }
    Reflect::get(v, &JsValue::from_str(FLOAT_PROPERTY))
        .ok()
        .and_then(|x| x.as_f64())
}

/// How deep lists may nest in an argument (a subscript's slices are two deep).
const MAX_DEPTH: usize = 32;

/// A JavaScript argument as a core value. A number is an int when it is integral (JavaScript
/// has one number type; torch's int-versus-float rules see it as an int) unless marked with
/// `asFloat`. A value no parameter takes (a `Map`, a function, a freed Tensor, an array longer
/// than `js::MAX_LIST`) becomes `Value::Other` naming it, for the binder to refuse with torch's
/// message naming the op, the parameter and its position.
pub fn value(v: &JsValue) -> JsResult<Value> {
    value_in(v, 0)
}

fn value_in(v: &JsValue, depth: usize) -> JsResult<Value> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::None);
    }
    if let Some(b) = v.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(x) = v.as_f64() {
        let integral = x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15;
        return Ok(if integral {
            Value::Int(x as i64)
        } else {
            Value::Float(x)
        });
    }
    if v.is_bigint() {
        return i64::try_from(v.clone())
            .map(Value::Int)
            .map_err(|_| type_error("a bigint argument does not fit in 64 bits"));
    }
    if let Some(s) = v.as_string() {
        return Ok(Value::Str(s));
    }
    if js::is_array(v)? {
        return list(v, depth);
    }
    if js::freed_class(v).is_some() {
        return Ok(Value::Other(js::describe(v)));
    }
    if let Some(x) = marked_float(v) {
        return Ok(Value::Float(x));
    }
    if let Some(t) = handles::lookup(v) {
        return Ok(Value::Tensor(t));
    }
    Ok(Value::Other(js::type_name(v)))
}

/// An array argument as a list, unless it is longer or deeper than any argument can be.
fn list(v: &JsValue, depth: usize) -> JsResult<Value> {
    if depth >= MAX_DEPTH {
        return Ok(Value::Other(format!(
            "list (nested more than {MAX_DEPTH} deep)"
        )));
    }
    match js::length(v, js::MAX_LIST)? {
        Ok(n) => (0..n)
            .map(|i| value_in(&js::item(v, i)?, depth + 1))
            .collect::<JsResult<Vec<_>>>()
            .map(Value::List),
        Err(n) => Ok(Value::Other(format!(
            "list (of {n} elements; borch-ts reads at most {})",
            js::MAX_LIST
        ))),
    }
}

/// A core result as JavaScript: tensors as `Tensor` objects, lists as arrays.
pub fn result(v: Value) -> JsResult<JsValue> {
    Ok(match v {
        Value::None => JsValue::UNDEFINED,
        Value::Bool(b) => JsValue::from_bool(b),
        Value::Int(i) => JsValue::from_f64(i as f64),
        Value::Float(x) => JsValue::from_f64(x),
        Value::Str(s) => JsValue::from_str(&s),
        Value::Tensor(t) => JsTensor::from(t).into(),
        Value::List(items) => items
            .into_iter()
            .map(result)
            .collect::<JsResult<Array>>()?
            .into(),
        Value::Other(name) => return Err(type_error(format!("an op returned a {name}"))),
    })
}

/// `roundingMode` → `rounding_mode`; snake_case keys pass unchanged.
pub(crate) fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// An optional Tensor argument (a Tensor, `undefined` or `null`), read through the handle registry
/// so the caller's JavaScript object stays usable (a by-value wasm-bindgen argument would be
/// consumed).
pub fn optional_tensor(
    name: &str,
    position: usize,
    v: &JsValue,
) -> JsResult<Option<borch_tensor::Tensor>> {
    match value(v)? {
        Value::None => Ok(None),
        Value::Tensor(t) => Ok(Some(t)),
        _ => Err(crate::bind::wrong_argument(name, position, "a Tensor", v)),
    }
}
