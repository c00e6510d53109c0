//! `selfTest()`: a diagnostic for the browser tests, not part of the package's API (index.js does
//! not re-export it). It runs a few kernels of each family on the default device — elementwise
//! with a scalar, the strided copy behind a transpose, matmul, a reduction — and hands the results
//! and one core error to JavaScript, where the test compares them. It exists so the device layer
//! can be checked in a browser before the tensor methods are bound.

use borch_tensor::Tensor;
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::convert::nested;
use crate::errors::{JsResult, to_js};

async fn read(t: borch_tensor::Result<Tensor>) -> JsResult<JsValue> {
    let t = t.map_err(to_js)?;
    Ok(nested(&t.to_host().await.map_err(to_js)?, t.shape()))
}

/// `{ add, t, matmul, sum, indexError }` for `a = [[1, 2, 3], [4, 5, 6]]`: `a + 1.5`, `a.t()`,
/// `a @ a.t()`, `a.sum()`, and the error of `a.transpose(0, 5)` (not thrown).
#[wasm_bindgen(js_name = selfTest)]
pub async fn self_test() -> JsResult<JsValue> {
    let a = Tensor::new([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]).map_err(to_js)?;
    let out = Object::new();
    let t = a.t();
    let entries = [
        ("add", read(a.add(1.5)).await?),
        ("t", read(t.clone()).await?),
        ("matmul", read(t.and_then(|t| a.matmul(&t))).await?),
        ("sum", read(a.sum(None, false)).await?),
        (
            "indexError",
            a.transpose(0, 5).map_or_else(to_js, |_| JsValue::NULL),
        ),
    ];
    for (key, value) in entries {
        Reflect::set(&out, &JsValue::from_str(key), &value)?;
    }
    Ok(out.into())
}

/// Every generated WGSL kernel of the core as `[name, source]` pairs, for the browser test that
/// compiles each one with the browser's own WGSL compiler (Tint in Chromium), which is stricter
/// than naga in places.
#[wasm_bindgen(js_name = kernelSources, unchecked_return_type = "[string, string][]")]
pub fn kernel_sources() -> js_sys::Array {
    borch_tensor::kernel_sources()
        .into_iter()
        .map(|(name, source)| {
            JsValue::from(js_sys::Array::of2(
                &JsValue::from(name),
                &JsValue::from(source),
            ))
        })
        .collect()
}

/// A deliberate panic, for the test of what borch-ts does after a trap (tests/node/trap.mjs):
/// every later call must throw a clear error naming this panic. Not re-exported by index.js.
#[wasm_bindgen(js_name = selfTestPanic)]
pub fn self_test_panic() {
    panic!("selfTestPanic: a deliberate panic, to test what follows a trap");
}
