//! `TensorDataset` and `DataLoader` (torch.utils.data) for JavaScript, forwarding to borch-data:
//! with the same seed (`manualSeed`), a shuffled loader yields torch's batches in torch's order.
//! A loader is async-iterable (`for await (const [x, y] of loader)`; the package's index.js adds
//! `[Symbol.asyncIterator]`, which forwards to `iter()`), and `iter().next()` is also usable as a
//! plain iterator step.

use std::cell::RefCell;
use std::rc::Rc;

use borch_data::{
    ChainDataset, ConcatDataset, DataLoader, DataLoaderIter, DataLoaderOptions, IterableDataset,
    SampleIter, Subset, TensorDataset,
};
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::data_values::{self as values, Handle, Registered, to_value};
use crate::errors::{IntoJs, JsResult, to_js};

#[wasm_bindgen(typescript_custom_section)]
const DATA_TYPES: &str = r#"
/** What a DataLoader batch holds: tensors (stacked rows), arrays of batches, plain objects. */
export type Batch = Tensor | number | boolean | string | Batch[] | { [key: string]: Batch };
/** `new DataLoader(dataset, options)`: torch's keywords in camelCase. */
export interface DataLoaderOptions {
  batchSize?: number | null;
  shuffle?: boolean | null;
  sampler?: SequentialSampler | RandomSampler | SubsetRandomSampler | WeightedRandomSampler;
  batchSampler?: BatchSampler;
  collateFn?: (samples: Batch[]) => Batch;
  dropLast?: boolean;
  generator?: Generator;
}
/** A dataset written in JavaScript: torch's `__getitem__` and `__len__`. */
export interface MapDataset {
  getItem(index: number): Batch;
  readonly length: number;
}
/**
 * An iterable dataset written in JavaScript (torch's `IterableDataset`): `[Symbol.iterator]()`
 * is `__iter__` (a generator method, an `IterableDataset` subclass, a generator's object), an
 * optional `length` is `__len__` (`loader.length` throws torch's TypeError without one).
 */
export interface IterableDatasetLike extends Iterable<Batch> {
  readonly length?: number;
}
/** What `new DataLoader(dataset)` reads: borch-ts's datasets, a map-style or an iterable one. */
export type DatasetSource = MapDataset | IterableDatasetLike | ChainDataset;
export interface DataLoader {
  /** `for await (const [x, y] of loader)`: one pass, torch's order for the seed. */
  [Symbol.asyncIterator](): AsyncIterator<Batch[]>;
}
"#;

/// `TensorDataset(*tensors)`: sample `i` is each tensor's row `i`.
#[wasm_bindgen(js_name = TensorDataset)]
pub struct JsTensorDataset(#[wasm_bindgen(skip)] pub Rc<TensorDataset>, Registered);

impl From<TensorDataset> for JsTensorDataset {
    fn from(d: TensorDataset) -> JsTensorDataset {
        let d = Rc::new(d);
        let r = Registered::new(Handle::Dataset(d.clone()));
        JsTensorDataset(d, r)
    }
}

/// `length`, `getItem(i)` and the registry id, for each dataset class.
macro_rules! dataset_methods {
    ($rust:ident, $js:ident) => {
        #[wasm_bindgen(js_class = $js)]
        impl $rust {
            /// `len(dataset)`.
            #[wasm_bindgen(getter)]
            pub fn length(&self) -> usize {
                borch_data::Dataset::len(self.0.as_ref())
            }
            /// `dataset[index]` (negative counts from the end where torch's does).
            #[wasm_bindgen(js_name = getItem, unchecked_return_type = "Batch")]
            pub fn get_item(&self, index: JsValue) -> JsResult<JsValue> {
                let i = crate::bind::build("__getitem__", "idx: Int", &Array::of1(&index), |a| {
                    a.i64(0)
                })?;
                to_value(borch_data::Dataset::get(self.0.as_ref(), i).map_err(to_js)?)
            }
            /// The registry id `DataLoader`, `Subset`, … find this dataset by.
            #[wasm_bindgen(getter = __borchData)]
            pub fn data_id(&self) -> f64 {
                self.1.id()
            }
        }
    };
}

dataset_methods!(JsTensorDataset, TensorDataset);
dataset_methods!(JsSubset, Subset);
dataset_methods!(JsConcatDataset, ConcatDataset);

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
}

/// `Subset(dataset, indices)`.
#[wasm_bindgen(js_name = Subset)]
pub struct JsSubset(Rc<Subset>, Registered);

impl From<Subset> for JsSubset {
    fn from(d: Subset) -> JsSubset {
        let d = Rc::new(d);
        let r = Registered::new(Handle::Dataset(d.clone()));
        JsSubset(d, r)
    }
}

