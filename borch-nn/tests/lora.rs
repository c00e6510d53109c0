//! loralib's `lora.Linear`, `lora.Conv2d`, `mark_only_lora_as_trainable` and `lora_state_dict` against
//! tests/nn/lora_cases.json (written by tests/nn/lora_cases.py from loralib 0.1.2 and torch):
//! the init after `manual_seed` bit for bit, the training forward and the gradients of lora_A,
//! lora_B and the input, the frozen weight, eval's merged weight and output, train's unmerged
//! weight; and borch's `apply_lora` on a Sequential.

use borch_autograd::{Backward, no_grad};
use borch_nn::utils::lora::{LoraBias, apply_lora, lora_state_dict, mark_only_lora_as_trainable};
use borch_nn::{ConvOptions, Linear, LoRAConv2d, LoRALinear, Module, ReLU, Sequential};
use borch_tensor::{Padding, Result, Tensor, default_device, manual_seed};
use serde_json::Value as Json;

mod lora_fixture;
use lora_fixture::{close, fixture, floats, shape};

static SEEDED: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn replay(
    what: &str,
    c: &Json,
    m: &mut dyn Module,
    a: &Tensor,
    b: &Tensor,
    weight: &Tensor,
) -> Result<f32> {
    assert_eq!(m.repr(), c["repr"].as_str().unwrap(), "{what}: repr");
    let state = m.state_dict();
    let init = c["init"].as_array().unwrap();
    assert_eq!(state.len(), init.len(), "{what}: state_dict entries");
    for ((k, v), e) in state.iter().zip(init) {
        assert_eq!(k, e[0].as_str().unwrap(), "{what}: key order");
        assert_eq!(v.shape(), shape(&e[1]).as_slice(), "{what}: {k} shape");
        assert_eq!(
            v.to_vec_blocking::<f32>()?,
            floats(&e[2]),
            "{what}: {k} init values"
        );
    }
    for (name, p) in m.named_parameters() {
        let want = c["requires_grad"][&name].as_bool().unwrap();
        assert_eq!(p.requires_grad(), want, "{what}: {name}.requires_grad");
    }
    no_grad(|| b.copy_(&Tensor::from_slice(&floats(&c["lora_B"]), b.shape())?))?;
    let x = Tensor::from_slice(&floats(&c["input"]), &shape(&c["x"]))?;
    x.set_requires_grad(true)?;
    let y = m.forward(&x)?;
    let mut worst = close(&format!("{what}: output"), &y, &c["output"], 1e-5)?;
    let g = Tensor::from_slice(&floats(&c["grad_output"]), y.shape())?;
    y.mul(&g)?.sum(None, false)?.backward()?;
    for (name, t) in [("grad_lora_A", a), ("grad_lora_B", b)] {
        let grad = t.grad().expect("adapter gradient");
        worst = worst.max(close(&format!("{what}: {name}"), &grad, &c[name], 1e-5)?);
    }
    let gx = x.grad().expect("input gradient");
    worst = worst.max(close(
        &format!("{what}: grad_input"),
        &gx,
        &c["grad_input"],
        1e-5,
    )?);
    assert!(
        weight.grad().is_none(),
        "{what}: the frozen weight has no gradient"
    );
    m.eval();
    worst = worst.max(close(
        &format!("{what}: merged"),
        weight,
        &c["merged_weight"],
        1e-6,
    )?);
    let y_eval = no_grad(|| m.forward(&x))?;
    worst = worst.max(close(
        &format!("{what}: eval output"),
        &y_eval,
        &c["eval_output"],
        1e-5,
    )?);
    m.train(true);
    Ok(worst.max(close(
        &format!("{what}: unmerged"),
        weight,
        &c["unmerged_weight"],
        1e-6,
    )?))
}

fn report(fixture: &Json, class: &str, cases: usize, worst: f32) -> Result<()> {
    println!(
        "lora[{}]: {cases} {class} cases equal loralib's (init bit for bit; forward, gradients, \
         merge within {worst:.1e}) [{}]",
        fixture["loralib"].as_str().unwrap_or("?"),
        default_device()?.adapter_info().short()
    );
    Ok(())
}

#[test]
fn lora_linear_is_loralibs() -> Result<()> {
    let _one = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    let fixture = fixture();
    let cases = fixture["cases"].as_array().expect("cases");
    let mut worst = 0.0f32;
    for c in cases {
        let u = |k: &str| c[k].as_u64().unwrap() as usize;
        manual_seed(c["seed"].as_u64().unwrap());
        let alpha = c["alpha"].as_f64().unwrap();
        let bias = c["bias"].as_bool().unwrap();
        let mut m = LoRALinear::new(u("in"), u("out"), u("r"), alpha, 0.0, true, bias)?;
        let what = format!("lora.Linear({}, {}, r={})", u("in"), u("out"), u("r"));
        let (a, b, w) = (
            m.lora_a.clone().unwrap(),
            m.lora_b.clone().unwrap(),
            m.weight.clone(),
        );
        worst = worst.max(replay(&what, c, &mut m, &a, &b, &w)?);
    }
    report(&fixture, "lora.Linear", cases.len(), worst)
}

