//! Shared by the tests that replay `tests/nn/cases.json` (frozen from real torch by
//! `tests/nn/cases.py`): reading tensors, building modules from their specs, comparing.

#![allow(dead_code)]

use borch_nn::*;
use borch_tensor::{DType, HostData, Padding, Tensor};
use serde_json::Value as Json;

pub const ATOL: f64 = 1e-4;
pub const RTOL: f64 = 1e-4;

/// The frozen cases.
pub fn cases() -> Json {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/nn/cases.json");
    let text = std::fs::read_to_string(path).expect("tests/nn/cases.json (run tests/nn/cases.py)");
    serde_json::from_str(&text).expect("cases.json parses")
}

fn number(x: &Json) -> f64 {
    match x {
        Json::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => panic!("not a number: {other}"),
        },
        _ => x.as_f64().expect("number"),
    }
}

pub fn shape(j: &Json) -> Vec<usize> {
    j.as_array()
        .expect("shape")
        .iter()
        .map(|x| x.as_u64().expect("dim") as usize)
        .collect()
}

/// The values of a frozen tensor, as f64.
pub fn values(j: &Json) -> Vec<f64> {
    j["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(number)
        .collect()
}

/// A frozen tensor.
pub fn tensor(j: &Json) -> Tensor {
    let s = shape(&j["shape"]);
    let v = values(j);
    let host = match j["dtype"].as_str().expect("dtype") {
        "float32" => HostData::F32(v.iter().map(|&x| x as f32).collect()),
        "int64" => HostData::I64(v.iter().map(|&x| x as i64).collect()),
        "bool" => HostData::Bool(v.iter().map(|&x| x != 0.0).collect()),
        other => panic!("dtype {other}"),
    };
    Tensor::from_host(&host, &s).expect("tensor")
}

/// A state dict frozen as `[[name, tensor], …]`.
pub fn state_dict(j: &Json) -> StateDict {
    j.as_array()
        .expect("state dict")
        .iter()
        .map(|e| (e[0].as_str().expect("key").to_string(), tensor(&e[1])))
        .collect()
}

/// The largest violation of `|a - e| <= atol + rtol |e|` (NaN and infinities must match), or
/// `None` when every element agrees.
pub fn mismatch(actual: &[f64], expected: &[f64]) -> Option<String> {
    if actual.len() != expected.len() {
        return Some(format!(
            "{} values, expected {}",
            actual.len(),
            expected.len()
        ));
    }
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let ok = if e.is_nan() {
            a.is_nan()
        } else if e.is_infinite() {
            a == e
        } else {
            (a - e).abs() <= ATOL + RTOL * e.abs()
        };
        if !ok {
            return Some(format!("element {i}: got {a}, expected {e}"));
        }
    }
    None
}

/// Compare a tensor with a frozen one (shape and values).
pub fn compare(what: &str, actual: &Tensor, expected: &Json) -> Option<String> {
    let s = shape(&expected["shape"]);
    if actual.shape() != s.as_slice() {
        return Some(format!(
            "{what}: shape {:?}, expected {s:?}",
            actual.shape()
        ));
    }
    let host = actual.to_host_blocking().expect("readback");
    mismatch(&host.to_f64(), &values(expected)).map(|m| format!("{what}: {m}"))
}

pub fn dtype_of(t: &Tensor) -> DType {
    t.dtype()
}

fn arg<'a>(spec: &'a Json, i: usize, name: &str) -> Option<&'a Json> {
    spec["args"]
        .as_array()
        .and_then(|a| a.get(i))
        .or_else(|| spec["kwargs"].get(name))
}

fn usize_arg(spec: &Json, i: usize, name: &str) -> usize {
    arg(spec, i, name).and_then(Json::as_u64).expect(name) as usize
}

fn f64_or(spec: &Json, i: usize, name: &str, default: f64) -> f64 {
    arg(spec, i, name).and_then(Json::as_f64).unwrap_or(default)
}

fn bool_or(spec: &Json, i: usize, name: &str, default: bool) -> bool {
    arg(spec, i, name)
        .and_then(Json::as_bool)
        .unwrap_or(default)
}

fn int_opt(spec: &Json, i: usize, name: &str) -> Option<i64> {
    arg(spec, i, name).and_then(Json::as_i64)
}

fn dims(j: &Json) -> Vec<usize> {
    match j {
        Json::Array(a) => a
            .iter()
            .map(|x| x.as_u64().expect("dim") as usize)
            .collect(),
        x => vec![x.as_u64().expect("dim") as usize],
    }
}

fn reduction(spec: &Json) -> Reduction {
    spec["kwargs"]
        .get("reduction")
        .and_then(Json::as_str)
        .unwrap_or("mean")
        .parse()
        .expect("reduction")
}

fn tensor_kw(spec: &Json, name: &str) -> Option<Tensor> {
    spec["kwargs"].get(name).map(tensor)
}

