//! JavaScript data to host data and back: nested arrays (or typed arrays) of numbers and booleans
//! to the core's `HostData` and shape, and read-back data to nested arrays (torch's `tolist()`).
//! Wrong input is a `TypeError` or torch's ValueError, never a panic.

use borch_tensor::{BorchError, DType, HostData, Scalar};
use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};

use crate::device::js_type;
use crate::errors::{JsResult, to_js, type_error};
use crate::js;

/// Values in row-major order with their shape and the dtype they imply when none is given:
/// bool for booleans only, int64 for integer typed arrays and bigints, float32 for numbers (a
/// JavaScript number has no int/float distinction; `{ dtype: "int64" }` asks for integers).
pub struct Flat {
    pub shape: Vec<usize>,
    pub values: Vec<f64>,
    implied: Option<DType>,
    leaf_depth: Option<usize>,
}

/// The most elements `tensor()` takes: what WebGPU's default `maxBufferSize` (256 MiB) holds
/// as float32, so that the f64 values read here and the host data made from them stay well
/// inside wasm32's 4 GiB. A longer array (or a Proxy claiming a longer length) is refused before
/// any element is read.
pub const MAX_ELEMENTS: usize = 1 << 26;

/// The most dims nested arrays may give (deeper nesting, or an array that contains itself, is
/// refused rather than recursed into).
pub const MAX_DIMS: usize = 64;

impl Flat {
    pub fn from_js(data: &JsValue) -> JsResult<Flat> {
        let mut flat = Flat {
            shape: Vec::new(),
            values: Vec::new(),
            implied: None,
            leaf_depth: None,
        };
        flat.walk(data, 0)?;
        Ok(flat)
    }

    /// The dtype the data implies (float32 for no elements, as torch's `tensor([])`).
    pub fn implied_dtype(&self) -> DType {
        self.implied.unwrap_or(DType::Float32)
    }

    /// The values as host data of `dtype` (int64 truncates toward zero, as torch's conversion).
    pub fn host_data(&self, dtype: DType) -> HostData {
        match dtype {
            DType::Float32 => HostData::F32(self.values.iter().map(|&v| v as f32).collect()),
            DType::Int64 => HostData::I64(self.values.iter().map(|&v| v as i64).collect()),
            DType::Bool => HostData::Bool(self.values.iter().map(|&v| v != 0.0).collect()),
        }
    }

    fn imply(&mut self, dtype: DType) {
        self.implied = Some(self.implied.map_or(dtype, |d| d.promote(dtype)));
    }

    /// A sequence of `len` elements at `dim`: its length must match its siblings', and the
    /// elements it implies must fit in `MAX_ELEMENTS`.
    fn sequence(&mut self, dim: usize, len: usize) -> JsResult<()> {
        if dim >= MAX_DIMS {
            return Err(value_error(format!(
                "tensor(): too many dimensions (more than {MAX_DIMS}; an array that contains \
                 itself nests forever)"
            )));
        }
        if let Some(leaf) = self.leaf_depth
            && dim >= leaf
        {
            return Err(value_error(format!(
                "expected a number at dim {dim} (got a sequence of length {len})"
            )));
        }
        match self.shape.get(dim) {
            Some(&expected) if expected != len => Err(value_error(format!(
                "expected sequence of length {expected} at dim {dim} (got {len})"
            ))),
            Some(_) => Ok(()),
            None => {
                let total = self.shape.iter().map(|&n| n as f64).product::<f64>() * len as f64;
                if total > MAX_ELEMENTS as f64 {
                    return Err(too_many(total));
                }
                self.shape.push(len);
                Ok(())
            }
        }
    }

    /// A number or boolean at `dim`: every leaf must be at the same depth.
    fn leaf(&mut self, dim: usize) -> JsResult<()> {
        match self.leaf_depth {
            None if self.shape.len() == dim => {
                self.leaf_depth = Some(dim);
                Ok(())
            }
            Some(leaf) if leaf == dim => Ok(()),
            _ => Err(value_error(format!(
                "expected sequence of length {} at dim {dim} (got a single value)",
                self.shape.get(dim).copied().unwrap_or(0)
            ))),
        }
    }

    fn walk(&mut self, value: &JsValue, dim: usize) -> JsResult<()> {
        if js::is_array(value)? {
            // No element is read when the length alone is too many; a hole stops at once.
            let len = js::length(value, MAX_ELEMENTS)?.map_err(too_many)?;
            self.sequence(dim, len as usize)?;
            if len == 0 && self.shape.len() == dim + 1 && self.leaf_depth.is_none() {
                return Ok(());
            }
            for i in 0..len {
                self.walk(&js::item(value, i)?, dim + 1)?;
            }
            return Ok(());
        }
        if js_sys::ArrayBuffer::is_view(value) {
            return self.typed(value, dim);
        }
        self.leaf(dim)?;
        if let Some(b) = value.as_bool() {
            self.imply(DType::Bool);
            self.values.push(f64::from(u8::from(b)));
        } else if let Some(v) = value.as_f64().or_else(|| crate::call::marked_float(value)) {
            self.imply(DType::Float32);
            self.values.push(v);
        } else if value.is_bigint() {
            let v = i64::try_from(value.clone())
                .map_err(|_| value_error("a bigint element does not fit in 64 bits"))?;
            self.imply(DType::Int64);
            self.values.push(v as f64);
        } else {
            return Err(type_error(format!(
                "tensor(): invalid data type '{}'",
                js_type(value)
            )));
        }
        Ok(())
    }

