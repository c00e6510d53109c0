//! Replays torchvision 0.29's seeded pipelines (`tests/vision/cases.json`): the same seed, input
//! and transform list give torchvision's drawn parameters exactly, its outputs within 1e-5, and
//! leave the generator where torchvision leaves it.

mod common;

use borch_tensor::{
    DType, Generator, HostData, Result, Tensor, default_generator, manual_seed, zeros,
};
use borch_vision::transforms::{
    CenterCrop, Compose, Normalize, PILToTensor, RandomCrop, RandomHorizontalFlip,
    RandomResizedCrop, RandomVerticalFlip, Resize, ToTensor, Transform,
};
use serde_json::Value;

fn usizes(v: &Value) -> Vec<usize> {
    match v {
        Value::Array(a) => a.iter().map(|x| x.as_u64().unwrap() as usize).collect(),
        x => vec![x.as_u64().unwrap() as usize],
    }
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn pair(v: &Value) -> (f64, f64) {
    let p = f64s(v);
    (p[0], p[1])
}

/// A fixture's keyword value as the binder's.
fn api_value(v: &Value) -> borch_tensor::api::Value {
    use borch_tensor::api::Value as V;
    match v {
        Value::Null => V::None,
        Value::Bool(b) => V::Bool(*b),
        Value::Number(n) => n
            .as_i64()
            .map_or_else(|| V::Float(n.as_f64().unwrap()), V::Int),
        Value::String(s) => V::Str(s.clone()),
        Value::Array(a) => V::List(a.iter().map(api_value).collect()),
        Value::Object(_) => V::Other("dict".into()),
    }
}

/// The same transform built through the catalog the bindings use (`build_transform` with
/// torchvision's keywords), shared into the pipeline.
fn build_by_name(name: &str, a: &Value) -> Box<dyn Transform> {
    let keywords = a
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), api_value(v)))
        .collect();
    let t = borch_vision::transforms::catalog::build_transform(name, vec![], keywords)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    borch_vision::transforms::catalog::shared(t)
}

fn build(name: &str, a: &Value) -> Box<dyn Transform> {
    let get = |k: &str| a.get(k).filter(|v| !v.is_null());
    match name {
        "Normalize" => Box::new(Normalize::new(&f64s(&a["mean"]), &f64s(&a["std"]))),
        "Resize" => {
            let mut t = Resize::new(&usizes(&a["size"]));
            if let Some(m) = get("max_size") {
                t = t.max_size(m.as_u64().unwrap() as usize);
            }
            Box::new(t.antialias(get("antialias").is_none_or(|v| v.as_bool().unwrap())))
        }
        "CenterCrop" => Box::new(CenterCrop::new(&usizes(&a["size"]))),
        "RandomCrop" => {
            let mut t = RandomCrop::new(&usizes(&a["size"]));
            if let Some(p) = get("padding") {
                t = t.padding(&usizes(p));
            }
            if let Some(f) = get("fill") {
                t = t.fill(f.as_f64().unwrap());
            }
            if let Some(m) = get("padding_mode") {
                t = t.padding_mode(m.as_str().unwrap());
            }
            Box::new(t.pad_if_needed(get("pad_if_needed").is_some_and(|v| v.as_bool().unwrap())))
        }
        "RandomHorizontalFlip" => Box::new(RandomHorizontalFlip::new(
            get("p").map_or(0.5, |v| v.as_f64().unwrap()),
        )),
        "RandomVerticalFlip" => Box::new(RandomVerticalFlip::new(
            get("p").map_or(0.5, |v| v.as_f64().unwrap()),
        )),
        "RandomResizedCrop" => {
            let mut t = RandomResizedCrop::new(&usizes(&a["size"]));
            if let Some(s) = get("scale") {
                t = t.scale(pair(s).0, pair(s).1);
            }
            if let Some(r) = get("ratio") {
                t = t.ratio(pair(r).0, pair(r).1);
            }
            Box::new(t.antialias(get("antialias").is_none_or(|v| v.as_bool().unwrap())))
        }
        other => panic!("unknown transform {other}"),
    }
}

/// The script's deterministic input: element i is ((i * 37) % 101) / 100.
fn image(shape: &[usize]) -> Result<Tensor> {
    let n: usize = shape.iter().product();
    let v = (0..n)
        .map(|i| (((i * 37) % 101) as f64 / 100.0) as f32)
        .collect();
    Tensor::from_host(&HostData::F32(v), shape)
}

