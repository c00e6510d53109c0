//! The values torch.utils.data's bindings exchange with JavaScript: samples and batches both ways
//! (`Sample` ↔ tensors, numbers, strings, arrays, plain objects), a JavaScript dataset
//! (`{ getItem(i), length }`, or an iterable: `[Symbol.iterator]()`) and `collateFn` as the
//! core's `Dataset`, `IterableDataset` and `CollateFn`, and the registry by which a dataset,
//! sampler or generator object is found inside an options object.

use std::cell::RefCell;
use std::rc::Rc;

use borch_data::{CollateFn, Dataset, IterableDataset, Sample, SampleIter, Sampler, Source};
use borch_tensor::{BorchError, Generator, Result};
use js_sys::{Array, Function, Object, Reflect, Symbol};
use wasm_bindgen::prelude::*;

use crate::call::marked_float;
use crate::errors::{JsResult, type_error};
use crate::registry::{Live, Registry};
use crate::tensor::JsTensor;

/// The property a data object (dataset, sampler, generator) answers with its registry id.
pub const DATA_ID: &str = "__borchData";

/// What a data object holds, shared with the core.
#[derive(Clone)]
pub enum Handle {
    /// A map-style dataset.
    Dataset(Rc<dyn Dataset>),
    /// An iterable dataset of the core (`ChainDataset`).
    Iterable(Rc<dyn IterableDataset>),
    /// A sampler of indices.
    Sampler(Rc<dyn Sampler>),
    /// A batch sampler.
    Batches(Rc<dyn Sampler<Vec<usize>>>),
    /// A `torch.Generator`.
    Generator(Generator),
    /// A vision transform: a picture conversion (ToTensor, PILToTensor) and tensor transforms.
    Transform(
        Option<crate::transforms::Picture>,
        Option<Rc<dyn borch_vision::transforms::Transform>>,
    ),
}

thread_local! {
    static LIVE: RefCell<Registry<Handle>> = RefCell::default();
}

/// A registered handle: the id lives as long as the JavaScript object owning this.
pub struct Registered(u64);

impl Registered {
    /// Registers `h` under a fresh id.
    pub fn new(h: Handle) -> Registered {
        Registered(LIVE.insert(h))
    }
    /// The id for `__borchData`.
    pub fn id(&self) -> f64 {
        self.0 as f64
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        LIVE.unregister(self.0);
    }
}

/// What the data object `v` holds.
pub fn handle(v: &JsValue) -> Option<Handle> {
    LIVE.branded(v, DATA_ID)
}

/// A dataset argument: one of borch-ts's datasets, or a JavaScript object with `getItem(i)` and
/// `length` (torch's `__getitem__` and `__len__`).
pub fn dataset(name: &str, v: &JsValue) -> JsResult<Rc<dyn Dataset>> {
    if let Some(Handle::Dataset(d)) = handle(v) {
        return Ok(d);
    }
    let get_item = if v.is_object() {
        Reflect::get(v, &"getItem".into())?
    } else {
        JsValue::UNDEFINED
    };
    let Ok(get_item) = get_item.dyn_into::<Function>() else {
        return Err(type_error(format!(
            "{name}(): the dataset must be a borch-ts dataset or an object with getItem(i) and \
             length, not {}",
            crate::js::describe(v)
        )));
    };
    let length = Reflect::get(v, &"length".into())?;
    let len = length
        .as_f64()
        .filter(|n| *n >= 0.0 && n.fract() == 0.0)
        .ok_or_else(|| {
            type_error(format!(
                "{name}(): the dataset's length must be a non-negative integer, not {}",
                crate::js::describe(&length)
            ))
        })?;
    Ok(Rc::new(JsDataset {
        object: v.clone(),
        get_item,
        len: len as usize,
    }))
}

