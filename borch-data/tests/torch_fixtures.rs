//! Replays tests/data/cases.json (frozen from real torch by tests/data/fixtures_torch.py): index
//! orders of every sampler, random_split and DataLoader pass for a seed, the generator's state
//! after, collated batches and ConcatDataset lookups. Everything must match exactly.

use std::rc::Rc;
use std::sync::Mutex;

use borch_data::*;
use borch_tensor::{BorchError, DType, ErrorKind, Generator, HostData, Tensor};
use serde_json::Value;

/// The global generator is shared: cases run one at a time.
static GLOBAL: Mutex<()> = Mutex::new(());

fn cases(kinds: &[&str]) -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/cases.json");
    let text = std::fs::read_to_string(path).expect("tests/data/cases.json");
    let all: Value = serde_json::from_str(&text).expect("valid JSON");
    let filter = std::env::var("DATA_FILTER").unwrap_or_default();
    all["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| kinds.contains(&c["kind"].as_str().unwrap_or("")))
        .filter(|c| c["name"].as_str().unwrap_or("").contains(&filter))
        .cloned()
        .collect()
}

/// The case's generator: `None` after seeding the global one, or a fresh seeded one.
fn generator(case: &Value) -> Option<Generator> {
    let seed = case["seed"].as_u64().expect("seed");
    if case["gen"] == "global" {
        borch_tensor::manual_seed(seed);
        None
    } else {
        Some(Generator::with_seed(seed))
    }
}

fn after(g: Option<&Generator>) -> Value {
    let v = borch_tensor::random::draws::randint(0, 1 << 30, 2, g).expect("randint");
    serde_json::json!(v)
}

fn usize_list(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("list")
        .iter()
        .map(|x| x.as_u64().expect("index") as usize)
        .collect()
}

fn error_json(e: &BorchError) -> Value {
    let class = match e.kind() {
        ErrorKind::Runtime => "RuntimeError",
        ErrorKind::Value => "ValueError",
        ErrorKind::Type => "TypeError",
        ErrorKind::Index => "IndexError",
        ErrorKind::Key => "KeyError",
        ErrorKind::NotImplemented => "NotImplementedError",
        _ => "Error",
    };
    serde_json::json!({"error": [class, e.to_string()]})
}

/// torch's exception and borch's agree: the same class, and one message contains the other.
fn same_error(got: &Value, want: &Value) -> bool {
    let (g, w) = (&got["error"], &want["error"]);
    let class = |c: &Value| {
        if c == "AssertionError" {
            Value::from("ValueError")
        } else {
            c.clone()
        }
    };
    let (gm, wm) = (g[1].as_str().unwrap_or(""), w[1].as_str().unwrap_or(""));
    class(&g[0]) == class(&w[0]) && (gm.contains(wm) || wm.contains(gm))
}

fn json_of<T: serde::Serialize>(r: borch_tensor::Result<T>) -> Value {
    match r {
        Ok(v) => serde_json::to_value(v).expect("json"),
        Err(e) => error_json(&e),
    }
}

fn one_pass<T: serde::Serialize>(s: &dyn Sampler<T>) -> Value {
    json_of(s.iter().collect::<borch_tensor::Result<Vec<T>>>())
}

fn agree(got: &Value, want: &Value) -> bool {
    if want.get("error").is_some() {
        return got.get("error").is_some() && same_error(got, want);
    }
    got == want
}

fn check_sampler<T: serde::Serialize>(
    case: &Value,
    s: borch_tensor::Result<Box<dyn Sampler<T>>>,
    g: Option<&Generator>,
) -> Result<(), String> {
    let s = s.map_err(|e| format!("construction failed: {e}"))?;
    if case["len"].as_u64() != Some(s.len() as u64) {
        return Err(format!("len {} != torch's {}", s.len(), case["len"]));
    }
    for (i, want) in case["passes"]
        .as_array()
        .expect("passes")
        .iter()
        .enumerate()
    {
        let got = one_pass(s.as_ref());
        if !agree(&got, want) {
            return Err(format!("pass {i}: borch {got}\n  torch {want}"));
        }
    }
    let got = after(g);
    if got != case["after"] {
        return Err(format!(
            "generator after: borch {got}, torch {}",
            case["after"]
        ));
    }
    Ok(())
}

