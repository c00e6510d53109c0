//! timm's `vit_tiny_patch16_224` against tests/vision/vit_cases.json (written by
//! tests/vision/vit_cases.py from timm itself): after `manual_seed(0)` the state_dict keys and
//! shapes in timm's order, the printed form and every parameter's values (timm's init: torch's
//! default Linear/Conv2d init, then `trunc_normal_` and `normal_`); and with every state_dict
//! entry refilled by seeded `normal_` draws, the eval logits of a (2, 3, 224, 224) input within
//! 1e-4 of timm's.

use borch_autograd::no_grad;
use borch_tensor::{Result, default_device, manual_seed, randn};
use borch_vision::models::catalog::build_model;
use serde_json::Value as Json;

/// `manual_seed` sets the one default generator: the tests draw one at a time.
static SEEDED: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn fixture() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/vision/vit_cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json")
}

fn floats(j: &Json) -> Vec<f64> {
    j.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn adapter() -> Result<String> {
    Ok(default_device()?.adapter_info().short())
}

#[test]
fn vit_tiny_keys_repr_and_init_are_timms() -> Result<()> {
    let _one_at_a_time = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    let fixture = fixture();
    let case = &fixture["init"];
    manual_seed(0);
    let model = build_model("vit_tiny_patch16_224", vec![], vec![])?;
    let keys: Vec<(String, Vec<u64>)> = model
        .state_dict()
        .iter()
        .map(|(k, v)| (k.to_string(), v.shape().iter().map(|&d| d as u64).collect()))
        .collect();
    let want: Vec<(String, Vec<u64>)> = case["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .map(|k| {
            let shape = k[1].as_array().expect("shape");
            (
                k[0].as_str().expect("key").to_string(),
                shape.iter().map(|d| d.as_u64().expect("dim")).collect(),
            )
        })
        .collect();
    assert_eq!(keys, want, "state_dict keys and shapes");
    assert_eq!(
        model.repr(),
        case["repr"].as_str().expect("repr"),
        "printed form"
    );
    let (mut exact, mut worst) = (0usize, 0.0f64);
    for ((name, p), s) in model
        .named_parameters()
        .iter()
        .zip(case["stats"].as_array().unwrap())
    {
        assert_eq!(name, s["name"].as_str().unwrap(), "parameter order");
        let v = p.to_vec_blocking::<f32>()?;
        let first = floats(&s["first"]);
        // trunc_normal_'s erfinv uses erff/expf/logf: libm's may differ from glibc's by an ulp.
        for (i, (&got, &want)) in v.iter().zip(&first).enumerate() {
            let d = (f64::from(got) - want).abs();
            assert!(
                d <= 1e-6 * want.abs().max(1e-3),
                "{name}[{i}]: {got} vs timm {want}"
            );
        }
        exact += usize::from(v.iter().zip(&first).all(|(&g, &w)| f64::from(g) == w));
        let sum: f64 = v.iter().map(|&x| f64::from(x)).sum();
        let sumsq: f64 = v.iter().map(|&x| f64::from(x).powi(2)).sum();
        let (want_sum, want_sq) = (s["sum"].as_f64().unwrap(), s["sumsq"].as_f64().unwrap());
        let scale = want_sum.abs().max(want_sq.sqrt()).max(1e-30);
        let d_sum = (sum - want_sum).abs() / scale;
        let d_sq = if want_sq == 0.0 {
            sumsq
        } else {
            (sumsq - want_sq).abs() / want_sq
        };
        assert!(
            d_sum <= 1e-6 && d_sq <= 1e-6,
            "{name}: sum {sum} / {sumsq}, timm {want_sum} / {want_sq}"
        );
        worst = worst.max(d_sum).max(d_sq);
    }
    let n = want.len();
    println!(
        "vit_tiny_patch16_224 init: {n} keys in timm {}'s order, repr equal, first values of {exact}/{n} \
         parameters bit for bit (all within 1e-6 rel), sums within {worst:.1e} [{}]",
        fixture["timm"].as_str().unwrap_or("?"),
        adapter()?
    );
    Ok(())
}

#[test]
fn vit_tiny_logits_are_timms() -> Result<()> {
    let _one_at_a_time = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    let fixture = fixture();
    let case = &fixture["forward"];
    manual_seed(0);
    let mut model = build_model("vit_tiny_patch16_224", vec![], vec![])?;
    model.eval();
    manual_seed(case["seed"].as_u64().expect("seed"));
    no_grad(|| {
        for (k, v) in model.state_dict().iter() {
            let layer_norm_weight =
                k.ends_with("norm1.weight") || k.ends_with("norm2.weight") || k == "norm.weight";
            v.normal_(if layer_norm_weight { 1.0 } else { 0.0 }, 0.02, None)?;
        }
        Ok::<(), borch_tensor::BorchError>(())
    })?;
    let x = randn(&[2, 3, 224, 224], None)?;
    let x_sum: f64 = x
        .to_vec_blocking::<f32>()?
        .iter()
        .map(|&v| f64::from(v))
        .sum();
    let want_sum = case["input_sum"].as_f64().unwrap();
    assert!(
        (x_sum - want_sum).abs() <= 1e-6 * want_sum.abs().max(1.0),
        "input {x_sum} vs {want_sum}"
    );
    let logits = no_grad(|| model.forward(&x))?;
    assert_eq!(logits.shape(), &[2, 1000]);
    let got = logits.to_vec_blocking::<f32>()?;
    let want = floats(&case["logits"]);
    let worst = got
        .iter()
        .zip(&want)
        .map(|(&g, &w)| (f64::from(g) - w).abs())
        .fold(0.0, f64::max);
    println!(
        "vit_tiny_patch16_224 eval logits (2, 1000) within {worst:.2e} of timm's (bound 1e-4) [{}]",
        adapter()?
    );
    assert!(worst <= 1e-4, "logits differ from timm's by {worst}");
    Ok(())
}