/// What a DataLoader (or a `ChainDataset`) reads: a borch-ts dataset, a `{ getItem(i), length }`
/// object (map-style), or a JavaScript iterable (an object with `[Symbol.iterator]()`: an
/// `IterableDataset` subclass, a generator's object) as torch's `IterableDataset`, its `length`
/// (if it has one) as `__len__`. Arrays and borch-ts's other objects (samplers) are not iterable
/// datasets: `dataset` refuses them as before.
pub fn source(name: &str, v: &JsValue) -> JsResult<Source> {
    match handle(v) {
        Some(Handle::Dataset(d)) => return Ok(Source::Map(d)),
        Some(Handle::Iterable(d)) => return Ok(Source::Iterable(d)),
        Some(_) => return dataset(name, v).map(Source::Map),
        None => {}
    }
    if v.is_object() && !crate::js::is_array(v)? {
        let get_item = Reflect::get(v, &"getItem".into())?;
        let iterator = Reflect::get(v, &Symbol::iterator().into())?;
        if get_item.is_undefined() && iterator.is_function() {
            return Ok(Source::Iterable(Rc::new(JsIterable { object: v.clone() })));
        }
    }
    dataset(name, v).map(Source::Map)
}

/// A list of numbers (`weights`), as float64.
pub fn floats(name: &str, v: &JsValue) -> JsResult<Vec<f64>> {
    let items = crate::js::elements(v)?.unwrap_or_default();
    if !crate::js::is_array(v)? {
        return Err(type_error(format!(
            "{name}(): weights must be an array of numbers, not {}",
            crate::js::describe(v)
        )));
    }
    items
        .iter()
        .map(|x| {
            x.as_f64().or_else(|| marked_float(x)).ok_or_else(|| {
                type_error(format!(
                    "{name}(): weights must be numbers, not {}",
                    crate::js::describe(x)
                ))
            })
        })
        .collect()
}

/// A sampler argument (`sampler=`): one of borch-ts's samplers.
pub fn sampler(name: &str, v: &JsValue) -> JsResult<Rc<dyn Sampler>> {
    match handle(v) {
        Some(Handle::Sampler(s)) => Ok(s),
        _ => Err(type_error(format!(
            "{name}(): sampler must be a borch-ts sampler (data.RandomSampler, …), not {}; \
             other iterables are not yet supported",
            crate::js::describe(v)
        ))),
    }
}

/// A batch sampler argument (`batchSampler=`): a `BatchSampler`.
pub fn batch_sampler(name: &str, v: &JsValue) -> JsResult<Rc<dyn Sampler<Vec<usize>>>> {
    match handle(v) {
        Some(Handle::Batches(s)) => Ok(s),
        _ => Err(type_error(format!(
            "{name}(): batch_sampler must be a data.BatchSampler, not {}",
            crate::js::describe(v)
        ))),
    }
}

/// An optional `generator=`: a `Generator`, `undefined` or `null`.
pub fn generator(name: &str, v: &JsValue) -> JsResult<Option<Generator>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match handle(v) {
        Some(Handle::Generator(g)) => Ok(Some(g)),
        _ => Err(type_error(format!(
            "{name}(): generator must be a Generator, not {}",
            crate::js::describe(v)
        ))),
    }
}

/// An optional `collateFn`: a JavaScript function of the batch's samples (an array).
pub fn collate_fn(name: &str, v: &JsValue) -> JsResult<Option<CollateFn>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    let f = crate::bind::function(name, 0, v)?;
    Ok(Some(Rc::new(move |batch: Vec<Sample>| {
        let items = Array::new();
        for s in batch {
            items.push(&to_value(s).map_err(js_error)?);
        }
        let out = f.call1(&JsValue::UNDEFINED, &items).map_err(js_error)?;
        sample(&out).map_err(js_error)
    })))
}

/// The options object's entries without `keys` (snake_case names, read here), and the values of
/// `keys`.
pub fn split_options(options: Option<Object>, keys: &[&str]) -> JsResult<(Object, Vec<JsValue>)> {
    let rest = Object::new();
    let mut picked = vec![JsValue::UNDEFINED; keys.len()];
    if let Some(o) = options {
        for (k, v) in crate::js::entries(&o)? {
            // camelCase from JavaScript, snake_case from Python: both name the same keyword.
            match keys.iter().position(|key| *key == crate::call::snake(&k)) {
                Some(i) => picked[i] = v,
                None => {
                    Reflect::set(&rest, &JsValue::from_str(&k), &v)?;
                }
            }
        }
    }
    Ok((rest, picked))
}

