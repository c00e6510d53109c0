//! `TensorDataset` and `DataLoader` (torch.utils.data) for JavaScript, forwarding to borch-data:
//! with the same seed (`manualSeed`), a shuffled loader yields torch's batches in torch's order.
//! A loader is async-iterable (`for await (const [x, y] of loader)`; the package's index.js adds
//! `[Symbol.asyncIterator]`, which forwards to `iter()`), and `iter().next()` is also usable as a
//! plain iterator step.

use std::cell::RefCell;
use std::rc::Rc;

use borch_data::{DataLoader, DataLoaderIter, DataLoaderOptions, Sample, TensorDataset};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::errors::{IntoJs, JsResult, to_js};
use crate::tensor::JsTensor;

#[wasm_bindgen(typescript_custom_section)]
const DATA_TYPES: &str = r#"
/** What a DataLoader batch holds: tensors (stacked rows), arrays of batches, plain objects. */
export type Batch = Tensor | number | boolean | string | Batch[] | { [key: string]: Batch };
export interface DataLoader {
  /** `for await (const [x, y] of loader)`: one pass, torch's order for the seed. */
  [Symbol.asyncIterator](): AsyncIterator<Batch[]>;
}
"#;

/// `TensorDataset(*tensors)`: sample `i` is each tensor's row `i`.
#[wasm_bindgen(js_name = TensorDataset)]
pub struct JsTensorDataset(#[wasm_bindgen(skip)] pub Rc<TensorDataset>);

impl From<TensorDataset> for JsTensorDataset {
    fn from(d: TensorDataset) -> JsTensorDataset {
        JsTensorDataset(Rc::new(d))
    }
}

#[wasm_bindgen(js_class = TensorDataset)]
impl JsTensorDataset {
    /// `new TensorDataset([x, y, ...])`: tensors with equal first dims (torch's positional
    /// tensors, as one array).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Tensor[]")] tensors: Array,
    ) -> JsResult<JsTensorDataset> {
        crate::bind::build("TensorDataset", "*tensors: Tensors", &tensors, |a| {
            TensorDataset::new(a.tensors(0)?)
        })
        .map(JsTensorDataset::from)
    }

    /// `len(dataset)`.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        borch_data::Dataset::len(self.0.as_ref())
    }
}

/// `DataLoader(dataset, batch_size=1, shuffle=False, drop_last=False)`, single process; the global
/// generator (`manualSeed`) draws the order, as torch's does without `generator=`.
#[wasm_bindgen(js_name = DataLoader)]
pub struct JsDataLoader(#[wasm_bindgen(skip)] pub DataLoader);

impl From<DataLoader> for JsDataLoader {
    fn from(l: DataLoader) -> JsDataLoader {
        JsDataLoader(l)
    }
}

#[wasm_bindgen(js_class = DataLoader)]
impl JsDataLoader {
    /// `new DataLoader(dataset, { batchSize, shuffle, dropLast })`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        dataset: &JsTensorDataset,
        #[wasm_bindgen(
            unchecked_param_type = "{ batchSize?: number, shuffle?: boolean, dropLast?: boolean }"
        )]
        options: Option<Object>,
    ) -> JsResult<JsDataLoader> {
        let signature = "batch_size: Int = 1, shuffle: Bool = False, drop_last: Bool = False";
        let args = options.map(|o| Array::of1(&o)).unwrap_or_default();
        crate::bind::build("DataLoader", signature, &args, |a| {
            let options = DataLoaderOptions {
                batch_size: Some(a.usize(0)?),
                shuffle: Some(a.bool(1)?),
                drop_last: a.bool(2)?,
                ..DataLoaderOptions::default()
            };
            DataLoader::new(dataset.0.clone(), options)
        })
        .map(JsDataLoader::from)
    }

    /// `len(loader)`: batches per pass.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> JsResult<usize> {
        self.0.len().map_err(to_js)
    }

    /// One pass: draws the base seed now and the order at the first `next()`, as torch does.
    pub fn iter(&self) -> JsResult<JsDataLoaderIterator> {
        DataLoader::iter(&self.0).js()
    }
}

/// One pass of a DataLoader.
#[wasm_bindgen(js_name = DataLoaderIterator)]
pub struct JsDataLoaderIterator(RefCell<DataLoaderIter>);

impl From<DataLoaderIter> for JsDataLoaderIterator {
    fn from(it: DataLoaderIter) -> JsDataLoaderIterator {
        JsDataLoaderIterator(RefCell::new(it))
    }
}

#[wasm_bindgen(js_class = DataLoaderIterator)]
impl JsDataLoaderIterator {
    /// The iterator protocol's step: `{ value: batch, done: false }`, then `{ done: true }`.
    #[wasm_bindgen(unchecked_return_type = "IteratorResult<Batch[], undefined>")]
    pub fn next(&self) -> JsResult<JsValue> {
        step(self.0.borrow_mut().next())
    }
}

/// `{ value, done }` from the core's next batch.
fn step(next: Option<borch_tensor::Result<Sample>>) -> JsResult<JsValue> {
    let out = Object::new();
    let (value, done) = match next {
        Some(batch) => (to_value(batch.map_err(to_js)?)?, false),
        None => (JsValue::UNDEFINED, true),
    };
    Reflect::set(&out, &"value".into(), &value)?;
    Reflect::set(&out, &"done".into(), &JsValue::from_bool(done))?;
    Ok(out.into())
}

/// A batch as JavaScript values: tensors as `Tensor`s, lists and tuples as arrays, dicts as plain
/// objects, numbers, booleans and strings as themselves.
fn to_value(sample: Sample) -> JsResult<JsValue> {
    Ok(match sample {
        Sample::Tensor(t) => JsTensor::from(t).into(),
        Sample::Int(i) => JsValue::from_f64(i as f64),
        Sample::Float(f) => JsValue::from_f64(f),
        Sample::Bool(b) => JsValue::from_bool(b),
        Sample::Str(s) => JsValue::from_str(&s),
        Sample::Tuple(items) | Sample::List(items) => {
            let out = Array::new();
            for item in items {
                out.push(&to_value(item)?);
            }
            out.into()
        }
        Sample::Dict(entries) => {
            let out = Object::new();
            for (k, v) in entries {
                Reflect::set(&out, &JsValue::from_str(&k), &to_value(v)?)?;
            }
            out.into()
        }
    })
}