#[wasm_bindgen(js_class = Subset)]
impl JsSubset {
    /// `new Subset(dataset, indices)`: a borch-ts dataset or a `{ getItem(i), length }` object.
    #[wasm_bindgen(constructor)]
    pub fn new(
        dataset: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number[]")] indices: JsValue,
    ) -> JsResult<JsSubset> {
        let d = values::dataset("Subset", &dataset)?;
        crate::bind::build("Subset", "indices: Ints", &Array::of1(&indices), |a| {
            let i = a.ints(0)?.into_iter().map(|i| i as i64).collect();
            Ok(Subset::new(d, i))
        })
        .map(JsSubset::from)
    }

    /// `subset.indices`.
    #[wasm_bindgen(getter, unchecked_return_type = "number[]")]
    pub fn indices(&self) -> Array {
        self.0
            .indices()
            .iter()
            .map(|&i| JsValue::from_f64(i as f64))
            .collect()
    }
}

/// `ConcatDataset(datasets)`.
#[wasm_bindgen(js_name = ConcatDataset)]
pub struct JsConcatDataset(Rc<ConcatDataset>, Registered);

#[wasm_bindgen(js_class = ConcatDataset)]
impl JsConcatDataset {
    /// `new ConcatDataset([a, b, ...])`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "unknown[]")] datasets: JsValue,
    ) -> JsResult<JsConcatDataset> {
        let items = crate::js::elements(&datasets)?.ok_or_else(|| {
            crate::errors::type_error("ConcatDataset(): datasets must be an array")
        })?;
        let parts = items
            .iter()
            .map(|d| values::dataset("ConcatDataset", d))
            .collect::<JsResult<Vec<_>>>()?;
        let d = Rc::new(ConcatDataset::new(parts).map_err(to_js)?);
        let r = Registered::new(Handle::Dataset(d.clone()));
        Ok(JsConcatDataset(d, r))
    }

    /// `cumulative_sizes`.
    #[wasm_bindgen(getter = cumulativeSizes, unchecked_return_type = "number[]")]
    pub fn cumulative_sizes(&self) -> Array {
        self.0
            .cumulative_sizes()
            .iter()
            .map(|&i| JsValue::from_f64(i as f64))
            .collect()
    }
}

/// `random_split(dataset, lengths, generator=default_generator)`: lengths or fractions.
#[wasm_bindgen(js_name = randomSplit, unchecked_return_type = "Subset[]")]
pub fn random_split(
    dataset: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number[]")] lengths: JsValue,
    #[wasm_bindgen(unchecked_param_type = "{ generator?: Generator }")] options: Option<Object>,
) -> JsResult<Array> {
    let d = values::dataset("random_split", &dataset)?;
    let lengths = values::floats("random_split", &lengths)?;
    let (_, picked) = values::split_options(options, &["generator"])?;
    let g = values::generator("random_split", &picked[0])?;
    let parts = borch_data::random_split(d, &lengths, g.as_ref()).map_err(to_js)?;
    Ok(parts
        .into_iter()
        .map(|p| JsValue::from(JsSubset::from(p)))
        .collect())
}

/// `default_collate(batch)`: a list of samples into one batch (tensors stacked, numbers into a
/// tensor, sequences and objects collated position by position / key by key).
#[wasm_bindgen(js_name = defaultCollate, unchecked_return_type = "Batch")]
pub fn default_collate(
    #[wasm_bindgen(unchecked_param_type = "Batch[]")] batch: JsValue,
) -> JsResult<JsValue> {
    let samples = values::samples("default_collate", &batch)?;
    to_value(borch_data::default_collate(samples).map_err(to_js)?)
}

