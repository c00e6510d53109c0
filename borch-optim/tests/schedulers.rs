//! Every scheduler case of `tests/optim/cases.json` replayed for 30 steps: each group's lr (and
//! momentum or beta1) after construction and after every step agrees with torch's to 1e-12.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use borch_optim::lr_scheduler::{
    self, CosineAnnealingLR, LRScheduler, LrLambda, OneCycleLR, OneCycleOptions, Scheduler,
    SchedulerArgs, SchedulerState, StepLR,
};
use borch_optim::{
    Adagrad, AdagradOptions, Adam, AdamOptions, Optimizer, ParamGroup, SGD, SgdOptions, Value,
};
use borch_tensor::{DType, Tensor, zeros};
use serde_json::Value as Json;

use common::{assert_lr, f64s};

/// Two groups (lr 0.1 and 0.05) as in cases.py; SGD has momentum 0.9.
fn make_optimizer(kind: &str) -> Box<dyn Optimizer> {
    let p0: Tensor = zeros(&[2], DType::Float32).unwrap();
    let p1: Tensor = zeros(&[3], DType::Float32).unwrap();
    match kind {
        "SGD" => {
            let d = SgdOptions::new(0.1).momentum(0.9);
            let groups = vec![
                ParamGroup::new(vec![p0], d.clone()),
                ParamGroup::new(
                    vec![p1],
                    SgdOptions {
                        lr: 0.05,
                        ..d.clone()
                    },
                ),
            ];
            Box::new(SGD::with_groups(groups, d).unwrap())
        }
        "Adam" => {
            let d = AdamOptions::default();
            let groups = vec![
                ParamGroup::new(vec![p0], AdamOptions::new(0.1)),
                ParamGroup::new(vec![p1], AdamOptions::new(0.05)),
            ];
            Box::new(Adam::with_groups(groups, d).unwrap())
        }
        "Adagrad" => {
            let d = AdagradOptions::default();
            let groups = vec![
                ParamGroup::new(vec![p0], AdagradOptions::new(0.1)),
                ParamGroup::new(vec![p1], AdagradOptions::new(0.05)),
            ];
            Box::new(Adagrad::with_groups(groups, d).unwrap())
        }
        other => panic!("unknown optimizer {other}"),
    }
}

fn lambda(name: &str) -> LrLambda {
    match name {
        "pow095" => std::rc::Rc::new(|e: i64| 0.95f64.powf(e as f64)),
        "warmup5" => std::rc::Rc::new(|e: i64| 1.0f64.min((e + 1) as f64 / 5.0)),
        "inv_sqrt" => std::rc::Rc::new(|e: i64| 1.0 / ((e + 1) as f64).sqrt()),
        other => panic!("unknown lambda {other}"),
    }
}