/// A JavaScript dataset: `getItem(i)` called for each sample.
struct JsDataset {
    object: JsValue,
    get_item: Function,
    len: usize,
}

impl Dataset for JsDataset {
    fn get(&self, index: i64) -> Result<Sample> {
        let v = self
            .get_item
            .call1(&self.object, &JsValue::from_f64(index as f64))
            .map_err(js_error)?;
        sample(&v).map_err(js_error)
    }
    fn len(&self) -> usize {
        self.len
    }
}

/// A JavaScript iterable dataset: each pass calls `[Symbol.iterator]()` and steps the iterator
/// it returns; `length`, when the object has one, is its `__len__`.
struct JsIterable {
    object: JsValue,
}

impl IterableDataset for JsIterable {
    fn iter(&self) -> Result<SampleIter> {
        let make = Reflect::get(&self.object, &Symbol::iterator().into()).map_err(js_error)?;
        let make = make.dyn_into::<Function>().map_err(|v| {
            BorchError::Type(format!(
                "the dataset's [Symbol.iterator] must be a function, not {}",
                crate::js::describe(&v)
            ))
        })?;
        let iterator = make.call0(&self.object).map_err(js_error)?;
        let next = if iterator.is_object() {
            Reflect::get(&iterator, &"next".into()).map_err(js_error)?
        } else {
            JsValue::UNDEFINED
        };
        let next = next.dyn_into::<Function>().map_err(|_| {
            BorchError::Type(format!(
                "the dataset's [Symbol.iterator]() returned {}, not an iterator (an object with \
                 next())",
                crate::js::describe(&iterator)
            ))
        })?;
        Ok(Box::new(JsIterator {
            iterator,
            next,
            done: false,
        }))
    }

    fn len(&self) -> Result<usize> {
        let length = Reflect::get(&self.object, &"length".into()).map_err(js_error)?;
        if length.is_undefined() {
            return Err(BorchError::Type(format!(
                "object of type '{}' has no len()",
                crate::js::type_name(&self.object)
            )));
        }
        length
            .as_f64()
            .filter(|n| *n >= 0.0 && n.fract() == 0.0)
            .map(|n| n as usize)
            .ok_or_else(|| {
                BorchError::Type(format!(
                    "the dataset's length must be a non-negative integer, not {}",
                    crate::js::describe(&length)
                ))
            })
    }
}

/// One pass over a JavaScript iterable: the iterator protocol's `next()`, each `value` a sample.
/// A pass left before its end calls the iterator's `return()` (as `for ... of` does), so a
/// generator's `finally` runs.
struct JsIterator {
    iterator: JsValue,
    next: Function,
    done: bool,
}

impl Iterator for JsIterator {
    type Item = Result<Sample>;

    fn next(&mut self) -> Option<Result<Sample>> {
        if self.done {
            return None;
        }
        let step = self.next.call0(&self.iterator).and_then(|step| {
            if !step.is_object() {
                return Err(type_error(format!(
                    "the dataset's iterator returned {} from next(), not an object {{ value, done }}",
                    crate::js::describe(&step)
                )));
            }
            let done = Reflect::get(&step, &"done".into())?.is_truthy();
            let value = (!done)
                .then(|| Reflect::get(&step, &"value".into()))
                .transpose()?;
            Ok(value)
        });
        match step {
            Ok(Some(value)) => Some(sample(&value).map_err(js_error)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(js_error(e)))
            }
        }
    }
}

impl Drop for JsIterator {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        if let Ok(finish) = Reflect::get(&self.iterator, &"return".into()) {
            if let Ok(finish) = finish.dyn_into::<Function>() {
                let _ = finish.call0(&self.iterator);
            }
        }
    }
}

