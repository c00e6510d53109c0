//! The device: `init` and `probe`, and the memory, cache, seed and counter functions of the
//! default device, each forwarding to the core.

use borch_device::{DeviceError, PowerPreference};
use borch_tensor::{AdapterInfo, DeviceOptions, default_device};
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::errors::{IntoJs, JsResult, to_js, type_error};

#[wasm_bindgen(module = "/js/gpu.js")]
extern "C" {
    #[wasm_bindgen(js_name = hasWebGpu)]
    fn has_web_gpu() -> bool;
    #[wasm_bindgen(js_name = requestAdapterInfo, catch)]
    async fn request_adapter_info(
        power_preference: Option<String>,
        force_fallback_adapter: bool,
    ) -> Result<JsValue, JsValue>;
}

/// `init`'s and `probe`'s options: `{ powerPreference?, forceFallbackAdapter? }`.
struct Options {
    power_preference: Option<String>,
    force_fallback_adapter: bool,
}

impl Options {
    fn from_js(what: &str, options: &JsValue) -> JsResult<Options> {
        if options.is_undefined() || options.is_null() {
            return Ok(Options {
                power_preference: None,
                force_fallback_adapter: false,
            });
        }
        if !options.is_object() {
            return Err(type_error(format!(
                "{what}(): options must be an object, not {}",
                js_type(options)
            )));
        }
        let power = get(options, "powerPreference")?;
        let power_preference = match power.as_string().as_deref() {
            _ if power.is_undefined() => None,
            Some(p @ ("high-performance" | "low-power")) => Some(p.to_string()),
            _ => {
                return Err(type_error(format!(
                    "{what}(): powerPreference must be \"high-performance\" or \"low-power\", \
                     not {}",
                    describe(&power)
                )));
            }
        };
        let fallback = get(options, "forceFallbackAdapter")?;
        let force_fallback_adapter = match fallback.as_bool() {
            _ if fallback.is_undefined() => false,
            Some(b) => b,
            None => {
                return Err(type_error(format!(
                    "{what}(): forceFallbackAdapter must be a boolean, not {}",
                    js_type(&fallback)
                )));
            }
        };
        Ok(Options {
            power_preference,
            force_fallback_adapter,
        })
    }

    fn device_options(&self) -> DeviceOptions {
        DeviceOptions {
            power_preference: match self.power_preference.as_deref() {
                Some("low-power") => PowerPreference::LowPower,
                _ => PowerPreference::HighPerformance,
            },
            force_fallback_adapter: self.force_fallback_adapter,
            backend: None,
        }
    }
}

fn get(object: &JsValue, key: &str) -> JsResult<JsValue> {
    Reflect::get(object, &JsValue::from_str(key))
}

fn set(object: &Object, key: &str, value: impl Into<JsValue>) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(object, &JsValue::from_str(key), &value.into());
}

/// `typeof value`, with null and arrays told apart, for messages.
pub(crate) fn js_type(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(value) {
        "array".into()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    }
}

fn describe(value: &JsValue) -> String {
    match value.as_string() {
        Some(s) => format!("\"{s}\""),
        None => js_type(value),
    }
}

fn string_field(info: &JsValue, key: &str) -> JsResult<String> {
    Ok(get(info, key)?.as_string().unwrap_or_default())
}

/// `{ ok: true, adapter: { vendor, architecture, device, description }, software }` from the
/// browser's adapter info, judged software by the core.
fn adapter_result(info: &JsValue) -> JsResult<JsValue> {
    let vendor = string_field(info, "vendor")?;
    let architecture = string_field(info, "architecture")?;
    let device = string_field(info, "device")?;
    let description = string_field(info, "description")?;
    let fallback = get(info, "isFallbackAdapter")?.as_bool().unwrap_or(false);
    let judged = AdapterInfo::from_browser(&vendor, &architecture, &device, &description, fallback);
    let adapter = Object::new();
    set(&adapter, "vendor", vendor);
    set(&adapter, "architecture", architecture);
    set(&adapter, "device", device);
    set(&adapter, "description", description);
    let result = Object::new();
    set(&result, "ok", true);
    set(&result, "adapter", adapter);
    set(&result, "software", judged.is_software);
    Ok(result.into())
}

fn not_ok(why: &str) -> JsValue {
    let result = Object::new();
    set(&result, "ok", false);
    set(&result, "why", why);
    result.into()
}

