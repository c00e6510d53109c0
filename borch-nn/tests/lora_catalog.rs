//! LoRA and activation checkpointing as the bindings reach them (borch-ts, borch_webgpu), against
//! tests/nn/lora_cases.json (tests/nn/lora_cases.py, loralib 0.1.2 and torch): `nn.LoRALinear`
//! built by the module catalog after `manual_seed` has loralib's init; loralib's arguments borch
//! does not take are refused; the "training" case through the `nn.utils.lora` catalog
//! (apply_lora, mark_only_lora_as_trainable, four SGD steps, lora_state_dict, eval's merge,
//! merge_lora / unmerge_lora); the "checkpoint" case through `checkpoint_with_options` (the
//! captured weights found from the graph) equal to torch's gradients.

use borch_autograd::{Backward, checkpoint_with_options, no_grad};
use borch_nn::api::module_functions::{Output, call_in_place, call_reading, find};
use borch_nn::api::modules::build_module;
use borch_nn::functional as F;
use borch_nn::utils::lora_catalog::{MODULE, functions};
use borch_nn::{Module, StateDict};
use borch_tensor::api::Value;
use borch_tensor::{BorchError, Result, Tensor, default_device, manual_seed};
use serde_json::Value as Json;

mod lora_fixture;
use lora_fixture::{close, fixture, floats, shape};

/// Held by every test of this binary: they share the process's generator.
static SEEDED: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `{name: [shape, values]}` as a state dict.
fn state(j: &Json) -> Result<StateDict> {
    let mut sd = StateDict::new();
    for (k, v) in j.as_object().expect("state") {
        sd.insert(k, Tensor::from_slice(&floats(&v[1]), &shape(&v[0]))?);
    }
    Ok(sd)
}

fn str_list(names: &[&str]) -> Value {
    Value::List(names.iter().map(|n| Value::Str(n.to_string())).collect())
}

fn module(
    name: &str,
    positional: Vec<Value>,
    keywords: &[(&str, Value)],
) -> Result<Box<dyn Module>> {
    let kw = keywords
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    build_module(name, positional, kw)
}

#[test]
fn catalog_classes_are_loralibs_and_refuse_what_borch_lacks() -> Result<()> {
    let _one = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    let c = &fixture()["cases"][0];
    manual_seed(c["seed"].as_u64().unwrap());
    let int = |k: &str| Value::Int(c[k].as_i64().unwrap());
    let m = module(
        "LoRALinear",
        vec![int("in"), int("out")],
        &[
            ("r", int("r")),
            ("lora_alpha", int("alpha")),
            ("bias", Value::Bool(true)),
        ],
    )?;
    assert_eq!(m.repr(), c["repr"].as_str().unwrap());
    for ((k, v), e) in m.state_dict().iter().zip(c["init"].as_array().unwrap()) {
        assert_eq!(k, e[0].as_str().unwrap());
        assert_eq!(v.to_vec_blocking::<f32>()?, floats(&e[2]), "{k} init");
    }
    let refused = |name: &str, kw: &[(&str, Value)], needle: &str| {
        let mut sizes = vec![Value::Int(3), Value::Int(4), Value::Int(3)];
        sizes.truncate(if name == "LoRALinear" { 2 } else { 3 });
        let e = module(name, sizes, kw).err();
        let e = e.expect("refused");
        assert!(matches!(e, BorchError::NotImplemented(_)), "{e}");
        assert!(e.to_string().contains(needle), "{e}");
    };
    let r2 = ("r", Value::Int(2));
    refused(
        "LoRALinear",
        &[r2.clone(), ("fan_in_fan_out", Value::Bool(true))],
        "fan_in_fan_out",
    );
    refused(
        "LoRAConv2d",
        &[r2.clone(), ("lora_dropout", Value::Float(0.1))],
        "lora_dropout",
    );
    refused(
        "LoRALinear",
        &[r2, ("dtype", Value::Str("int64".into()))],
        "float32",
    );
    let conv = module(
        "LoRAConv2d",
        vec![Value::Int(3), Value::Int(4), Value::Int(3)],
        &[("r", Value::Int(2)), ("padding", Value::Int(1))],
    )?;
    assert_eq!(
        conv.state_dict().keys(),
        ["lora_A", "lora_B", "conv.weight", "conv.bias"]
    );
    // loralib's default r=0: the plain convolution in the wrapper, its init and output.
    let c0 = &fixture()["conv_r0"];
    manual_seed(c0["seed"].as_u64().unwrap());
    let plain = module(
        "LoRAConv2d",
        vec![Value::Int(2), Value::Int(3), Value::Int(3)],
        &[("padding", Value::Int(1))],
    )?;
    for ((k, v), e) in plain
        .state_dict()
        .iter()
        .zip(c0["init"].as_array().unwrap())
    {
        assert_eq!(k, e[0].as_str().unwrap());
        assert_eq!(v.to_vec_blocking::<f32>()?, floats(&e[2]), "r=0 {k} init");
    }
    for (n, p) in plain.named_parameters() {
        assert_eq!(
            p.requires_grad(),
            c0["requires_grad"][&n].as_bool().unwrap(),
            "{n}"
        );
    }
    let x0 = Tensor::from_slice(&floats(&c0["input"]), &shape(&c0["x"]))?;
    close("r=0 output", &plain.forward(&x0)?, &c0["output"], 1e-5)?;
    Ok(())
}

