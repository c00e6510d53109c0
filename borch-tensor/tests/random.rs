//! borch's random ops against values frozen from real torch on the CPU
//! (tests/golden/random_cases.py writes tests/golden/random_cases.json).

use std::sync::Mutex;

use borch_tensor::{
    DType, Generator, HostData, Tensor, empty, initial_seed, manual_seed, normal, rand, randint,
    randn, randperm,
};
use serde_json::Value;

/// Tests that draw from the default generator must not interleave.
static DEFAULT_GEN: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    DEFAULT_GEN.lock().unwrap_or_else(|e| e.into_inner())
}

fn shape(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

fn dtype(step: &Value) -> DType {
    DType::from_name(
        step.get("dtype")
            .and_then(Value::as_str)
            .unwrap_or("float32"),
    )
    .unwrap()
}

/// The tensor a step works on in place: a fresh tensor of `shape`, seen through `view`.
fn target(step: &Value) -> Tensor {
    let base = empty(&shape(&step["shape"]), dtype(step)).unwrap();
    match step.get("view").and_then(Value::as_str).unwrap_or("none") {
        "t" => base.t().unwrap(),
        "step" => base.slice(1, None, None, 2).unwrap(),
        "perm" => base.permute(&[2, 0, 1]).unwrap(),
        "cols" => base.narrow(1, 1, 2).unwrap(),
        _ => base,
    }
}

fn run(step: &Value, g: Option<&Generator>) -> Tensor {
    let f = |k: &str| step[k].as_f64().unwrap();
    let i = |k: &str| step[k].as_i64().unwrap();
    match step["op"].as_str().unwrap() {
        "rand" => rand(&shape(&step["shape"]), g).unwrap(),
        "randn" => randn(&shape(&step["shape"]), g).unwrap(),
        "normal" => normal(f("mean"), f("std"), &shape(&step["shape"]), g).unwrap(),
        "randint" => randint(i("low"), i("high"), &shape(&step["shape"]), g).unwrap(),
        "randperm" => randperm(i("n") as usize, g).unwrap(),
        "rand_like" => target(step).rand_like(g).unwrap(),
        "randn_like" => target(step).randn_like(g).unwrap(),
        op => {
            let t = target(step);
            match op {
                "uniform_" => t.uniform_(f("from"), f("to"), g),
                "normal_" => t.normal_(f("mean"), f("std"), g),
                "random_" => t.random_(i("from"), i("to"), g),
                "bernoulli_" => t.bernoulli_(f("p"), g),
                _ => panic!("unknown op {op}"),
            }
            .unwrap();
            t
        }
    }
}

/// Whether `got` equals torch's values bit for bit; otherwise a description of the difference.
fn compare(got: &HostData, expect: &[Value], dtype: &str) -> Result<(), String> {
    if got.len() != expect.len() {
        return Err(format!("{} values, expected {}", got.len(), expect.len()));
    }
    match (got, dtype) {
        (HostData::F32(v), "float32") => {
            let bad: Vec<(usize, f32, f32)> = v
                .iter()
                .zip(expect)
                .enumerate()
                .map(|(k, (&a, e))| (k, a, e.as_f64().unwrap() as f32))
                .filter(|(_, a, e)| a.to_bits() != e.to_bits())
                .collect();
            if bad.is_empty() {
                Ok(())
            } else {
                let ulps = bad
                    .iter()
                    .map(|(_, a, e)| (a.to_bits() as i64 - e.to_bits() as i64).abs())
                    .max()
                    .unwrap();
                Err(format!(
                    "{} of {} differ (max {ulps} ulp), first at {}: {} vs torch {}",
                    bad.len(),
                    v.len(),
                    bad[0].0,
                    bad[0].1,
                    bad[0].2
                ))
            }
        }
        (HostData::I64(v), "int64") => {
            let e: Vec<i64> = expect.iter().map(|x| x.as_i64().unwrap()).collect();
            if *v == e {
                Ok(())
            } else {
                Err(format!("{v:?} vs torch {e:?}"))
            }
        }
        (HostData::Bool(v), "bool") => {
            let e: Vec<bool> = expect.iter().map(|x| x.as_bool().unwrap()).collect();
            if *v == e {
                Ok(())
            } else {
                Err(format!("{v:?} vs torch {e:?}"))
            }
        }
        (got, _) => Err(format!("dtype {} vs torch {dtype}", got.dtype())),
    }
}

#[test]
fn golden_cases_match_torch() {
    let _guard = lock();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/random_cases.json"
    ))
    .unwrap();
    let golden: Value = serde_json::from_str(&text).unwrap();
    let cases = golden["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    for case in cases {
        let seed = case["seed"].as_u64().unwrap();
        let explicit = case["generator"].as_bool().unwrap();
        let generator = explicit.then(|| Generator::with_seed(seed));
        if !explicit {
            manual_seed(seed);
        }
        for (k, step) in case["steps"].as_array().unwrap().iter().enumerate() {
            let got = run(step, generator.as_ref()).to_host_blocking().unwrap();
            let expect = step["expect"].as_array().unwrap();
            if let Err(e) = compare(&got, expect, step["expect_dtype"].as_str().unwrap()) {
                failures.push(format!("{} step {k} ({}): {e}", case["name"], step["op"]));
            }
        }
    }
    eprintln!(
        "random golden: {} agreeing / {} cases (torch {}, {})",
        cases.len() - failures.len(),
        cases.len(),
        golden["torch_version"],
        golden["cpu_capability"]
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
