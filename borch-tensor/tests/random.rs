//! borch's random ops against values frozen from real torch on the CPU
//! (tests/random/cases.py writes tests/random/cases.json), compared bit for bit.

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
        "/tests/random/cases.json"
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

#[test]
fn seeds_and_generator_state() {
    let _guard = lock();
    assert_eq!(Generator::new().initial_seed(), 67_280_421_310_721);
    let g = manual_seed(2u64.pow(40) + 5);
    assert_eq!(initial_seed(), 2u64.pow(40) + 5);
    assert_eq!(g.initial_seed(), initial_seed());

    // manual_seed also forgets the cached second normal sample.
    manual_seed(0);
    let first = randn(&[1], None).unwrap().to_vec_blocking::<f32>().unwrap();
    manual_seed(0);
    assert_eq!(
        randn(&[1], None).unwrap().to_vec_blocking::<f32>().unwrap(),
        first
    );

    // An explicit generator leaves the default one alone; clones share one state.
    manual_seed(0);
    let mine = Generator::with_seed(0);
    let shared = mine.clone();
    let a = rand(&[3], Some(&mine))
        .unwrap()
        .to_vec_blocking::<f32>()
        .unwrap();
    let b = rand(&[3], None).unwrap().to_vec_blocking::<f32>().unwrap();
    assert_eq!(a, b);
    let c = rand(&[3], Some(&shared))
        .unwrap()
        .to_vec_blocking::<f32>()
        .unwrap();
    let d = rand(&[3], None).unwrap().to_vec_blocking::<f32>().unwrap();
    assert_eq!(c, d);
    assert!(mine.same(&shared) && !mine.same(&Generator::with_seed(0)));

    // get_state / set_state replay a sequence, cached normal included.
    let g = Generator::with_seed(5);
    randn(&[1], Some(&g)).unwrap();
    let state = g.get_state();
    let once = randn(&[5], Some(&g))
        .unwrap()
        .to_vec_blocking::<f32>()
        .unwrap();
    g.set_state(&state);
    let again = randn(&[5], Some(&g))
        .unwrap()
        .to_vec_blocking::<f32>()
        .unwrap();
    assert_eq!(once, again);
}

#[test]
fn errors_use_torch_wording() {
    // Messages copied from torch 2.15 on the CPU.
    let g = Generator::with_seed(0);
    let g = Some(&g);
    let msg = |r: borch_tensor::Result<()>| r.unwrap_err().to_string();
    assert_eq!(
        randint(5, 5, &[2], g).unwrap_err().to_string(),
        "random_ expects 'from' to be less than 'to', but got from=5 >= to=5"
    );
    assert_eq!(
        normal(0.0, -1.0, &[3], g).unwrap_err().to_string(),
        "normal expects std >= 0.0, but found std -1"
    );
    let f = empty(&[3], DType::Float32).unwrap();
    assert_eq!(
        msg(f.uniform_(2.0, 1.0, g)),
        "uniform_ expects to return a [from, to) range, but found from=2 > to=1"
    );
    assert_eq!(
        msg(f.uniform_(1e-7, 1e-8, g)),
        "uniform_ expects to return a [from, to) range, but found from=1e-07 > to=1e-08"
    );
    assert_eq!(
        msg(f.uniform_(f64::NAN, 1.0, g)),
        "from is out of bounds for float"
    );
    assert_eq!(
        msg(f.uniform_(0.0, f64::INFINITY, g)),
        "to is out of bounds for float"
    );
    assert_eq!(
        msg(f.uniform_(-3e38, 3e38, g)),
        "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 and \
         from=-3e+38 which result in to-from to exceed the limit"
    );
    assert_eq!(
        msg(f.normal_(0.0, f64::NAN, g)),
        "normal expects std >= 0.0, but found std nan"
    );
    assert_eq!(
        msg(f.bernoulli_(1.5, g)),
        "bernoulli_ expects p to be in [0, 1], but got p=1.5"
    );
    let i = empty(&[3], DType::Int64).unwrap();
    let e = i.uniform_(0.0, 1.0, g).unwrap_err();
    assert_eq!(e.kind(), borch_tensor::ErrorKind::NotImplemented);
    assert_eq!(
        e.to_string(),
        "\"check_uniform_bounds\" not implemented for 'Long'"
    );
    assert_eq!(
        msg(i.normal_(0.0, 1.0, g)),
        "\"normal_kernel_cpu\" not implemented for 'Long'"
    );
    assert_eq!(
        msg(i.normal_(0.0, -1.0, g)),
        "normal expects std >= 0.0, but found std -1"
    );
    let b = empty(&[3], DType::Bool).unwrap();
    assert_eq!(msg(b.random_(0, 3, g)), "to - 1 is out of bounds for bool");
    assert_eq!(msg(b.random_(-1, 1, g)), "from is out of bounds for bool");
    let expanded = empty(&[3], DType::Float32)
        .unwrap()
        .expand(&[2, 3])
        .unwrap();
    assert_eq!(
        msg(expanded.uniform_(0.0, 1.0, g)),
        "unsupported operation: more than one element of the written-to tensor refers to a \
         single memory location. Please clone() the tensor before performing the operation."
    );
}