/// The case's scheduler, built through the catalog by torch's name (children first).
fn build(case: &Json, opt: &mut dyn Optimizer) -> Scheduler {
    let mut args = SchedulerArgs::default();
    for (k, v) in case["args"].as_object().unwrap() {
        args.keywords.insert(k.clone(), common::value(v));
    }
    if let Some(names) = case["lambdas"].as_array() {
        args.lr_lambdas = names.iter().map(|n| lambda(n.as_str().unwrap())).collect();
    }
    if let Some(children) = case["children"].as_array() {
        for c in children {
            let child = build(c, opt);
            args.schedulers.push(Rc::new(RefCell::new(child)));
        }
    }
    let name = case["scheduler"].as_str().unwrap();
    lr_scheduler::build(name, opt, args).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// torch's state dict (as cases.py wrote it) and borch's agree key for key.
fn same_state(what: &str, got: &Value, want: &Json) {
    match (got, want) {
        (Value::Dict(g), Json::Object(w)) => {
            let gk: Vec<&String> = g.keys().collect();
            let mut wk: Vec<&String> = w.keys().filter(|k| *k != "lr_lambdas").collect();
            wk.sort();
            assert_eq!(gk, wk, "{what}: keys");
            for (k, v) in g {
                same_state(&format!("{what}.{k}"), v, &w[k]);
            }
        }
        (Value::List(g), Json::Array(w)) => {
            assert_eq!(g.len(), w.len(), "{what}: length");
            for (i, (g, w)) in g.iter().zip(w).enumerate() {
                same_state(&format!("{what}[{i}]"), g, w);
            }
        }
        (Value::Float(_) | Value::Int(_), Json::String(inf)) => {
            let want = if inf == "inf" {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            assert_eq!(got.as_f64(), Some(want), "{what}");
        }
        (Value::Float(_) | Value::Int(_), Json::Number(n)) => {
            assert_lr(what, got.as_f64().unwrap(), n.as_f64().unwrap())
        }
        (Value::Bool(g), Json::Bool(w)) => assert_eq!(g, w, "{what}"),
        (Value::Str(g), Json::String(w)) => assert_eq!(g, w, "{what}"),
        (Value::None, Json::Null) => {}
        _ => panic!("{what}: borch {got:?}, torch {want}"),
    }
}

fn check(name: &str, step: usize, opt: &dyn Optimizer, last: &[f64], case: &Json) {
    let want = f64s(&case["lrs"][step]);
    for (g, w) in want.iter().enumerate() {
        assert_lr(&format!("{name} step {step} lr[{g}]"), opt.lr(g), *w);
        assert_lr(&format!("{name} step {step} get_last_lr[{g}]"), last[g], *w);
    }
    for (g, w) in f64s(&case["momenta"][step]).iter().enumerate() {
        let got = opt.momentum(g).unwrap();
        assert_lr(&format!("{name} step {step} momentum[{g}]"), got, *w);
    }
}

#[test]
fn schedulers_follow_torch_step_for_step() {
    let cases = common::cases();
    let mut n = 0;
    for case in cases["schedulers"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let mut opt = make_optimizer(case["optimizer"].as_str().unwrap());
        let steps = case["lrs"].as_array().unwrap().len() - 1;
        let mut s = build(case, opt.as_mut());
        let metrics: Vec<Option<f64>> = match case["metrics"].as_array() {
            Some(m) => m.iter().map(|x| x.as_f64()).collect(),
            None => vec![None; steps],
        };
        check(name, 0, opt.as_ref(), &s.get_last_lr(), case);
        for (k, m) in metrics.into_iter().enumerate() {
            opt.step().unwrap();
            s.step(opt.as_mut(), m).unwrap();
            check(name, k + 1, opt.as_ref(), &s.get_last_lr(), case);
        }
        let state = Value::Dict(s.state_dict().unwrap());
        same_state(&format!("{name} state_dict"), &state, &case["state_dict"]);
        n += 1;
    }
    println!("lr_scheduler: {n} scheduler cases agree with torch (lrs and state dicts)");
    assert!(n >= 38);
}

#[test]
fn one_cycle_refuses_steps_past_total() {
    let mut opt = make_optimizer("SGD");
    let o = OneCycleOptions {
        total_steps: Some(3),
        ..Default::default()
    };
    let mut s = OneCycleLR::new(opt.as_mut(), 1.0, o).unwrap();
    for _ in 0..3 {
        s.step(opt.as_mut()).unwrap();
    }
    let e = s.step(opt.as_mut()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Tried to step 4 times. The specified number of total steps is 3"
    );
    let mut ada = make_optimizer("Adagrad");
    let e = OneCycleLR::new(
        ada.as_mut(),
        1.0,
        OneCycleOptions {
            total_steps: Some(3),
            ..Default::default()
        },
    );
    assert_eq!(
        e.err().unwrap().to_string(),
        "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
    );
}

#[test]
fn scheduler_state_dict_resumes() {
    let mut a = make_optimizer("SGD");
    let mut sa = CosineAnnealingLR::new(a.as_mut(), 6, 0.001).unwrap();
    for _ in 0..4 {
        sa.step(a.as_mut()).unwrap();
    }
    let saved_opt = a.state_dict();
    let saved = sa.state_dict();
    let mut b = make_optimizer("SGD");
    let mut sb = CosineAnnealingLR::new(b.as_mut(), 1, 0.0).unwrap();
    b.load_state_dict(&saved_opt).unwrap();
    sb.load_state_dict(&saved).unwrap();
    for k in 0..15 {
        sa.step(a.as_mut()).unwrap();
        sb.step(b.as_mut()).unwrap();
        assert_eq!(
            sa.get_last_lr(),
            sb.get_last_lr(),
            "step {k} after resuming"
        );
    }
}

/// The keys torch 2.15 prints for `StepLR(SGD(...), 3).state_dict()`:
/// `{'step_size', 'gamma', 'base_lrs', 'last_epoch', '_step_count', '_is_initial',
/// '_get_lr_called_within_step', '_last_lr'}`.
#[test]
fn scheduler_state_as_one_dict_has_torchs_keys_and_round_trips() {
    let mut o = make_optimizer("SGD");
    let mut s = StepLR::new(o.as_mut(), 3, 0.5).unwrap();
    s.step(o.as_mut()).unwrap();
    let state = s.state_dict();
    let dict = state.to_map();
    let mut keys: Vec<&str> = dict.keys().map(String::as_str).collect();
    keys.sort();
    let mut torch_keys = vec![
        "step_size",
        "gamma",
        "base_lrs",
        "last_epoch",
        "_step_count",
        "_is_initial",
        "_get_lr_called_within_step",
        "_last_lr",
    ];
    torch_keys.sort();
    assert_eq!(keys, torch_keys);
    assert_eq!(dict["last_epoch"], borch_optim::Value::Int(1));
    assert_eq!(dict["_step_count"], borch_optim::Value::Int(2));
    assert_eq!(SchedulerState::from_map(&dict).unwrap(), state);
    let mut broken = dict.clone();
    broken.remove("base_lrs");
    let err = SchedulerState::from_map(&broken).unwrap_err();
    assert!(err.to_string().contains("KeyError: 'base_lrs'"), "{err}");
}