/// The parameters each random transform will draw, replayed from a copy of the generator's
/// state through the public `get_params` (as the script records torchvision's).
fn replay_params(transforms: &[Value], shape: &[usize]) -> Result<Vec<Vec<i64>>> {
    let g: Generator = default_generator();
    let saved = g.get_state();
    let mut out = Vec::new();
    let (mut h, mut w) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    for t in transforms {
        let (name, a) = (t[0].as_str().unwrap(), &t[1]);
        match name {
            "RandomHorizontalFlip" | "RandomVerticalFlip" => {
                let p = a.get("p").map_or(0.5, |v| v.as_f64().unwrap());
                let u = borch_tensor::random::draws::uniform(0.0, 1.0, 1, None)?[0];
                out.push(vec![(u < p as f32) as i64]);
            }
            "RandomCrop" => {
                let size = usizes(&a["size"]);
                let (th, tw) = if size.len() == 1 {
                    (size[0], size[0])
                } else {
                    (size[0], size[1])
                };
                if let Some(p) = a.get("padding").filter(|v| !v.is_null()) {
                    let p = usizes(p);
                    let (l, t, r, b) = match p.len() {
                        1 => (p[0], p[0], p[0], p[0]),
                        2 => (p[0], p[1], p[0], p[1]),
                        _ => (p[0], p[1], p[2], p[3]),
                    };
                    (h, w) = (h + t + b, w + l + r);
                }
                if a.get("pad_if_needed").is_some_and(|v| v.as_bool().unwrap()) {
                    (h, w) = (
                        h.max(th) + th.saturating_sub(h),
                        w.max(tw) + tw.saturating_sub(w),
                    );
                }
                let dummy = zeros(&[1, h, w], DType::Float32)?;
                let p = RandomCrop::get_params(&dummy, [th, tw], None)?;
                out.push(p.iter().map(|&v| v as i64).collect());
                (h, w) = (th, tw);
            }
            "RandomResizedCrop" => {
                let scale = a.get("scale").map_or((0.08, 1.0), pair);
                let ratio = a.get("ratio").map_or((0.75, 4.0 / 3.0), pair);
                let dummy = zeros(&[1, h, w], DType::Float32)?;
                let p = RandomResizedCrop::get_params(&dummy, scale, ratio, None)?;
                out.push(p.iter().map(|&v| v as i64).collect());
                let size = usizes(&a["size"]);
                (h, w) = if size.len() == 1 {
                    (size[0], size[0])
                } else {
                    (size[0], size[1])
                };
            }
            _ => {}
        }
    }
    g.set_state(&saved);
    Ok(out)
}

