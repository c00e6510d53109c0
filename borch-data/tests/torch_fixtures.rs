//! Replays tests/data/cases.json (frozen from real torch by tests/data/fixtures_torch.py): index
//! orders of every sampler, random_split and DataLoader pass for a seed, the generator's state
//! after, collated batches and ConcatDataset lookups. Everything must match exactly.

use std::rc::Rc;

use borch_data::*;
use borch_tensor::{Generator, Tensor};
use serde_json::Value;

mod fixtures;

use fixtures::construct::construct;
use fixtures::*;

fn one_pass<T: serde::Serialize>(s: &dyn Sampler<T>) -> Value {
    json_of(s.iter().collect::<borch_tensor::Result<Vec<T>>>())
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

/// torch's `Numbers(n)`: the ints 0..n, or (`tensors`) the float tensors `[i]`.
struct Numbers(usize, bool);

impl IterableDataset for Numbers {
    fn iter(&self) -> borch_tensor::Result<SampleIter> {
        let tensors = self.1;
        Ok(Box::new((0..self.0 as i64).map(move |i| {
            if tensors {
                Tensor::from_slice(&[i as f32], &[1]).map(Sample::Tensor)
            } else {
                Ok(Sample::Int(i))
            }
        })))
    }
    fn len(&self) -> borch_tensor::Result<usize> {
        Ok(self.0)
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
        Source::Iterable(Rc::new(Numbers(n, case["samples"] == "tensor")))
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

/// Every pass of `loader` against the case's, then the generator's next draws.
fn check_passes(case: &Value, loader: &DataLoader, g: Option<&Generator>) -> Result<(), String> {
    for (i, want) in case["passes"]
        .as_array()
        .expect("passes")
        .iter()
        .enumerate()
    {
        let got = pass_json(loader);
        if got != as_borch(want) {
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

/// `random_split(TensorDataset(x, y), [0.7, 0.3])`, a shuffled loader over the first part and a
/// sequential one over the second.
fn composed_split(case: &Value) -> Result<(), String> {
    let g = generator(case);
    let x = Tensor::from_slice(&(0..30).map(|v| v as f32).collect::<Vec<_>>(), &[10, 3])
        .map_err(|e| e.to_string())?;
    let y = Tensor::from_slice(&(0..10).map(|v| v * 10).collect::<Vec<i64>>(), &[10])
        .map_err(|e| e.to_string())?;
    let ds: Rc<dyn Dataset> = Rc::new(TensorDataset::new(vec![x, y]).map_err(|e| e.to_string())?);
    let parts = random_split(ds, &[0.7, 0.3], g.as_ref()).map_err(|e| e.to_string())?;
    let splits = serde_json::json!([parts[0].indices(), parts[1].indices()]);
    if splits != case["splits"] {
        return Err(format!("splits: borch {splits}, torch {}", case["splits"]));
    }
    let train = DataLoader::new(
        Rc::new(parts[0].clone()),
        DataLoaderOptions {
            batch_size: Some(3),
            shuffle: Some(true),
            generator: g.clone(),
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())?;
    for (i, want) in case["passes"]
        .as_array()
        .expect("passes")
        .iter()
        .enumerate()
    {
        let got = pass_json(&train);
        if got != as_borch(want) {
            return Err(format!("pass {i}: borch {got}\n  torch {want}"));
        }
    }
    let test = DataLoader::new(
        Rc::new(parts[1].clone()),
        DataLoaderOptions {
            batch_size: Some(2),
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let got = pass_json(&test);
    if got != as_borch(&case["test"]) {
        return Err(format!("test part: borch {got}\n  torch {}", case["test"]));
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

/// `ChainDataset(parts)` (or `a + b`: the same chain) through a DataLoader, and iterated itself.
fn chain_case(case: &Value) -> Result<(), String> {
    let parts = case["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .map(|p| match p.get("n") {
            Some(n) => Source::Iterable(Rc::new(Numbers(n.as_u64().expect("n") as usize, false))),
            None => {
                let k = p["map"].as_u64().expect("map") as i64;
                let t = Tensor::from_slice(&(0..k).collect::<Vec<_>>(), &[k as usize]).expect("t");
                Source::Map(Rc::new(TensorDataset::new(vec![t]).expect("dataset")))
            }
        })
        .collect();
    let chain = Rc::new(ChainDataset::new(parts));
    let batch_size = case["options"]["batch_size"].as_u64().map(|b| b as usize);
    let options = DataLoaderOptions {
        batch_size,
        ..Default::default()
    };
    let loader = DataLoader::new(chain.clone(), options).map_err(|e| e.to_string())?;
    let len = json_of(loader.len());
    if !agree(&len, &case["len"]) {
        return Err(format!("len: borch {len}, torch {}", case["len"]));
    }
    for (i, want) in case["passes"]
        .as_array()
        .expect("passes")
        .iter()
        .enumerate()
    {
        let got = pass_json(&loader);
        if !agree(&got, &as_borch(want)) {
            return Err(format!("pass {i}: borch {got}\n  torch {want}"));
        }
    }
    let samples = match IterableDataset::iter(chain.as_ref()) {
        Ok(it) => it
            .map(|s| s.map(|s| encode(&s)))
            .collect::<borch_tensor::Result<Vec<_>>>()
            .map_or_else(|e| error_json(&e), Value::Array),
        Err(e) => error_json(&e),
    };
    if !agree(&samples, &case["samples"]) {
        return Err(format!(
            "samples: borch {samples}, torch {}",
            case["samples"]
        ));
    }
    Ok(())
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
        "interleaved" => {
            let g = generator(case);
            let loader = loader_for(case, g.clone(), false)?;
            let it = loader.iter().map_err(|e| e.to_string())?;
            let between = after(None);
            if between != case["between"] {
                return Err(format!(
                    "draw after iter(): borch {between}, torch {}",
                    case["between"]
                ));
            }
            let got = it
                .map(|b| b.map(|b| encode(&b)))
                .collect::<borch_tensor::Result<Vec<_>>>()
                .map_err(|e| e.to_string())?;
            if Value::Array(got.clone()) != as_borch(&case["batches"]) {
                return Err(format!("borch {got:?}\n  torch {}", case["batches"]));
            }
            if after(g.as_ref()) != case["after"] {
                return Err("generator after differs".into());
            }
            Ok(())
        }
        "composed" => composed_split(case),
        "chain" => chain_case(case),
        "composed_concat" => {
            let g = generator(case);
            let part = |rows: usize, base: usize| -> Rc<dyn Dataset> {
                let x: Vec<f32> = (0..rows * 2).map(|v| (v + base) as f32).collect();
                let y: Vec<i64> = (0..rows).map(|v| (v + base) as i64).collect();
                let x = Tensor::from_slice(&x, &[rows, 2]).expect("x");
                let y = Tensor::from_slice(&y, &[rows]).expect("y");
                Rc::new(TensorDataset::new(vec![x, y]).expect("dataset"))
            };
            let cat =
                ConcatDataset::new(vec![part(3, 0), part(2, 100)]).map_err(|e| e.to_string())?;
            let options = DataLoaderOptions {
                batch_size: Some(2),
                shuffle: Some(true),
                ..Default::default()
            };
            let loader = DataLoader::new(Rc::new(cat), options).map_err(|e| e.to_string())?;
            check_passes(case, &loader, g.as_ref())
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

#[test]
fn batches_match_torch() {
    run(
        &[
            "dataloader",
            "iterable",
            "chain",
            "interleaved",
            "composed",
            "composed_concat",
            "collate",
            "concat",
            "construct",
        ],
        batch_case,
    );
}