#[test]
fn lora_conv2d_is_loralibs() -> Result<()> {
    let _one = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    let fixture = fixture();
    let cases = fixture["conv_cases"].as_array().expect("conv cases");
    let mut worst = 0.0f32;
    for c in cases {
        let u = |k: &str| c[k].as_u64().unwrap() as usize;
        manual_seed(c["seed"].as_u64().unwrap());
        let options = ConvOptions::default()
            .stride(&[u("stride")])
            .padding(Padding::Sizes(vec![u("padding") as isize]));
        let alpha = c["alpha"].as_f64().unwrap();
        let mut m = LoRAConv2d::new(u("in"), u("out"), u("k"), u("r"), alpha, true, options)?;
        let what = format!(
            "lora.Conv2d({}, {}, {}, r={})",
            u("in"),
            u("out"),
            u("k"),
            u("r")
        );
        let (a, b, w) = (
            m.lora_a.clone().unwrap(),
            m.lora_b.clone().unwrap(),
            m.conv.weight.clone(),
        );
        worst = worst.max(replay(&what, c, &mut m, &a, &b, &w)?);
    }
    report(&fixture, "lora.Conv2d", cases.len(), worst)
}

#[test]
fn trainable_and_state_dict_follow_loralib() -> Result<()> {
    let _one = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    let fixture = fixture();
    manual_seed(7);
    let layers: Vec<Box<dyn Module>> = vec![
        Box::new(LoRALinear::new(4, 6, 2, 2.0, 0.0, true, true)?),
        Box::new(ReLU::new()),
        Box::new(Linear::new(6, 3)?),
    ];
    let m = Sequential::new(layers);
    for (mode, bias) in [
        ("none", LoraBias::None),
        ("all", LoraBias::All),
        ("lora_only", LoraBias::LoraOnly),
    ] {
        for p in m.parameters() {
            p.set_requires_grad(true)?;
        }
        mark_only_lora_as_trainable(&m, bias)?;
        let trainable: Vec<String> = m
            .named_parameters()
            .into_iter()
            .filter(|(_, p)| p.requires_grad())
            .map(|(n, _)| n)
            .collect();
        let want = &fixture["model"][mode];
        let names = |j: &Json| -> Vec<String> {
            j.as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(
            trainable,
            names(&want["trainable"]),
            "bias={mode}: trainable"
        );
        let keys: Vec<String> = lora_state_dict(&m, bias)
            .keys()
            .iter()
            .map(|k| k.to_string())
            .collect();
        assert_eq!(
            keys,
            names(&want["lora_state_dict"]),
            "bias={mode}: lora_state_dict"
        );
    }
    Ok(())
}

#[test]
fn apply_lora_adapts_named_linears_and_keeps_the_output() -> Result<()> {
    let _one = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    manual_seed(3);
    let inner: Vec<Box<dyn Module>> = vec![Box::new(Linear::new(5, 5)?), Box::new(ReLU::new())];
    let layers: Vec<Box<dyn Module>> = vec![
        Box::new(Linear::new(4, 5)?),
        Box::new(Sequential::new(inner)),
        Box::new(Linear::new(5, 2)?),
    ];
    let mut m = Sequential::new(layers);
    let x = borch_tensor::randn(&[3, 4], None)?;
    let before = no_grad(|| m.forward(&x))?.to_vec_blocking::<f32>()?;
    let adapted = apply_lora(&mut m, 2, 4.0, &["0", "2"])?;
    assert_eq!(adapted, ["0", "2", "1.0"]);
    let keys = m
        .state_dict()
        .keys()
        .iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>();
    assert!(keys.contains(&"1.0.lora_A".to_string()) && keys.contains(&"2.lora_B".to_string()));
    // lora_B starts at zero: the adapted model computes what the base did.
    let after = no_grad(|| m.forward(&x))?.to_vec_blocking::<f32>()?;
    assert_eq!(before, after);
    let e = apply_lora(&mut m, 2, 4.0, &["fc"]).unwrap_err();
    assert!(e.to_string().contains("not found in the base model"), "{e}");
    let e = apply_lora(&mut m, 0, 4.0, &["0"]).unwrap_err();
    assert!(e.to_string().contains("r must be a positive int"), "{e}");
    Ok(())
}