/// Whether WebGPU is usable here, without opening a device: `{ ok: true, adapter, software }`,
/// or `{ ok: false, why: "no-api" }` (no `navigator.gpu`), or `{ ok: false, why: "no-adapter" }`.
#[wasm_bindgen]
pub async fn probe(options: JsValue) -> JsResult<JsValue> {
    let options = Options::from_js("probe", &options)?;
    if !has_web_gpu() {
        return Ok(not_ok("no-api"));
    }
    let info = request_adapter_info(options.power_preference, options.force_fallback_adapter)
        .await
        .unwrap_or(JsValue::NULL);
    if info.is_null() {
        return Ok(not_ok("no-adapter"));
    }
    adapter_result(&info)
}

/// Open the default device (later calls return the first one); resolves to the adapter as
/// `probe()` describes it.
#[wasm_bindgen(js_name = init)]
pub async fn init(options: JsValue) -> JsResult<JsValue> {
    let options = Options::from_js("init", &options)?;
    if !has_web_gpu() {
        return Err(to_js(
            DeviceError::NoAdapter(
                ": this JavaScript environment has no WebGPU (navigator.gpu is missing)".into(),
            )
            .into(),
        ));
    }
    borch_tensor::init(&options.device_options())
        .await
        .js::<borch_tensor::Device>()?;
    let info =
        request_adapter_info(options.power_preference, options.force_fallback_adapter).await?;
    if info.is_null() {
        return Err(to_js(DeviceError::NoAdapter(String::new()).into()));
    }
    adapter_result(&info)
}

fn pair(first: &str, a: u64, second: &str, b: u64) -> JsValue {
    let result = Object::new();
    set(&result, first, a as f64);
    set(&result, second, b as f64);
    result.into()
}

/// Buffers held by live tensors, the pool excluded: `{ buffers, bytes }`. Exported to the glue as
/// `memoryStats` (the wasm module's own export `memory` is its linear memory); index.js calls it
/// `memory`.
#[wasm_bindgen(js_name = memoryStats)]
pub fn memory() -> JsResult<JsValue> {
    let m = default_device().js::<borch_tensor::Device>()?.memory();
    Ok(pair("buffers", m.buffers, "bytes", m.bytes))
}

/// Buffers kept by the pool for reuse: `{ buffers, bytes }`.
#[wasm_bindgen]
pub fn pooled() -> JsResult<JsValue> {
    let p = default_device().js::<borch_tensor::Device>()?.pooled();
    Ok(pair("buffers", p.buffers, "bytes", p.bytes))
}

/// Release every pooled buffer.
#[wasm_bindgen(js_name = emptyCache)]
pub fn empty_cache() -> JsResult<()> {
    default_device()
        .js::<borch_tensor::Device>()?
        .empty_cache()
        .js()
}

/// torch's `manual_seed`: reseed the default generator (an integer number or a bigint; negative
/// seeds wrap as in torch).
#[wasm_bindgen(js_name = manualSeed)]
pub fn manual_seed(seed: JsValue) -> JsResult<()> {
    let value = if let Some(n) = seed.as_f64() {
        if !(n.is_finite() && n.fract() == 0.0 && n.abs() <= 2f64.powi(53)) {
            return Err(type_error(format!(
                "manualSeed(): the seed must be an integer, not {n}"
            )));
        }
        n as i64 as u64
    } else if seed.is_bigint() {
        u64::try_from(seed.clone())
            .or_else(|_| i64::try_from(seed).map(|s| s as u64))
            .map_err(|_| type_error("manualSeed(): the seed does not fit in 64 bits"))?
    } else {
        return Err(type_error(format!(
            "manualSeed(): the seed must be a number or a bigint, not {}",
            js_type(&seed)
        )));
    };
    borch_tensor::manual_seed(value);
    Ok(())
}

/// Dispatches recorded on the default device so far.
#[wasm_bindgen]
pub fn dispatches() -> JsResult<f64> {
    Ok(default_device().js::<borch_tensor::Device>()?.dispatches() as f64)
}

/// Bind groups created on the default device so far (a replay of `compiled` that binds the
/// recorded buffers creates none).
#[wasm_bindgen(js_name = bindGroupsCreated)]
pub fn bind_groups_created() -> JsResult<f64> {
    Ok(default_device()
        .js::<borch_tensor::Device>()?
        .bind_groups_created() as f64)
}

/// Submits to the default device's queue so far.
#[wasm_bindgen]
pub fn submits() -> JsResult<f64> {
    Ok(default_device().js::<borch_tensor::Device>()?.submits() as f64)
}