fn children(spec: &Json) -> Vec<(Option<String>, Box<dyn Module>)> {
    spec["children"]
        .as_array()
        .expect("children")
        .iter()
        .map(|c| match c {
            Json::Array(pair) => (
                Some(pair[0].as_str().expect("name").to_string()),
                build(&pair[1]),
            ),
            s => (None, build(s)),
        })
        .collect()
}

/// The module a spec describes, built as torch builds it (drawing its default initialisation).
pub fn build(spec: &Json) -> Box<dyn Module> {
    let kind = spec["type"].as_str().expect("type");
    let b: Box<dyn Module> = match kind {
        "Sequential" => {
            let kids = children(spec);
            if kids.iter().any(|(n, _)| n.is_some()) {
                Box::new(Sequential::from_named(
                    kids.into_iter().map(|(n, m)| (n.unwrap(), m)).collect(),
                ))
            } else {
                Box::new(Sequential::new(kids.into_iter().map(|(_, m)| m).collect()))
            }
        }
        "ModuleList" => Box::new(ModuleList::new(
            children(spec).into_iter().map(|(_, m)| m).collect(),
        )),
        "ModuleDict" => Box::new(ModuleDict::new(
            children(spec)
                .into_iter()
                .map(|(n, m)| (n.expect("name"), m))
                .collect(),
        )),
        "Linear" => Box::new(
            Linear::with_bias(
                usize_arg(spec, 0, "in_features"),
                usize_arg(spec, 1, "out_features"),
                bool_or(spec, 2, "bias", true),
            )
            .unwrap(),
        ),
        "Bilinear" => Box::new(
            Bilinear::with_bias(
                usize_arg(spec, 0, "in1_features"),
                usize_arg(spec, 1, "in2_features"),
                usize_arg(spec, 2, "out_features"),
                bool_or(spec, 3, "bias", true),
            )
            .unwrap(),
        ),
        "Identity" => Box::new(Identity::new()),
        "Flatten" => Box::new(Flatten::with_dims(
            int_opt(spec, 0, "start_dim").unwrap_or(1) as isize,
            int_opt(spec, 1, "end_dim").unwrap_or(-1) as isize,
        )),
        "Unflatten" => {
            let sizes: Vec<isize> = arg(spec, 1, "unflattened_size")
                .and_then(Json::as_array)
                .expect("sizes")
                .iter()
                .map(|x| x.as_i64().expect("size") as isize)
                .collect();
            Box::new(Unflatten::new(
                int_opt(spec, 0, "dim").expect("dim") as isize,
                &sizes,
            ))
        }
        "Embedding" => Box::new(
            Embedding::with_padding_idx(
                usize_arg(spec, 0, "num_embeddings"),
                usize_arg(spec, 1, "embedding_dim"),
                int_opt(spec, 2, "padding_idx"),
            )
            .unwrap(),
        ),
        "LayerNorm" => Box::new(
            LayerNorm::with_options(
                &dims(arg(spec, 0, "normalized_shape").expect("shape")),
                f64_or(spec, 1, "eps", 1e-5),
                bool_or(spec, 2, "elementwise_affine", true),
                bool_or(spec, 3, "bias", true),
            )
            .unwrap(),
        ),
        "RMSNorm" => Box::new(
            RMSNorm::with_options(
                &dims(arg(spec, 0, "normalized_shape").expect("shape")),
                arg(spec, 1, "eps").and_then(Json::as_f64),
                bool_or(spec, 2, "elementwise_affine", true),
            )
            .unwrap(),
        ),
        "Conv1d" | "Conv2d" => {
            let padding = match arg(spec, 4, "padding") {
                Some(Json::String(s)) => s.parse().unwrap(),
                Some(p) => Padding::Sizes(dims(p).into_iter().map(|x| x as isize).collect()),
                None => Padding::Sizes(vec![0]),
            };
            let options = ConvOptions::default()
                .stride(&arg(spec, 3, "stride").map_or(vec![1], dims))
                .padding(padding)
                .dilation(&arg(spec, 5, "dilation").map_or(vec![1], dims))
                .groups(arg(spec, 6, "groups").and_then(Json::as_u64).unwrap_or(1) as usize)
                .bias(bool_or(spec, 7, "bias", true));
            let (i, o) = (
                usize_arg(spec, 0, "in_channels"),
                usize_arg(spec, 1, "out_channels"),
            );
            let k = dims(arg(spec, 2, "kernel_size").expect("kernel_size"));
            if kind == "Conv1d" {
                Box::new(Conv1d::with_options(i, o, &k, options).unwrap())
            } else {
                Box::new(Conv2d::with_options(i, o, &k, options).unwrap())
            }
        }
        "MaxPool2d" => {
            let k = dims(arg(spec, 0, "kernel_size").expect("kernel_size"));
            let mut m = MaxPool2d::new(&k)
                .padding(&arg(spec, 2, "padding").map_or(vec![0], dims))
                .dilation(&arg(spec, 3, "dilation").map_or(vec![1], dims))
                .ceil_mode(bool_or(spec, 5, "ceil_mode", false));
            if let Some(s) = arg(spec, 1, "stride").filter(|s| !s.is_null()) {
                m = m.stride(&dims(s));
            }
            Box::new(m)
        }
        "AvgPool2d" => {
            let k = dims(arg(spec, 0, "kernel_size").expect("kernel_size"));
            let mut m = AvgPool2d::new(&k)
                .padding(&arg(spec, 2, "padding").map_or(vec![0], dims))
                .ceil_mode(bool_or(spec, 3, "ceil_mode", false))
                .count_include_pad(bool_or(spec, 4, "count_include_pad", true))
                .divisor_override(int_opt(spec, 5, "divisor_override").map(|d| d as isize));
            if let Some(s) = arg(spec, 1, "stride").filter(|s| !s.is_null()) {
                m = m.stride(&dims(s));
            }
            Box::new(m)
        }
        "AdaptiveAvgPool2d" => {
            let size = match arg(spec, 0, "output_size").expect("output_size") {
                Json::Array(a) => a.iter().map(|x| x.as_u64().map(|v| v as usize)).collect(),
                x => vec![x.as_u64().map(|v| v as usize)],
            };
            Box::new(AdaptiveAvgPool2d::new(&size))
        }
        "Dropout" => Box::new(Dropout::new(f64_or(spec, 0, "p", 0.5)).unwrap()),
        "ReLU" => Box::new(ReLU::new()),
        "ReLU6" => Box::new(ReLU6::new()),
        "SELU" => Box::new(SELU::new()),
        "SiLU" => Box::new(SiLU::new()),
        "Mish" => Box::new(Mish::new()),
        "Tanh" => Box::new(Tanh::new()),
        "Sigmoid" => Box::new(Sigmoid::new()),
        "Hardswish" => Box::new(Hardswish::new()),
        "LeakyReLU" => Box::new(LeakyReLU::new(f64_or(spec, 0, "negative_slope", 0.01))),
        "ELU" => Box::new(ELU::new(f64_or(spec, 0, "alpha", 1.0))),
        "GELU" => Box::new(GELU::new(
            arg(spec, 0, "approximate")
                .and_then(Json::as_str)
                .unwrap_or("none"),
        )),
        "Hardtanh" => Box::new(Hardtanh::new(
            f64_or(spec, 0, "min_val", -1.0),
            f64_or(spec, 1, "max_val", 1.0),
        )),
        "Softplus" => Box::new(Softplus::new(
            f64_or(spec, 0, "beta", 1.0),
            f64_or(spec, 1, "threshold", 20.0),
        )),
        "Softmax" => Box::new(Softmax::new(int_opt(spec, 0, "dim").map(|d| d as isize))),
        "LogSoftmax" => Box::new(LogSoftmax::new(int_opt(spec, 0, "dim").map(|d| d as isize))),
        "MSELoss" => Box::new(MSELoss::new().reduction(reduction(spec))),
        "L1Loss" => Box::new(L1Loss::new().reduction(reduction(spec))),
        "SmoothL1Loss" => Box::new(
            SmoothL1Loss::new()
                .reduction(reduction(spec))
                .beta(f64_or(spec, 99, "beta", 1.0)),
        ),
        "HuberLoss" => Box::new(
            HuberLoss::new()
                .reduction(reduction(spec))
                .delta(f64_or(spec, 99, "delta", 1.0)),
        ),
        "BCELoss" => {
            let mut l = BCELoss::new().reduction(reduction(spec));
            l.weight = tensor_kw(spec, "weight");
            Box::new(l)
        }
        "BCEWithLogitsLoss" => {
            let mut l = BCEWithLogitsLoss::new().reduction(reduction(spec));
            l.weight = tensor_kw(spec, "weight");
            l.pos_weight = tensor_kw(spec, "pos_weight");
            Box::new(l)
        }
        "CrossEntropyLoss" => {
            let mut l = CrossEntropyLoss::new()
                .reduction(reduction(spec))
                .ignore_index(int_opt(spec, 99, "ignore_index").unwrap_or(-100))
                .label_smoothing(f64_or(spec, 99, "label_smoothing", 0.0));
            l.weight = tensor_kw(spec, "weight");
            Box::new(l)
        }
        "NLLLoss" => {
            let mut l = NLLLoss::new()
                .reduction(reduction(spec))
                .ignore_index(int_opt(spec, 99, "ignore_index").unwrap_or(-100));
            l.weight = tensor_kw(spec, "weight");
            Box::new(l)
        }
        "KLDivLoss" => Box::new(
            KLDivLoss::new()
                .reduction(reduction(spec))
                .log_target(bool_or(spec, 99, "log_target", false)),
        ),
        other => panic!("no builder for {other}"),
    };
    b
}

static RNG: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Tests draw from the process-wide generator after `manual_seed`; holding this keeps tests of
/// one binary (which run in parallel threads) from drawing in between.
pub fn rng_lock() -> std::sync::MutexGuard<'static, ()> {
    RNG.lock().unwrap_or_else(|p| p.into_inner())
}
