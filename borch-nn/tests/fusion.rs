//! `nn.utils.fusion` and `fuse_modules` / `fuse_modules_qat` against torch
//! (tests/nn/intrinsic_cases.json, frozen by tests/nn/intrinsic_cases.py): fused weights and
//! biases, the fused module's output (torch's, and within 1e-5 of borch's own unfused eval
//! output), torch's refusals; a Sequential fused by name and by borch's `fuse_for_eval`.

mod common;

use borch_autograd::no_grad;
use borch_nn::utils::fusion::{
    BatchNormLike, fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_for_eval, fuse_linear_bn_eval,
    fuse_linear_bn_weights, fuse_modules, fuse_modules_qat,
};
use borch_nn::*;
use borch_tensor::{ErrorKind, Tensor};
use common::{build, compare, state_dict, tensor};
use serde_json::Value as Json;

fn cases() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/nn/intrinsic_cases.json"
    );
    let text = std::fs::read_to_string(path).expect("tests/nn/intrinsic_cases.json");
    serde_json::from_str(&text).expect("intrinsic_cases.json parses")
}

fn as_bn(m: &dyn Module) -> &dyn BatchNormLike {
    let a = m.as_any();
    if let Some(b) = a.downcast_ref::<BatchNorm1d>() {
        return b;
    }
    if let Some(b) = a.downcast_ref::<BatchNorm2d>() {
        return b;
    }
    a.downcast_ref::<BatchNorm3d>().expect("a BatchNorm")
}

/// `fuse_conv_bn_eval` / `fuse_linear_bn_eval` of module specs, as a boxed module.
fn fuse_eval(
    conv: &dyn Module,
    bn: &dyn Module,
    transpose: &Json,
) -> borch_tensor::Result<Box<dyn Module>> {
    let bn = as_bn(bn);
    let a = conv.as_any();
    let t = transpose.as_bool().unwrap_or(false);
    if let Some(l) = a.downcast_ref::<Linear>() {
        return Ok(Box::new(fuse_linear_bn_eval(l, bn)?));
    }
    if let Some(c) = a.downcast_ref::<Conv1d>() {
        return Ok(Box::new(fuse_conv_bn_eval(c, bn, t)?));
    }
    if let Some(c) = a.downcast_ref::<Conv2d>() {
        return Ok(Box::new(fuse_conv_bn_eval(c, bn, t)?));
    }
    if let Some(c) = a.downcast_ref::<Conv3d>() {
        return Ok(Box::new(fuse_conv_bn_eval(c, bn, t)?));
    }
    let c = a.downcast_ref::<ConvTranspose2d>().expect("a conv");
    Ok(Box::new(fuse_conv_bn_eval(c, bn, t)?))
}

