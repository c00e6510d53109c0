//! torchvision's ResNets after `manual_seed`, built through borch-vision's model catalog with the
//! same keyword arguments, against tests/vision/resnet_init.json (written by
//! tests/vision/resnet_cases.py from torchvision itself): state_dict keys in torchvision's order
//! with their shapes and dtypes, the printed form, and per parameter the first 8 values exactly and the sum and sum
//! of squares within 1e-6 relative.

use borch_tensor::api::Value;
use borch_tensor::{DType, Result, default_device, manual_seed};
use borch_vision::models::catalog::build_model;
use serde_json::Value as Json;

const RTOL: f64 = 1e-6;

/// `manual_seed` sets the one default generator: the tests draw one at a time.
static SEEDED: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn fixture() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/vision/resnet_init.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json")
}

/// A JSON keyword argument as a catalog value.
fn value(j: &Json) -> Value {
    match j {
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => Value::Int(n.as_i64().expect("int")),
        Json::Array(items) => Value::List(items.iter().map(value).collect()),
        Json::Null => Value::None,
        other => panic!("unexpected keyword value {other}"),
    }
}

/// Builds every fixture model whose name passes `select` and compares; returns the number of
/// parameters checked and the worst relative sum difference.
fn check(select: impl Fn(&str, &Json) -> bool) -> Result<(usize, f64)> {
    let _one_at_a_time = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    let fixture = fixture();
    let (mut checked, mut worst) = (0, 0.0f64);
    for case in fixture["models"].as_array().expect("models") {
        let name = case["model"].as_str().expect("model");
        if !select(name, &case["kwargs"]) {
            continue;
        }
        let kwargs: Vec<(String, Value)> = case["kwargs"]
            .as_object()
            .expect("kwargs")
            .iter()
            .map(|(k, v)| (k.clone(), value(v)))
            .collect();
        manual_seed(case["seed"].as_u64().expect("seed"));
        let model = build_model(name, vec![], kwargs)?;
        let what = format!("{name}({})", case["kwargs"]);
        let state = model.state_dict();
        let keys: Vec<(String, Vec<usize>, String)> = state
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    v.shape().to_vec(),
                    v.dtype().name().to_string(),
                )
            })
            .collect();
        let want: Vec<(String, Vec<usize>, String)> = case["keys"]
            .as_array()
            .expect("keys")
            .iter()
            .map(|k| {
                let shape = k[1].as_array().expect("shape");
                (
                    k[0].as_str().expect("key").to_string(),
                    shape.iter().map(|d| d.as_u64().unwrap() as usize).collect(),
                    k[2].as_str().expect("dtype").to_string(),
                )
            })
            .collect();
        assert_eq!(keys, want, "{what}: state_dict keys, shapes and dtypes");
        // torchvision's ReLU(inplace=True) is borch's ReLU() (no in-place form).
        let want_repr = case["repr"]
            .as_str()
            .expect("repr")
            .replace("ReLU(inplace=True)", "ReLU()");
        assert_eq!(model.repr(), want_repr, "{what}: printed form");
        let params = model.named_parameters();
        let stats = case["stats"].as_array().expect("stats");
        assert_eq!(params.len(), stats.len(), "{what}: parameters");
        for ((pname, p), s) in params.iter().zip(stats) {
            assert_eq!(
                pname,
                s["name"].as_str().unwrap(),
                "{what}: parameter order"
            );
            let v = p.to_dtype(DType::Float32)?.to_vec_blocking::<f32>()?;
            let first: Vec<f32> = s["first"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            assert_eq!(
                &v[..first.len()],
                &first[..],
                "{what}: {pname} first values"
            );
            let sum: f64 = v.iter().map(|&x| f64::from(x)).sum();
            let sumsq: f64 = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
            let (want_sum, want_sq) = (s["sum"].as_f64().unwrap(), s["sumsq"].as_f64().unwrap());
            // A sum near 0 is judged against the values' scale (sqrt of the sum of squares).
            let scale = want_sum.abs().max(want_sq.sqrt()).max(1e-30);
            let d_sum = (sum - want_sum).abs() / scale;
            let d_sq = (sumsq - want_sq).abs() / want_sq.max(1e-30);
            assert!(
                d_sum <= RTOL && (want_sq == 0.0 && sumsq == 0.0 || d_sq <= RTOL),
                "{what}: {pname} sum {sum} / sumsq {sumsq}, torchvision {want_sum} / {want_sq}"
            );
            worst = worst
                .max(d_sum)
                .max(if want_sq == 0.0 { 0.0 } else { d_sq });
            checked += 1;
        }
    }
    Ok((checked, worst))
}

fn report(label: &str, (checked, worst): (usize, f64)) -> Result<()> {
    let adapter = default_device()?.adapter_info().short();
    println!(
        "{label}: {checked} parameters equal torchvision's init (first values exact, sums within \
         {worst:.2e}) [{adapter}]"
    );
    assert!(checked > 0, "no fixture case selected");
    Ok(())
}

#[test]
fn resnet18_and_cifar_resnet18_init_is_torchvisions() -> Result<()> {
    let r = check(|name, _| name == "resnet18" || name == "cifar_resnet18")?;
    report("resnet18 + cifar_resnet18 init", r)
}

/// ResNet-34 and ResNet-50 (also grouped and dilated): 25M-parameter models, a few seconds each.
#[test]
fn resnet34_and_resnet50_init_is_torchvisions() -> Result<()> {
    let r = check(|name, _| name == "resnet34" || name == "resnet50")?;
    report("resnet34 + resnet50 init", r)
}