    /// A typed array: a sequence of numbers at `dim`.
    fn typed(&mut self, value: &JsValue, dim: usize) -> JsResult<()> {
        // (A DataView has no length: it is refused below as not a typed array.)
        if let Err(n) = js::length(value, MAX_ELEMENTS)?
            && !n.is_nan()
        {
            return Err(too_many(n));
        }
        let (values, dtype): (Vec<f64>, DType) =
            if let Some(a) = value.dyn_ref::<js_sys::Float32Array>() {
                (
                    a.to_vec().into_iter().map(f64::from).collect(),
                    DType::Float32,
                )
            } else if let Some(a) = value.dyn_ref::<js_sys::Float64Array>() {
                (a.to_vec(), DType::Float32)
            } else if let Some(a) = value.dyn_ref::<js_sys::BigInt64Array>() {
                (
                    a.to_vec().into_iter().map(|v| v as f64).collect(),
                    DType::Int64,
                )
            } else if let Some(a) = value.dyn_ref::<js_sys::BigUint64Array>() {
                (
                    a.to_vec().into_iter().map(|v| v as f64).collect(),
                    DType::Int64,
                )
            } else if value.is_instance_of::<js_sys::Int8Array>()
                || value.is_instance_of::<js_sys::Uint8Array>()
                || value.is_instance_of::<js_sys::Uint8ClampedArray>()
                || value.is_instance_of::<js_sys::Int16Array>()
                || value.is_instance_of::<js_sys::Uint16Array>()
                || value.is_instance_of::<js_sys::Int32Array>()
                || value.is_instance_of::<js_sys::Uint32Array>()
            {
                // Every integer typed array converts to float64 exactly.
                (js_sys::Float64Array::new(value).to_vec(), DType::Int64)
            } else {
                return Err(type_error(format!(
                    "tensor(): invalid data type '{}'",
                    object_name(value)
                )));
            };
        self.sequence(dim, values.len())?;
        if !values.is_empty() {
            self.leaf(dim + 1)?;
        }
        self.imply(dtype);
        self.values.extend(values);
        Ok(())
    }
}

fn value_error(message: impl Into<String>) -> JsValue {
    to_js(BorchError::Value(message.into()))
}

fn too_many(n: f64) -> JsValue {
    to_js(BorchError::Runtime(format!(
        "tensor(): {n} elements are more than borch-ts can hold in wasm memory (at most \
         {MAX_ELEMENTS})"
    )))
}

/// The constructor's name of an object, for messages (`DataView`, `Map`, …).
fn object_name(value: &JsValue) -> String {
    js_sys::Reflect::get(value, &JsValue::from_str("constructor"))
        .ok()
        .and_then(|c| js_sys::Reflect::get(&c, &JsValue::from_str("name")).ok())
        .and_then(|n| n.as_string())
        .unwrap_or_else(|| js_type(value))
}

/// One element as a JavaScript value: a number, or a boolean for bool tensors.
/// A shape as an array of numbers.
pub fn sizes(shape: &[usize]) -> Array {
    shape.iter().map(|&n| JsValue::from(n as f64)).collect()
}

pub fn scalar(s: Scalar) -> JsValue {
    match s {
        Scalar::Float(v) => JsValue::from_f64(v),
        Scalar::Int(v) => JsValue::from_f64(v as f64),
        Scalar::Bool(b) => JsValue::from_bool(b),
    }
}

fn element(data: &HostData, i: usize) -> JsValue {
    match data {
        HostData::F32(v) => JsValue::from_f64(f64::from(v[i])),
        HostData::I64(v) => JsValue::from_f64(v[i] as f64),
        HostData::Bool(v) => JsValue::from_bool(v[i]),
    }
}

/// Read-back data as nested arrays of `shape` (a bare value for a 0-d tensor), torch's `tolist()`.
pub fn nested(data: &HostData, shape: &[usize]) -> JsValue {
    fn rows(data: &HostData, shape: &[usize], next: &mut usize) -> JsValue {
        match shape.split_first() {
            None => {
                let v = element(data, *next);
                *next += 1;
                v
            }
            Some((&n, rest)) => {
                let out = Array::new_with_length(n as u32);
                for i in 0..n {
                    out.set(i as u32, rows(data, rest, next));
                }
                out.into()
            }
        }
    }
    if data.len() != shape.iter().product::<usize>() {
        return JsValue::UNDEFINED;
    }
    rows(data, shape, &mut 0)
}