fn max_diff(a: &Tensor, b: &Tensor) -> f32 {
    let a: Vec<f32> = a.to_vec_blocking().unwrap();
    let b: Vec<f32> = b.to_vec_blocking().unwrap();
    a.iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn fuse_conv_bn_eval_matches_torch() {
    let _rng = common::rng_lock();
    let cases = cases();
    let mut failures = Vec::new();
    for c in cases["fuse_eval"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let e = &c["expect"];
        let mut conv = build(&c["conv"]);
        let mut bn = build(&c["bn"]);
        conv.load_state_dict(&state_dict(&c["conv_state"]), true)
            .unwrap();
        bn.load_state_dict(&state_dict(&c["bn_state"]), true)
            .unwrap();
        conv.eval();
        bn.eval();
        let fused = fuse_eval(conv.as_ref(), bn.as_ref(), &c["transpose"]).unwrap();
        let x = tensor(&c["input"]);
        let mut out = Vec::new();
        let params = fused.named_parameters();
        out.extend(compare("weight", &params[0].1, &e["weight"]));
        out.extend(compare("bias", &params[1].1, &e["bias"]));
        if params[0].1.requires_grad() != e["weight_requires_grad"].as_bool().unwrap()
            || params[1].1.requires_grad() != e["bias_requires_grad"].as_bool().unwrap()
        {
            out.push("requires_grad differs".into());
        }
        if fused.repr() != e["repr"].as_str().unwrap() {
            out.push(format!("repr {} vs {}", fused.repr(), e["repr"]));
        }
        let y = no_grad(|| fused.forward(&x)).unwrap();
        let unfused = no_grad(|| bn.forward(&conv.forward(&x)?)).unwrap();
        out.extend(compare("output", &y, &e["output"]));
        out.extend(compare("unfused", &unfused, &e["unfused"]));
        let d = max_diff(&y, &unfused);
        if d > 1e-5 {
            out.push(format!("fused output {d} from the unfused eval output"));
        }
        failures.extend(out.into_iter().map(|m| format!("{name}: {m}")));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fuse_eval_refusals_are_torch_s() {
    let _rng = common::rng_lock();
    let cases = cases();
    for c in cases["fuse_errors"].as_array().unwrap() {
        let mut conv = build(&c["conv"]);
        let mut bn = build(&c["bn"]);
        conv.train(c["conv_train"].as_bool().unwrap());
        bn.train(c["bn_train"].as_bool().unwrap());
        let e = fuse_eval(conv.as_ref(), bn.as_ref(), &Json::Null).expect_err("refused");
        assert_eq!(e.to_string(), c["error"].as_str().unwrap(), "{}", c["name"]);
        assert_eq!(e.kind(), ErrorKind::Runtime);
    }
}

fn opt(j: &Json) -> Option<Tensor> {
    (!j.is_null()).then(|| tensor(j))
}

#[test]
fn fuse_weights_match_torch() {
    let _rng = common::rng_lock();
    let cases = cases();
    for c in cases["fuse_weights"].as_array().unwrap() {
        let a = c["args"].as_array().unwrap();
        let w = tensor(&a[0]);
        w.set_requires_grad(true).unwrap();
        let b = opt(&a[1]);
        if let Some(b) = &b
            && c["call"] == "fuse_linear_bn_weights"
        {
            b.set_requires_grad(true).unwrap();
        }
        let (rm, rv, eps) = (tensor(&a[2]), tensor(&a[3]), a[4].as_f64().unwrap());
        let (bw, bb) = (opt(&a[5]), opt(&a[6]));
        let (fw, fb) = if c["call"] == "fuse_conv_bn_weights" {
            let t = a[7].as_bool().unwrap();
            fuse_conv_bn_weights(&w, b.as_ref(), &rm, &rv, eps, bw.as_ref(), bb.as_ref(), t)
        } else {
            fuse_linear_bn_weights(&w, b.as_ref(), &rm, &rv, eps, bw.as_ref(), bb.as_ref())
        }
        .unwrap();
        let e = &c["expect"];
        let name = c["name"].as_str().unwrap();
        assert_eq!(compare("weight", &fw, &e["weight"]), None, "{name}");
        assert_eq!(compare("bias", &fb, &e["bias"]), None, "{name}");
        assert_eq!(
            fw.requires_grad(),
            e["weight_requires_grad"].as_bool().unwrap()
        );
        assert_eq!(
            fb.requires_grad(),
            e["bias_requires_grad"].as_bool().unwrap()
        );
    }
    let t = tensor(&cases["fuse_weights"][0]["args"][2]);
    let e = fuse_linear_bn_weights(&t, None, &t, &t, 1e-5, None, Some(&t)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "unsupported operand type(s) for *: 'NoneType' and 'Tensor'"
    );
}

fn paths(j: &Json) -> Vec<Vec<String>> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|g| {
            g.as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

fn fuse(model: &mut dyn Module, groups: &[Vec<String>], qat: bool) -> borch_tensor::Result<()> {
    let groups: Vec<Vec<&str>> = groups
        .iter()
        .map(|g| g.iter().map(String::as_str).collect())
        .collect();
    if qat {
        fuse_modules_qat(model, &groups)
    } else {
        fuse_modules(model, &groups)
    }
}

#[test]
fn fuse_modules_matches_torch() {
    let _rng = common::rng_lock();
    let cases = cases();
    let mut failures = Vec::new();
    for c in cases["fuse_modules"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let e = &c["expect"];
        let mut model = build(&c["model"]);
        model
            .load_state_dict(&state_dict(&c["state_dict"]), true)
            .unwrap();
        model.train(c["train"].as_bool().unwrap());
        let x = tensor(&c["input"]);
        let before = no_grad(|| model.forward(&x)).unwrap();
        let mut out = Vec::new();
        out.extend(compare("unfused", &before, &e["unfused"]));
        let fused = if c["auto"].as_bool().unwrap() {
            fuse_for_eval(model.as_mut())
        } else {
            fuse(
                model.as_mut(),
                &paths(&c["modules_to_fuse"]),
                c["qat"].as_bool().unwrap(),
            )
        };
        if let Err(err) = fused {
            failures.push(format!("{name}: {err}"));
            continue;
        }
        if model.repr() != e["repr"].as_str().unwrap() {
            out.push(format!("repr:\n{}\nexpected\n{}", model.repr(), e["repr"]));
        }
        let keys: Vec<String> = model
            .state_dict()
            .keys()
            .iter()
            .map(|k| k.to_string())
            .collect();
        let want: Vec<&str> = e["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        if keys != want {
            out.push(format!("keys {keys:?}, expected {want:?}"));
        }
        // A train-mode forward updates running statistics: the output is compared first.
        let after = no_grad(|| model.forward(&x)).unwrap();
        out.extend(compare("output", &after, &e["output"]));
        if !c["train"].as_bool().unwrap() {
            let d = max_diff(&after, &before);
            if d > 1e-5 {
                out.push(format!("fused output {d} from the unfused eval output"));
            }
        }
        failures.extend(out.into_iter().map(|m| format!("{name}: {m}")));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fuse_modules_refusals_are_torch_s() {
    let _rng = common::rng_lock();
    let cases = cases();
    for c in cases["fuse_modules_errors"].as_array().unwrap() {
        let mut model = build(&c["model"]);
        model.train(c["train"].as_bool().unwrap());
        if c.get("bn_eval").is_some() {
            let (_, bn) = model.named_children_mut().into_iter().nth(1).unwrap();
            bn.eval();
        }
        let before = model.repr();
        let e = fuse(model.as_mut(), &paths(&c["modules_to_fuse"]), false).unwrap_err();
        assert_eq!(e.to_string(), c["error"].as_str().unwrap(), "{}", c["name"]);
        assert_eq!(
            model.repr(),
            before,
            "a refused fusion leaves the model as it was"
        );
    }
}

#[test]
fn fuse_for_eval_needs_eval_mode_and_typed_fields_say_so() {
    let _rng = common::rng_lock();
    borch_tensor::manual_seed(0);
    let mut model = sequential![
        Conv2d::new(1, 2, &[1]).unwrap(),
        BatchNorm2d::new(2).unwrap()
    ];
    let e = fuse_for_eval(&mut model).unwrap_err();
    assert_eq!(e.to_string(), "Fusion only for eval!");
    let mut block = intrinsic::ConvReLU2d::new(Conv2d::new(1, 2, &[1]).unwrap(), ReLU::new());
    let e = fuse_modules(&mut block, &[vec!["0", "1"]]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ConvReLU2d: its child '0' is a typed field and cannot be replaced by another module"
    );
}