/// `DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
/// collate_fn=None, drop_last=False, generator=None)`, single process.
#[wasm_bindgen(js_name = DataLoader)]
pub struct JsDataLoader(#[wasm_bindgen(skip)] pub DataLoader);

impl From<DataLoader> for JsDataLoader {
    fn from(l: DataLoader) -> JsDataLoader {
        JsDataLoader(l)
    }
}

#[wasm_bindgen(js_class = DataLoader)]
impl JsDataLoader {
    /// `new DataLoader(dataset, { batchSize, shuffle, sampler, batchSampler, collateFn,
    /// dropLast, generator })`; the dataset a borch-ts dataset, a `{ getItem(i), length }`, or a
    /// JavaScript iterable (`[Symbol.iterator]()`, torch's IterableDataset: no shuffle,
    /// sampler or batchSampler).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "DatasetSource")] dataset: JsValue,
        #[wasm_bindgen(unchecked_param_type = "DataLoaderOptions")] options: Option<Object>,
    ) -> JsResult<JsDataLoader> {
        let name = "DataLoader";
        let d = values::source(name, &dataset)?;
        let keys = [
            "sampler",
            "batch_sampler",
            "collate_fn",
            "generator",
            "batch_size",
        ];
        let (rest, picked) = values::split_options(options, &keys)?;
        let given = |v: &JsValue| !(v.is_undefined() || v.is_null());
        let sampler = given(&picked[0])
            .then(|| values::sampler(name, &picked[0]))
            .transpose()?;
        let batch_sampler = given(&picked[1])
            .then(|| values::batch_sampler(name, &picked[1]))
            .transpose()?;
        let collate_fn = values::collate_fn(name, &picked[2])?;
        let generator = values::generator(name, &picked[3])?;
        // `batchSize: null` turns batching off (torch's batch_size=None); left out, it is 1.
        let batch_size = if picked[4].is_null() {
            None
        } else {
            let args = Array::of1(&picked[4]);
            Some(crate::bind::build(
                name,
                "batch_size: Int = 1",
                &args,
                |a| a.int(0),
            )?)
        };
        let signature = "shuffle: Bool = None, drop_last: Bool = False";
        crate::bind::build(name, signature, &Array::of1(&rest), |a| {
            let options = DataLoaderOptions {
                batch_size: batch_size.map(|b| b.max(0) as usize),
                shuffle: match a.get(0) {
                    borch_tensor::api::Value::None => None,
                    _ => Some(a.bool(0)?),
                },
                sampler,
                batch_sampler,
                drop_last: a.bool(1)?,
                collate_fn,
                generator,
            };
            DataLoader::new(d, options)
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
        let next = values::busy(self.0.try_borrow_mut())?.next();
        values::step(next.map(|b| b.map_err(to_js).and_then(to_value)))
    }
}

/// `ChainDataset(datasets)`: iterable datasets one after another (torch's `a + b` of two
/// IterableDatasets); iterable itself (`[...chain]`, the package's index.js adds
/// `[Symbol.iterator]`, which forwards to `iter()`).
#[wasm_bindgen(js_name = ChainDataset)]
pub struct JsChainDataset(Rc<ChainDataset>, Registered);

#[wasm_bindgen(js_class = ChainDataset)]
impl JsChainDataset {
    /// `new ChainDataset([a, b, ...])`: JavaScript iterables or borch-ts's datasets (a map-style
    /// one is refused when a pass reaches it, as torch's assertion).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "DatasetSource[]")] datasets: JsValue,
    ) -> JsResult<JsChainDataset> {
        let items = crate::js::elements(&datasets)?.ok_or_else(|| {
            crate::errors::type_error("ChainDataset(): datasets must be an array")
        })?;
        let parts = items
            .iter()
            .map(|d| values::source("ChainDataset", d))
            .collect::<JsResult<Vec<_>>>()?;
        let d = Rc::new(ChainDataset::new(parts));
        let r = Registered::new(Handle::Iterable(d.clone()));
        Ok(JsChainDataset(d, r))
    }

    /// `len(chain)`: the datasets' lengths summed (torch's TypeError when one has none).
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> JsResult<usize> {
        IterableDataset::len(self.0.as_ref()).map_err(to_js)
    }

    /// One pass: each dataset's samples in turn.
    pub fn iter(&self) -> JsResult<JsDatasetIterator> {
        IterableDataset::iter(self.0.as_ref()).js()
    }

    /// The registry id `DataLoader` and `ChainDataset` find this dataset by.
    #[wasm_bindgen(getter = __borchData)]
    pub fn data_id(&self) -> f64 {
        self.1.id()
    }
}

/// One pass over an iterable dataset of the core.
#[wasm_bindgen(js_name = DatasetIterator)]
pub struct JsDatasetIterator(RefCell<SampleIter>);

impl From<SampleIter> for JsDatasetIterator {
    fn from(it: SampleIter) -> JsDatasetIterator {
        JsDatasetIterator(RefCell::new(it))
    }
}

#[wasm_bindgen(js_class = DatasetIterator)]
impl JsDatasetIterator {
    /// The iterator protocol's step: `{ value: sample, done: false }`, then `{ done: true }`.
    #[wasm_bindgen(unchecked_return_type = "IteratorResult<Batch, undefined>")]
    pub fn next(&self) -> JsResult<JsValue> {
        let next = values::busy(self.0.try_borrow_mut())?.next();
        values::step(next.map(|b| b.map_err(to_js).and_then(to_value)))
    }
}