#[test]
fn seeded_pipelines_match_torchvision() -> Result<()> {
    let (mut agreeing, mut total, mut worst) = (0, 0, 0f64);
    let mut failures = Vec::new();
    for case in common::cases().iter().filter(|c| c["kind"] == "pipeline") {
        total += 1;
        let shape = usizes(&case["shape"]);
        let transforms = case["transforms"].as_array().unwrap();
        manual_seed(case["seed"].as_u64().unwrap());
        let x = image(&shape)?;
        // Every other case builds through the catalog (borch-ts's and borch_webgpu's path).
        let by_name = total % 2 == 0;
        let pipeline = Compose::new(
            transforms
                .iter()
                .map(|t| {
                    let make = if by_name { build_by_name } else { build };
                    make(t[0].as_str().unwrap(), &t[1])
                })
                .collect(),
        );
        let label = format!(
            "seed {} {:?} {}",
            case["seed"],
            shape,
            serde_json::to_string(transforms).unwrap()
        );
        if let Some(want) = case["error"].as_str() {
            match pipeline.forward(&x) {
                Err(e) if common::py_error(&e) == want => agreeing += 1,
                other => failures.push(format!(
                    "{label}: want {want}, got {:?}",
                    other.map(|t| t.shape().to_vec())
                )),
            }
            continue;
        }
        let params = replay_params(transforms, &shape)?;
        let want_params: Vec<Vec<i64>> = case["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                p.as_array().unwrap()[1..]
                    .iter()
                    .map(|v| v.as_i64().unwrap())
                    .collect()
            })
            .collect();
        let y = match pipeline.forward(&x) {
            Ok(y) => y,
            Err(e) => {
                failures.push(format!("{label}: {e}"));
                continue;
            }
        };
        let after = borch_tensor::random::draws::randint(0, 1 << 30, 2, None)?;
        let want_after: Vec<i64> = case["after"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let values: Vec<f32> = y.contiguous()?.to_vec_blocking()?;
        let want: Vec<f64> = f64s(&case["values"]);
        let diff = want
            .iter()
            .zip(&values)
            .map(|(w, &v)| (w - v as f64).abs())
            .fold(0f64, f64::max);
        let sum: f64 = values.iter().map(|&v| v as f64).sum();
        let want_sum = case["sum"].as_f64().unwrap();
        worst = worst.max(diff);
        let ok = y.shape() == usizes(&case["out_shape"]).as_slice()
            && params == want_params
            && after == want_after
            && diff <= 1e-5
            && (sum - want_sum).abs() <= 1e-5 * values.len().max(1) as f64;
        if ok {
            agreeing += 1;
        } else {
            failures.push(format!(
                "{label}: shape {:?} params {params:?} (want {want_params:?}) after {after:?} (want {want_after:?}) max diff {diff:e} sum {sum} (want {want_sum})",
                y.shape()
            ));
        }
    }
    println!(
        "vision transform fixtures: {agreeing} agreeing / {total} cases, max |diff| {worst:e} ({})",
        common::adapter()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

#[test]
fn to_tensor_and_pil_to_tensor_match_torchvision() -> Result<()> {
    let mut n = 0;
    for case in common::cases().iter().filter(|c| c["kind"] == "to_tensor") {
        let hwc = usizes(&case["hwc"]);
        let bytes: Vec<u8> = usizes(&case["bytes"])
            .into_iter()
            .map(|b| b as u8)
            .collect();
        let t = ToTensor::new().call(&bytes, hwc[0], hwc[1], hwc[2])?;
        assert_eq!(t.shape(), usizes(&case["shape"]).as_slice());
        let got: Vec<f32> = t.to_vec_blocking()?;
        let want: Vec<f32> = f64s(&case["values"])
            .into_iter()
            .map(|v| v as f32)
            .collect();
        assert_eq!(got, want, "ToTensor exact");
        let p = PILToTensor::new().call(&bytes, hwc[0], hwc[1], hwc[2])?;
        assert_eq!(p.dtype(), DType::Int64);
        let got: Vec<i64> = p.to_vec_blocking()?;
        let want: Vec<i64> = usizes(&case["pil_values"])
            .into_iter()
            .map(|v| v as i64)
            .collect();
        assert_eq!(got, want);
        n += 1;
    }
    assert_eq!(n, 3);
    let err = ToTensor::new().call(&[0; 5], 2, 2, 1).unwrap_err();
    assert!(err.to_string().contains("expected 4 bytes"), "{err}");
    Ok(())
}

#[test]
fn refusals_are_clear() -> Result<()> {
    let x = image(&[3, 8, 8])?;
    let e = Resize::new(&[4])
        .interpolation("bicubic")
        .forward(&x)
        .unwrap_err();
    assert!(
        e.to_string().contains("antialias=True") && e.to_string().contains("antialias=False"),
        "{e}"
    );
    assert!(
        Resize::new(&[4])
            .interpolation("bicubic")
            .antialias(false)
            .forward(&x)
            .is_ok()
    );
    let e = Normalize::new(&[0.5], &[0.5])
        .forward(&x.to_dtype(DType::Int64)?)
        .unwrap_err();
    assert_eq!(
        common::py_error(&e),
        "TypeError: Input tensor should be a float tensor. Got torch.int64."
    );
    let e = RandomCrop::new(&[4])
        .padding(&[1])
        .padding_mode("wrap")
        .forward(&x)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Padding mode should be either constant, edge, reflect or symmetric"
    );
    let e = CenterCrop::new(&[1, 2, 3]).forward(&x).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Please provide only two dimensions (h, w) for size."
    );
    // in place: the input itself is normalised
    let y = image(&[3, 2, 2])?;
    let out = Normalize::new(&[0.5], &[0.25]).inplace(true).forward(&y)?;
    assert_eq!(y.to_vec_blocking::<f32>()?, out.to_vec_blocking::<f32>()?);
    // a given generator is used (and the default one left alone: other tests draw from it)
    let (g, h) = (Generator::with_seed(3), Generator::with_seed(3));
    let a = RandomCrop::new(&[5]).generator(g.clone()).forward(&x)?;
    let b = RandomCrop::new(&[5]).generator(h).forward(&x)?;
    assert_eq!(
        a.contiguous()?.to_vec_blocking::<f32>()?,
        b.contiguous()?.to_vec_blocking::<f32>()?
    );
    assert_ne!(
        g.get_state().to_torch_bytes(),
        Generator::with_seed(3).get_state().to_torch_bytes()
    );
    Ok(())
}
