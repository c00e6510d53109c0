//! Shared by the tests that replay `tests/optim/cases.json` (frozen from real torch by
//! `tests/optim/cases.py`).

#![allow(dead_code)]

use std::collections::BTreeMap;

use borch_optim::{Hyper, Optim, Optimizer, Options, ParamGroup, Params, Value, catalog};
use borch_tensor::Tensor;
use serde_json::Value as Json;

/// The frozen cases.
pub fn cases() -> Json {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/optim/cases.json");
    let text =
        std::fs::read_to_string(path).expect("tests/optim/cases.json (run tests/optim/cases.py)");
    serde_json::from_str(&text).expect("cases.json parses")
}

/// A JSON value as a borch dict value.
pub fn value(j: &Json) -> Value {
    match j {
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => Value::Float(n.as_f64().expect("number")),
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(value).collect()),
        Json::Null => Value::None,
        Json::Object(_) => panic!("no nested dicts in options"),
    }
}

/// `base` with the entries of the JSON object `over` replaced, as torch's `dict(defaults, **over)`.
pub fn options<H: Hyper>(base: &H, over: &Json) -> H {
    let mut map: BTreeMap<String, Value> = base.to_map();
    for (k, v) in over.as_object().expect("options object") {
        map.insert(k.clone(), value(v));
    }
    H::from_map(&map).expect("options read back")
}

pub fn floats(j: &Json) -> Vec<f32> {
    j.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("float") as f32)
        .collect()
}

pub fn f64s(j: &Json) -> Vec<f64> {
    j.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("float"))
        .collect()
}

pub fn shape(j: &Json) -> Vec<usize> {
    j.as_array()
        .expect("shape")
        .iter()
        .map(|x| x.as_u64().expect("dim") as usize)
        .collect()
}

/// The case's initial parameters.
pub fn params(case: &Json) -> Vec<Tensor> {
    case["params"]
        .as_array()
        .expect("params")
        .iter()
        .map(|p| Tensor::from_slice(&floats(&p["data"]), &shape(&p["shape"])).expect("param"))
        .collect()
}

/// The case's optimizer over `params`, groups and defaults as torch had them.
pub fn optimizer<H: Hyper + Default>(case: &Json, params: &[Tensor]) -> Optim<H> {
    let defaults: H = options(&H::default(), &case["defaults"]);
    let groups = case["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| {
            let idx = g["params"].as_array().expect("indices");
            let ps = idx
                .iter()
                .map(|i| params[i.as_u64().expect("index") as usize].clone())
                .collect();
            ParamGroup::new(ps, options(&defaults, &g["options"]))
        })
        .collect();
    Optim::with_groups(groups, defaults).expect("optimizer")
}

/// The case's optimizer built through the catalog by torch's name, its groups as torch had them.
pub fn catalog_optimizer(case: &Json, params: &[Tensor]) -> Box<dyn Optimizer> {
    let map = |j: &Json| -> Options {
        j.as_object()
            .expect("options object")
            .iter()
            .map(|(k, v)| (k.clone(), value(v)))
            .collect()
    };
    let groups = case["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| {
            let idx = g["params"].as_array().expect("indices");
            let ps = idx
                .iter()
                .map(|i| params[i.as_u64().expect("index") as usize].clone())
                .collect();
            (ps, map(&g["options"]))
        })
        .collect();
    let name = case["optimizer"].as_str().expect("optimizer");
    catalog::build(name, Params::Groups(groups), &map(&case["defaults"]))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `|a - b| <= atol + rtol * |b|` for every element, with a message naming what differs.
pub fn assert_close(what: &str, got: &[f32], want: &[f32], atol: f32, rtol: f32) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= atol + rtol * w.abs() || (g.is_nan() && w.is_nan());
        assert!(
            ok,
            "{what}[{i}]: borch {g}, torch {w} (diff {})",
            (g - w).abs()
        );
    }
}

/// Relative closeness of learning rates (1e-12).
pub fn assert_lr(what: &str, got: f64, want: f64) {
    let ok = got == want || (got - want).abs() <= 1e-12 * want.abs().max(got.abs());
    assert!(ok, "{what}: borch {got:e}, torch {want:e}");
}
