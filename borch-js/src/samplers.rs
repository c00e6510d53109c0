//! torch.utils.data's samplers and `torch.Generator` for JavaScript, forwarding to borch-data:
//! with the same seed a pass yields torch's indices. A pass is `iter()` (an iterator; the
//! package's index.js adds `[Symbol.iterator]`), `length` is `len(sampler)`.

use std::cell::RefCell;
use std::rc::Rc;

use borch_data::{
    BatchSampler, RandomSampler, Sampler, SamplerIter, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
};
use borch_tensor::Generator;
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::data_values::{self as values, Handle, Registered};
use crate::errors::{JsResult, to_js};

/// `torch.Generator()`: a CPU generator of its own (torch's Mersenne Twister).
#[wasm_bindgen(js_name = Generator)]
pub struct JsGenerator(Generator, Registered);

impl From<Generator> for JsGenerator {
    fn from(g: Generator) -> JsGenerator {
        let r = Registered::new(Handle::Generator(g.clone()));
        JsGenerator(g, r)
    }
}

#[wasm_bindgen(js_class = Generator)]
impl JsGenerator {
    /// `new Generator()`, seeded with torch's default seed.
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsGenerator {
        Generator::new().into()
    }

    /// `g.manual_seed(seed)`: reseeds and returns the generator (another handle on it).
    #[wasm_bindgen(js_name = manualSeed)]
    pub fn manual_seed(&self, seed: JsValue) -> JsResult<JsGenerator> {
        crate::bind::build("manual_seed", "seed: Int", &Array::of1(&seed), |a| {
            Ok(self.0.manual_seed(a.i64(0)? as u64).clone())
        })
        .map(JsGenerator::from)
    }

    /// `g.initial_seed()`.
    #[wasm_bindgen(js_name = initialSeed)]
    pub fn initial_seed(&self) -> f64 {
        self.0.initial_seed() as f64
    }

    /// The registry id options objects find this generator by.
    #[wasm_bindgen(getter = __borchData)]
    pub fn data_id(&self) -> f64 {
        self.1.id()
    }
}

impl Default for JsGenerator {
    fn default() -> JsGenerator {
        JsGenerator::new()
    }
}

/// A sampler of indices (every sampler class but `BatchSampler`).
pub struct Indices(Rc<dyn Sampler>, Registered);

impl Indices {
    fn new(s: Rc<dyn Sampler>) -> Indices {
        let r = Registered::new(Handle::Sampler(s.clone()));
        Indices(s, r)
    }
}

/// A count torch checks is positive (its ValueError names the value, a negative one too).
fn positive(name: &str, v: isize) -> borch_tensor::Result<usize> {
    usize::try_from(v).map_err(|_| {
        borch_tensor::BorchError::Value(format!(
            "{name} should be a positive integer value, but got {name}={v}"
        ))
    })
}

/// The length a sampler takes from its data source: a borch-ts dataset's, or `length`.
fn source_len(name: &str, v: &JsValue) -> JsResult<usize> {
    Ok(values::dataset(name, v)?.len())
}

macro_rules! sampler_class {
    ($rust:ident, $js:ident) => {
        #[wasm_bindgen(js_name = $js)]
        pub struct $rust(Indices);

        #[wasm_bindgen(js_class = $js)]
        impl $rust {
            /// `len(sampler)`.
            #[wasm_bindgen(getter)]
            pub fn length(&self) -> usize {
                self.0.0.len()
            }
            /// One pass; nothing is drawn before its first `next()`, as in torch.
            pub fn iter(&self) -> SamplerIterator {
                SamplerIterator(RefCell::new(Pass::Single(self.0.0.iter())))
            }
            /// The registry id `DataLoader`'s options find this sampler by.
            #[wasm_bindgen(getter = __borchData)]
            pub fn data_id(&self) -> f64 {
                self.0.1.id()
            }
        }
    };
}

sampler_class!(JsSequentialSampler, SequentialSampler);
sampler_class!(JsRandomSampler, RandomSampler);
sampler_class!(JsSubsetRandomSampler, SubsetRandomSampler);
sampler_class!(JsWeightedRandomSampler, WeightedRandomSampler);

#[wasm_bindgen(js_class = SequentialSampler)]
impl JsSequentialSampler {
    /// `new SequentialSampler(dataSource)`.
    #[wasm_bindgen(constructor)]
    pub fn new(data_source: JsValue) -> JsResult<JsSequentialSampler> {
        let n = source_len("SequentialSampler", &data_source)?;
        Ok(JsSequentialSampler(Indices::new(Rc::new(
            SequentialSampler::new(n),
        ))))
    }
}