fn sampler_case(case: &Value) -> Result<(), String> {
    let g = generator(case);
    let n = case["n"].as_u64().unwrap_or(0) as usize;
    match case["kind"].as_str().unwrap_or("") {
        "random_sampler" => {
            let k = case["num_samples"].as_u64().map(|k| k as usize);
            let replacement = case["replacement"].as_bool().expect("replacement");
            let s = RandomSampler::new(n, replacement, k, g.clone())
                .map(|s| Box::new(s) as Box<dyn Sampler>);
            check_sampler(case, s, g.as_ref())
        }
        "subset_random" => {
            let s = SubsetRandomSampler::new(usize_list(&case["indices"]), g.clone());
            check_sampler(case, Ok(Box::new(s) as Box<dyn Sampler>), g.as_ref())
        }
        "weighted" => {
            let w: Vec<f64> = case["weights"]
                .as_array()
                .expect("weights")
                .iter()
                .map(|x| {
                    x.as_f64()
                        .or_else(|| x.as_str().and_then(|s| s.parse().ok()))
                        .expect("weight")
                })
                .collect();
            let k = case["num_samples"].as_u64().expect("k") as usize;
            let replacement = case["replacement"].as_bool().expect("replacement");
            let s = WeightedRandomSampler::new(w, k, replacement, g.clone())
                .map(|s| Box::new(s) as Box<dyn Sampler>);
            check_sampler(case, s, g.as_ref())
        }
        "batch_sampler" => {
            let inner: Rc<dyn Sampler> = if case["inner"] == "sequential" {
                Rc::new(SequentialSampler::new(n))
            } else {
                Rc::new(RandomSampler::new(n, false, None, g.clone()).map_err(|e| e.to_string())?)
            };
            let bs = case["batch_size"].as_u64().expect("batch_size") as usize;
            let drop_last = case["drop_last"].as_bool().expect("drop_last");
            let s = BatchSampler::new(inner, bs, drop_last)
                .map(|s| Box::new(s) as Box<dyn Sampler<Vec<usize>>>);
            check_sampler(case, s, g.as_ref())
        }
        "random_split" => {
            let lengths: Vec<f64> = case["lengths"]
                .as_array()
                .expect("lengths")
                .iter()
                .map(|x| x.as_f64().expect("length"))
                .collect();
            let dataset: Rc<dyn Dataset> =
                Rc::new((0..n as i64).map(Sample::Int).collect::<Vec<_>>());
            let got = json_of(random_split(dataset, &lengths, g.as_ref()).map(|parts| {
                parts
                    .iter()
                    .map(|p| p.indices().to_vec())
                    .collect::<Vec<_>>()
            }));
            if !agree(&got, &case["splits"]) {
                return Err(format!("borch {got}\n  torch {}", case["splits"]));
            }
            let got = after(g.as_ref());
            if got != case["after"] {
                return Err(format!(
                    "generator after: borch {got}, torch {}",
                    case["after"]
                ));
            }
            Ok(())
        }
        other => Err(format!("unknown kind {other}")),
    }
}