fn call(
    model: &mut dyn Module,
    name: &str,
    positional: Vec<Value>,
    kw: Vec<(&str, Value)>,
) -> Result<Output> {
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    call_in_place(
        find(functions(), MODULE, name)?,
        Some(model),
        positional,
        kw,
    )
}

fn names(o: Output) -> Vec<String> {
    match o {
        Output::Value(Value::List(v)) => v
            .into_iter()
            .map(|s| match s {
                Value::Str(s) => s,
                _ => panic!("a name"),
            })
            .collect(),
        _ => panic!("a list"),
    }
}

#[test]
fn training_through_the_lora_catalog_is_loralibs() -> Result<()> {
    let _one = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    let t = &fixture()["training"];
    let int = Value::Int;
    let mut m: Box<dyn Module> = Box::new(borch_nn::Sequential::new(vec![
        module("Linear", vec![int(4), int(6)], &[])?,
        module("ReLU", vec![], &[])?,
        module("Linear", vec![int(6), int(3)], &[])?,
    ]));
    m.load_state_dict(&state(&t["base"])?, true)?;
    let adapted = call(
        m.as_mut(),
        "apply_lora",
        vec![int(2)],
        vec![
            ("lora_alpha", int(4)),
            ("target_modules", str_list(&["0", "2"])),
        ],
    )?;
    assert_eq!(names(adapted), ["0", "2"]);
    m.load_state_dict(&state(&t["adapter"])?, false)?;
    call(m.as_mut(), "mark_only_lora_as_trainable", vec![], vec![])?;
    let trainable: Vec<String> = m
        .named_parameters()
        .into_iter()
        .filter(|(_, p)| p.requires_grad())
        .map(|(n, _)| n)
        .collect();
    let want: Vec<&str> = t["trainable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(trainable, want);
    let x = Tensor::from_slice(&floats(&t["x"]), &[5, 4])?;
    let y = Tensor::from_slice(&floats(&t["y"]), &[5, 3])?;
    let lr = t["lr"].as_f64().unwrap();
    let mut worst = 0.0f32;
    for (step, want) in t["losses"].as_array().unwrap().iter().enumerate() {
        let params: Vec<Tensor> = m
            .parameters()
            .into_iter()
            .filter(Tensor::requires_grad)
            .collect();
        for p in &params {
            p.set_grad(None);
        }
        let loss = F::mse_loss(&m.forward(&x)?, &y, borch_nn::Reduction::Mean)?;
        loss.backward()?;
        let got = loss.to_vec_blocking::<f32>()?[0];
        let diff = (got - want.as_f64().unwrap() as f32).abs();
        assert!(diff <= 1e-5, "step {step}: loss {got} vs {want}");
        worst = worst.max(diff);
        no_grad(|| {
            params
                .iter()
                .try_for_each(|p| p.sub_(p.grad().expect("grad"), lr).map(|_| ()))
        })?;
    }
    let read = call_reading(
        find(functions(), MODULE, "lora_state_dict")?,
        &[Some(m.as_ref())],
        vec![],
        vec![],
    )?;
    let Output::StateDict(sd) = read else {
        panic!("a state dict")
    };
    let want = t["lora_state_dict"].as_object().unwrap();
    assert_eq!(
        sd.keys(),
        want.keys().map(String::as_str).collect::<Vec<_>>()
    );
    for (k, v) in sd.iter() {
        worst = worst.max(close(k, v, &want[k][1], 1e-5)?);
    }
    let train_out = no_grad(|| m.forward(&x))?;
    worst = worst.max(close("train output", &train_out, &t["train_output"], 1e-5)?);
    assert_eq!(
        names(call(m.as_mut(), "merge_lora", vec![], vec![])?),
        ["0", "2"]
    );
    let merged = no_grad(|| m.forward(&x))?;
    worst = worst.max(close(
        "merge_lora output",
        &merged,
        &t["train_output"],
        1e-5,
    )?);
    call(m.as_mut(), "unmerge_lora", vec![], vec![])?;
    m.eval();
    for i in ["0", "2"] {
        let w = m
            .state_dict()
            .get(&format!("{i}.weight"))
            .cloned()
            .expect("weight");
        worst = worst.max(close("merged weight", &w, &t["merged_weights"][i], 1e-5)?);
    }
    let eval_out = no_grad(|| m.forward(&x))?;
    worst = worst.max(close("eval output", &eval_out, &t["eval_output"], 1e-5)?);
    println!(
        "lora[catalog]: apply_lora + 4 SGD steps + lora_state_dict + merge equal loralib's (within {worst:.1e}) [{}]",
        default_device()?.adapter_info().short()
    );
    Ok(())
}

#[test]
fn checkpoint_with_options_is_torchs() -> Result<()> {
    // A checkpoint keeps and restores the generator's state (preserve_rng_state): not while
    // another test of this binary draws its seeded init.
    let _one = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    let c = &fixture()["checkpoint"];
    let blocks: Vec<StateDict> = c["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(state)
        .collect::<Result<_>>()?;
    let weights: Vec<[Tensor; 4]> = blocks
        .iter()
        .map(|b| {
            let p = |k: &str| b.get(k).cloned().expect(k);
            let w = [p("0.weight"), p("0.bias"), p("2.weight"), p("2.bias")];
            w.iter()
                .try_for_each(|t| t.set_requires_grad(true).map(|_| ()))?;
            Ok(w)
        })
        .collect::<Result<_>>()?;
    let x = Tensor::from_slice(&floats(&c["x"]), &shape(&c["x_shape"]))?;
    x.set_requires_grad(true)?;
    let mut h = x.clone();
    for w in &weights {
        let w = w.clone();
        let block = move |i: &[Tensor]| {
            let a = F::linear(&i[0], &w[0], Some(&w[1]))?.tanh()?;
            F::linear(&a, &w[2], Some(&w[3]))?.tanh()
        };
        let options = vec![("use_reentrant".to_string(), Value::Bool(false))];
        h = checkpoint_with_options(block, vec![Value::Tensor(h)], options)?;
    }
    let mut worst = close("output", &h, &c["output"], 1e-5)?;
    let g = Tensor::from_slice(&floats(&c["grad_output"]), h.shape())?;
    h.mul(&g)?.sum(None, false)?.backward()?;
    worst = worst.max(close(
        "grad input",
        &x.grad().expect("x.grad"),
        &c["grad_input"],
        1e-5,
    )?);
    for (i, w) in weights.iter().enumerate() {
        for (t, k) in w.iter().zip(["0.weight", "0.bias", "2.weight", "2.bias"]) {
            let name = format!("{i}.{k}");
            worst = worst.max(close(
                &name,
                &t.grad().expect("grad"),
                &c["grads"][&name],
                1e-5,
            )?);
        }
    }
    let e = checkpoint_with_options(
        |i: &[Tensor]| i[0].tanh(),
        vec![Value::Tensor(x.clone())],
        vec![],
    )
    .err();
    assert!(
        e.expect("refused")
            .to_string()
            .contains("use_reentrant=False")
    );
    let kw = vec![("use_reentrant".to_string(), Value::Bool(true))];
    let e = checkpoint_with_options(|i: &[Tensor]| i[0].tanh(), vec![Value::Tensor(x)], kw).err();
    assert!(matches!(e, Some(BorchError::NotImplemented(_))));
    println!(
        "checkpoint[catalog]: 2 checkpointed blocks equal torch's output and gradients (within {worst:.1e}) [{}]",
        default_device()?.adapter_info().short()
    );
    Ok(())
}