#[wasm_bindgen(js_class = RandomSampler)]
impl JsRandomSampler {
    /// `new RandomSampler(dataSource, { replacement, numSamples, generator })`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        data_source: JsValue,
        #[wasm_bindgen(
            unchecked_param_type = "{ replacement?: boolean, numSamples?: number, generator?: Generator }"
        )]
        options: Option<Object>,
    ) -> JsResult<JsRandomSampler> {
        let n = source_len("RandomSampler", &data_source)?;
        let (rest, picked) = values::split_options(options, &["generator"])?;
        let g = values::generator("RandomSampler", &picked[0])?;
        let signature = "replacement: Bool = False, num_samples: Int = None";
        crate::bind::build("RandomSampler", signature, &Array::of1(&rest), |a| {
            let k = a
                .opt_int(1)?
                .map(|k| positive("num_samples", k))
                .transpose()?;
            RandomSampler::new(n, a.bool(0)?, k, g)
        })
        .map(|s| JsRandomSampler(Indices::new(Rc::new(s))))
    }
}

#[wasm_bindgen(js_class = SubsetRandomSampler)]
impl JsSubsetRandomSampler {
    /// `new SubsetRandomSampler(indices, { generator })`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "number[]")] indices: JsValue,
        #[wasm_bindgen(unchecked_param_type = "{ generator?: Generator }")] options: Option<Object>,
    ) -> JsResult<JsSubsetRandomSampler> {
        let (_, picked) = values::split_options(options, &["generator"])?;
        let g = values::generator("SubsetRandomSampler", &picked[0])?;
        crate::bind::build(
            "SubsetRandomSampler",
            "indices: Ints",
            &Array::of1(&indices),
            |a| a.sizes(0),
        )
        .map(|i| JsSubsetRandomSampler(Indices::new(Rc::new(SubsetRandomSampler::new(i, g)))))
    }
}

#[wasm_bindgen(js_class = WeightedRandomSampler)]
impl JsWeightedRandomSampler {
    /// `new WeightedRandomSampler(weights, numSamples, { replacement, generator })`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "number[]")] weights: JsValue,
        num_samples: JsValue,
        #[wasm_bindgen(unchecked_param_type = "{ replacement?: boolean, generator?: Generator }")]
        options: Option<Object>,
    ) -> JsResult<JsWeightedRandomSampler> {
        let (rest, picked) = values::split_options(options, &["generator"])?;
        let g = values::generator("WeightedRandomSampler", &picked[0])?;
        let w = values::floats("WeightedRandomSampler", &weights)?;
        let args = Array::of2(&num_samples, &rest);
        let signature = "num_samples: Int, replacement: Bool = True";
        crate::bind::build("WeightedRandomSampler", signature, &args, |a| {
            let k = positive("num_samples", a.int(0)?)?;
            WeightedRandomSampler::new(w, k, a.bool(1)?, g)
        })
        .map(|s| JsWeightedRandomSampler(Indices::new(Rc::new(s))))
    }
}

/// `new BatchSampler(sampler, batchSize, dropLast)`: index lists of `batchSize`.
#[wasm_bindgen(js_name = BatchSampler)]
pub struct JsBatchSampler(Rc<dyn Sampler<Vec<usize>>>, Registered);

#[wasm_bindgen(js_class = BatchSampler)]
impl JsBatchSampler {
    /// `new BatchSampler(sampler, batchSize, dropLast)`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        sampler: JsValue,
        batch_size: JsValue,
        drop_last: JsValue,
    ) -> JsResult<JsBatchSampler> {
        let inner = values::sampler("BatchSampler", &sampler)?;
        let args = Array::of2(&batch_size, &drop_last);
        let signature = "batch_size: Int, drop_last: Bool";
        let s = crate::bind::build("BatchSampler", signature, &args, |a| {
            BatchSampler::new(inner, positive("batch_size", a.int(0)?)?, a.bool(1)?)
        })?;
        let s: Rc<dyn Sampler<Vec<usize>>> = Rc::new(s);
        let r = Registered::new(Handle::Batches(s.clone()));
        Ok(JsBatchSampler(s, r))
    }

    /// `len(batch_sampler)`.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.0.len()
    }

    /// One pass: arrays of indices.
    pub fn iter(&self) -> SamplerIterator {
        SamplerIterator(RefCell::new(Pass::Batches(self.0.iter())))
    }

    /// The registry id `DataLoader`'s options find this batch sampler by.
    #[wasm_bindgen(getter = __borchData)]
    pub fn data_id(&self) -> f64 {
        self.1.id()
    }
}

enum Pass {
    Single(SamplerIter<usize>),
    Batches(SamplerIter<Vec<usize>>),
}

/// One pass of a sampler.
#[wasm_bindgen]
pub struct SamplerIterator(RefCell<Pass>);

#[wasm_bindgen]
impl SamplerIterator {
    /// The iterator protocol's step: `{ value, done }`.
    #[wasm_bindgen(unchecked_return_type = "IteratorResult<number | number[], undefined>")]
    pub fn next(&self) -> JsResult<JsValue> {
        let next = match &mut *self.0.borrow_mut() {
            Pass::Single(it) => it.next().map(|i| i.map(|i| JsValue::from_f64(i as f64))),
            Pass::Batches(it) => it.next().map(|b| {
                b.map(|b| {
                    b.iter()
                        .map(|&i| JsValue::from_f64(i as f64))
                        .collect::<Array>()
                        .into()
                })
            }),
        };
        values::step(next.map(|r| r.map_err(to_js)))
    }
}