/// A thrown JavaScript value as a core error of the same kind (its `kind`, `type` or `name`).
/// A Python exception from Pyodide (a `PythonError`: `type` names its class, `message` is the
/// whole traceback) keeps only its last line's message, as Python prints it after the class.
fn js_error(e: JsValue) -> BorchError {
    let field = |k: &str| Reflect::get(&e, &k.into()).ok().and_then(|v| v.as_string());
    let mut message = field("message").unwrap_or_else(|| crate::js::describe(&e));
    // `kind`: borch's errors; `type`: Pyodide's PythonError names the Python exception's class.
    if let Some(class) = field("type") {
        let prefix = format!("{class}: ");
        if let Some(last) = message.lines().rev().find_map(|l| l.strip_prefix(&prefix)) {
            message = last.to_string();
        }
    }
    let kind = field("kind")
        .or_else(|| field("type"))
        .or_else(|| field("name"));
    match kind.as_deref() {
        Some("TypeError") => BorchError::Type(message),
        Some("IndexError" | "RangeError") => BorchError::Index(message),
        Some("KeyError") => BorchError::Key(message),
        Some("ValueError") => BorchError::Value(message),
        Some("NotImplementedError") => BorchError::NotImplemented(message),
        Some("AssertionError") => BorchError::Value(message),
        _ => BorchError::Runtime(message),
    }
}

/// An array of samples (a batch to collate).
pub fn samples(name: &str, v: &JsValue) -> JsResult<Vec<Sample>> {
    crate::js::elements(v)?
        .ok_or_else(|| type_error(format!("{name}(): batch must be an array")))?
        .iter()
        .map(sample)
        .collect()
}

/// A JavaScript sample as the core's: a Tensor, a number (an int when integral, unless marked
/// with `asFloat`), a boolean, a string, an array (a tuple, as a Python dataset returns one) or a
/// plain object (a dict).
pub fn sample(v: &JsValue) -> JsResult<Sample> {
    sample_in(v, 0)
}

fn sample_in(v: &JsValue, depth: usize) -> JsResult<Sample> {
    if depth > 32 {
        return Err(type_error("a sample nested more than 32 deep"));
    }
    if let Some(t) = crate::handles::lookup(v) {
        return Ok(Sample::Tensor(t));
    }
    if let Some(b) = v.as_bool() {
        return Ok(Sample::Bool(b));
    }
    if let Some(x) = v.as_f64() {
        let integral = x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15;
        return Ok(if integral {
            Sample::Int(x as i64)
        } else {
            Sample::Float(x)
        });
    }
    if let Some(s) = v.as_string() {
        return Ok(Sample::Str(s));
    }
    if let Some(x) = marked_float(v) {
        return Ok(Sample::Float(x));
    }
    if let Some(items) = crate::js::elements(v)? {
        return items
            .iter()
            .map(|item| sample_in(item, depth + 1))
            .collect::<JsResult<Vec<_>>>()
            .map(Sample::Tuple);
    }
    if crate::call::is_options(v) {
        return crate::js::entries(v)?
            .into_iter()
            .map(|(k, item)| Ok((k, sample_in(&item, depth + 1)?)))
            .collect::<JsResult<Vec<_>>>()
            .map(Sample::Dict);
    }
    Err(type_error(format!(
        "a sample must be a Tensor, number, boolean, string, array or plain object, not {}",
        crate::js::describe(v)
    )))
}

/// A sample or batch as JavaScript values: tensors as `Tensor`s, lists and tuples as arrays, dicts
/// as plain objects, numbers, booleans and strings as themselves.
pub fn to_value(sample: Sample) -> JsResult<JsValue> {
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

/// A pass borrowed for its next step, or torch's RuntimeError when that pass is already stepping
/// (a dataset's own iterator or `getItem` asked the same pass for its next batch).
pub fn busy<T>(borrowed: std::result::Result<T, std::cell::BorrowMutError>) -> JsResult<T> {
    borrowed.map_err(|_| {
        crate::errors::to_js(BorchError::Runtime(
            "this pass is already running (its dataset asked it for its next item)".into(),
        ))
    })
}

/// `{ value, done }` from a core iterator's next item.
pub fn step(next: Option<JsResult<JsValue>>) -> JsResult<JsValue> {
    let out = Object::new();
    let (value, done) = match next {
        Some(v) => (v?, false),
        None => (JsValue::UNDEFINED, true),
    };
    Reflect::set(&out, &"value".into(), &value)?;
    Reflect::set(&out, &"done".into(), &JsValue::from_bool(done))?;
    Ok(out.into())
}