fn run(kinds: &[&str], f: fn(&Value) -> Result<(), String>) {
    let _lock = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
    let cases = cases(kinds);
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(e) = f(case) {
            failures.push(format!("{}: {e}", case["name"].as_str().unwrap_or("?")));
        }
    }
    println!(
        "data fixtures [{}]: {} agreeing / {} cases",
        kinds.join(", "),
        cases.len() - failures.len(),
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn sampler_orders_match_torch() {
    run(
        &[
            "random_sampler",
            "subset_random",
            "weighted",
            "batch_sampler",
            "random_split",
        ],
        sampler_case,
    );
}

// ---- samples and batches (these touch the GPU) ----

fn decode(v: &Value) -> Sample {
    if let Some(flat) = v.get("t") {
        let shape = usize_list(&v["shape"]);
        let flat = flat.as_array().expect("values");
        let data = match v["dtype"].as_str().unwrap_or("") {
            "int64" => HostData::I64(flat.iter().map(|x| x.as_i64().expect("int")).collect()),
            "bool" => HostData::Bool(flat.iter().map(|x| x.as_bool().expect("bool")).collect()),
            _ => HostData::F32(
                flat.iter()
                    .map(|x| x.as_f64().expect("float") as f32)
                    .collect(),
            ),
        };
        return Sample::Tensor(Tensor::from_host(&data, &shape).expect("tensor"));
    }
    if let Some(b) = v.get("b") {
        return Sample::Bool(b.as_bool().expect("bool"));
    }
    if let Some(i) = v.get("i") {
        return Sample::Int(i.as_i64().expect("int"));
    }
    if let Some(f) = v.get("f") {
        return Sample::Float(f.as_f64().expect("float"));
    }
    if let Some(s) = v.get("s") {
        return Sample::Str(s.as_str().expect("str").to_string());
    }
    let list = |k: &str| v[k].as_array().expect("items").iter().map(decode).collect();
    if v.get("tuple").is_some() {
        return Sample::Tuple(list("tuple"));
    }
    if v.get("list").is_some() {
        return Sample::List(list("list"));
    }
    Sample::Dict(
        v["dict"]
            .as_array()
            .expect("dict")
            .iter()
            .map(|kv| (kv[0].as_str().expect("key").to_string(), decode(&kv[1])))
            .collect(),
    )
}

/// A sample in the fixture encoding; torch's float64 is borch's float32 (documented).
fn encode(s: &Sample) -> Value {
    use serde_json::json;
    match s {
        Sample::Tensor(t) => {
            let host = t.to_host_blocking().expect("read back");
            let (values, dtype) = match (&host, t.dtype()) {
                (HostData::I64(v), _) => (json!(v), "int64"),
                (HostData::Bool(v), _) => (json!(v), "bool"),
                (HostData::F32(v), DType::Float32) => (
                    json!(v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>()),
                    "float32",
                ),
                _ => (json!(null), "?"),
            };
            json!({"t": values, "shape": t.shape(), "dtype": dtype})
        }
        Sample::Int(i) => json!({"i": i}),
        Sample::Float(f) => json!({"f": f}),
        Sample::Bool(b) => json!({"b": b}),
        Sample::Str(v) => json!({"s": v}),
        Sample::Tuple(v) => json!({"tuple": v.iter().map(encode).collect::<Vec<_>>()}),
        Sample::List(v) => json!({"list": v.iter().map(encode).collect::<Vec<_>>()}),
        Sample::Dict(v) => {
            json!({"dict": v.iter().map(|(k, x)| json!([k, encode(x)])).collect::<Vec<_>>()})
        }
    }
}

/// torch's expected value with float64 read as borch's float32.
fn as_borch(want: &Value) -> Value {
    match want {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = if k == "dtype" && v == "float64" {
                        Value::from("float32")
                    } else {
                        as_borch(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(v) => Value::Array(v.iter().map(as_borch).collect()),
        other => other.clone(),
    }
}

fn pass_json(loader: &DataLoader) -> Value {
    match loader.iter() {
        Err(e) => error_json(&e),
        Ok(it) => {
            let mut out = Vec::new();
            for b in it {
                match b {
                    Ok(b) => out.push(encode(&b)),
                    Err(e) => return error_json(&e),
                }
            }
            Value::Array(out)
        }
    }
}

struct Numbers(usize);

impl IterableDataset for Numbers {
    fn iter(&self) -> borch_tensor::Result<SampleIter> {
        Ok(Box::new((0..self.0 as i64).map(|i| Ok(Sample::Int(i)))))
    }
    fn len(&self) -> Option<usize> {
        Some(self.0)
    }
}

/// `per_sample`: pass `default_collate` as the `collate_fn`, so batches are fetched sample by
/// sample and stacked instead of gathered by `TensorDataset::get_batch`.
fn loader_for(case: &Value, g: Option<Generator>, per_sample: bool) -> Result<DataLoader, String> {
    let n = case["n"].as_u64().expect("n") as usize;
    let o = &case["options"];
    let mut options = DataLoaderOptions {
        generator: g.clone(),
        ..Default::default()
    };
    if per_sample && o.get("batch_size") != Some(&Value::Null) {
        options.collate_fn = Some(Rc::new(default_collate));
    }
    if let Some(bs) = o.get("batch_size") {
        options.batch_size = bs.as_u64().map(|b| b as usize);
    }
    options.shuffle = o.get("shuffle").and_then(Value::as_bool);
    options.drop_last = o.get("drop_last").and_then(Value::as_bool).unwrap_or(false);
    let source: Source = if case["kind"] == "iterable" {
        Source::Iterable(Rc::new(Numbers(n)))
    } else {
        let x = Tensor::from_slice(&(0..n * 3).map(|v| v as f32).collect::<Vec<_>>(), &[n, 3])
            .map_err(|e| e.to_string())?;
        let y = Tensor::from_slice(&(0..n as i64).map(|v| v * 10).collect::<Vec<_>>(), &[n])
            .map_err(|e| e.to_string())?;
        Source::Map(Rc::new(
            TensorDataset::new(vec![x, y]).map_err(|e| e.to_string())?,
        ))
    };
    if let Some(sub) = o.get("sampler") {
        options.generator = None;
        options.sampler = Some(Rc::new(SubsetRandomSampler::new(
            usize_list(&sub["subset_random"]),
            g.clone(),
        )));
    }
    if let Some(b) = o.get("batch_sampler") {
        options.generator = None;
        let inner = RandomSampler::new(n, false, None, g.clone()).map_err(|e| e.to_string())?;
        let bs = b["random"].as_u64().expect("batch size") as usize;
        let drop_last = b["drop_last"].as_bool().expect("drop_last");
        options.batch_sampler = Some(Rc::new(
            BatchSampler::new(Rc::new(inner), bs, drop_last).map_err(|e| e.to_string())?,
        ));
    }
    DataLoader::new(source, options).map_err(|e| e.to_string())
}

fn batch_case(case: &Value) -> Result<(), String> {
    match case["kind"].as_str().unwrap_or("") {
        "dataloader" | "iterable" => {
            for per_sample in [false, true] {
                let g = generator(case);
                let loader = loader_for(case, g.clone(), per_sample)?;
                let len = loader.len().map_err(|e| e.to_string())?;
                if case["len"].as_u64() != Some(len as u64) {
                    return Err(format!("len {len} != torch's {}", case["len"]));
                }
                for (i, want) in case["passes"]
                    .as_array()
                    .expect("passes")
                    .iter()
                    .enumerate()
                {
                    let got = pass_json(&loader);
                    if got != as_borch(want) {
                        return Err(format!(
                            "pass {i} (per_sample {per_sample}): borch {got}\n  torch {want}"
                        ));
                    }
                }
                let got = after(g.as_ref());
                if got != case["after"] {
                    return Err(format!(
                        "generator after: borch {got}, torch {}",
                        case["after"]
                    ));
                }
            }
            Ok(())
        }
        "construct" => {
            let got = construct(case["what"].as_str().expect("what"));
            if !agree(&got, &case["expected"]) {
                return Err(format!("borch {got}\n  torch {}", case["expected"]));
            }
            Ok(())
        }
        "collate" => {
            let batch = case["batch"]
                .as_array()
                .expect("batch")
                .iter()
                .map(decode)
                .collect();
            let got = match default_collate(batch) {
                Ok(s) => encode(&s),
                Err(e) => error_json(&e),
            };
            let want = as_borch(&case["expected"]);
            if !agree(&got, &want) {
                return Err(format!("borch {got}\n  torch {want}"));
            }
            Ok(())
        }
        "concat" => {
            let parts: Vec<Rc<dyn Dataset>> = usize_list(&case["sizes"])
                .iter()
                .enumerate()
                .map(|(i, &k)| {
                    let t = Tensor::from_slice(
                        &(0..k as i64)
                            .map(|v| v + 100 * i as i64)
                            .collect::<Vec<_>>(),
                        &[k],
                    )
                    .expect("tensor");
                    Rc::new(TensorDataset::new(vec![t]).expect("dataset")) as Rc<dyn Dataset>
                })
                .collect();
            let cat = ConcatDataset::new(parts).map_err(|e| e.to_string())?;
            if serde_json::json!(cat.cumulative_sizes()) != case["cumulative_sizes"] {
                return Err("cumulative_sizes differ".into());
            }
            let got = match cat.get(case["index"].as_i64().expect("index")) {
                Ok(s) => encode(&s),
                Err(e) => error_json(&e),
            };
            if !agree(&got, &case["expected"]) {
                return Err(format!("borch {got}\n  torch {}", case["expected"]));
            }
            Ok(())
        }
        other => Err(format!("unknown kind {other}")),
    }
}

/// The constructor (or lookup) a `construct` case names, as JSON: "ok", a sample, or the error.
fn construct(what: &str) -> Value {
    let zeros = |shape: &[usize]| borch_tensor::zeros(shape, DType::Float32).expect("zeros");
    let ds: Rc<dyn Dataset> = Rc::new(TensorDataset::new(vec![zeros(&[4, 2])]).expect("ds"));
    let seq = || Rc::new(SequentialSampler::new(4)) as Rc<dyn Sampler>;
    let batches = || {
        Rc::new(BatchSampler::new(seq(), 2, false).expect("batches")) as Rc<dyn Sampler<Vec<usize>>>
    };
    let loader =
        |source: Source, options: DataLoaderOptions| DataLoader::new(source, options).map(|_| "ok");
    let map = || Source::Map(ds.clone());
    let numbers = || Source::Iterable(Rc::new(Unsized));
    let ok = |r: borch_tensor::Result<&str>| json_of(r);
    let sample = |r: borch_tensor::Result<Sample>| match r {
        Ok(s) => encode(&s),
        Err(e) => error_json(&e),
    };
    let o = DataLoaderOptions::default;
    match what {
        "dataloader_sampler_and_shuffle" => ok(loader(
            map(),
            DataLoaderOptions {
                sampler: Some(seq()),
                shuffle: Some(true),
                ..o()
            },
        )),
        "dataloader_batch_sampler_and_batch_size" => ok(loader(
            map(),
            DataLoaderOptions {
                batch_sampler: Some(batches()),
                batch_size: Some(2),
                ..o()
            },
        )),
        "dataloader_batch_sampler_and_drop_last" => ok(loader(
            map(),
            DataLoaderOptions {
                batch_sampler: Some(batches()),
                drop_last: true,
                ..o()
            },
        )),
        "dataloader_no_batch_and_drop_last" => ok(loader(
            map(),
            DataLoaderOptions {
                batch_size: None,
                drop_last: true,
                ..o()
            },
        )),
        "dataloader_batch_size_0" => ok(loader(
            map(),
            DataLoaderOptions {
                batch_size: Some(0),
                ..o()
            },
        )),
        "iterable_shuffle" => ok(loader(
            numbers(),
            DataLoaderOptions {
                shuffle: Some(true),
                ..o()
            },
        )),
        "iterable_sampler" => ok(loader(
            numbers(),
            DataLoaderOptions {
                sampler: Some(seq()),
                ..o()
            },
        )),
        "iterable_len" => json_of(DataLoader::new(numbers(), o()).and_then(|l| l.len())),
        "batch_sampler_0" => ok(BatchSampler::new(seq(), 0, false).map(|_| "ok")),
        "random_sampler_num_samples_0" => {
            ok(RandomSampler::new(4, false, Some(0), None).map(|_| "ok"))
        }
        "random_sampler_empty" => ok(RandomSampler::new(0, false, None, None).map(|_| "ok")),
        "weighted_num_samples_0" => {
            ok(WeightedRandomSampler::new(vec![1.0], 0, true, None).map(|_| "ok"))
        }
        "tensor_dataset_mismatch" => {
            ok(TensorDataset::new(vec![zeros(&[2]), zeros(&[3])]).map(|_| "ok"))
        }
        "concat_empty" => ok(ConcatDataset::new(vec![]).map(|_| "ok")),
        "subset_out_of_range" => sample(Subset::new(ds.clone(), vec![0, 1]).get(2)),
        "tensor_dataset_out_of_range" => sample(ds.get(4)),
        "tensor_dataset_negative" => sample(ds.get(-1)),
        other => serde_json::json!({"error": ["unknown", other]}),
    }
}

/// An iterable dataset without a length.
struct Unsized;

impl IterableDataset for Unsized {
    fn iter(&self) -> borch_tensor::Result<SampleIter> {
        Ok(Box::new((0..3).map(|i| Ok(Sample::Int(i)))))
    }
}

#[test]
fn batches_match_torch() {
    run(
        &["dataloader", "iterable", "collate", "concat", "construct"],
        batch_case,
    );
}
