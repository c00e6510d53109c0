//! Every scheduler case of `tests/optim/cases.json` replayed for 30 steps: each group's lr (and
//! momentum or beta1) after construction and after every step agrees with torch's to 1e-12.

mod common;

use borch_optim::lr_scheduler::{
    AnnealStrategy, CosineAnnealingLR, ExponentialLR, LRScheduler, LambdaLR, LinearLR, LrLambda,
    MultiStepLR, OneCycleLR, OneCycleOptions, PerGroup, PlateauOptions, ReduceLROnPlateau,
    SchedulerState, StepLR,
};
use borch_optim::{
    Adagrad, AdagradOptions, Adam, AdamOptions, Optimizer, ParamGroup, SGD, SgdOptions,
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

fn per_group(j: &Json) -> PerGroup {
    match j {
        Json::Array(_) => PerGroup::Each(f64s(j)),
        _ => PerGroup::All(j.as_f64().unwrap()),
    }
}

fn one_cycle_options(a: &Json) -> OneCycleOptions {
    let mut o = OneCycleOptions {
        total_steps: a["total_steps"].as_i64(),
        epochs: a["epochs"].as_i64(),
        steps_per_epoch: a["steps_per_epoch"].as_i64(),
        ..Default::default()
    };
    if let Some(x) = a["pct_start"].as_f64() {
        o.pct_start = x;
    }
    if a["anneal_strategy"] == "linear" {
        o.anneal_strategy = AnnealStrategy::Linear;
    }
    if let Some(b) = a["cycle_momentum"].as_bool() {
        o.cycle_momentum = b;
    }
    if !a["base_momentum"].is_null() {
        o.base_momentum = per_group(&a["base_momentum"]);
    }
    if !a["max_momentum"].is_null() {
        o.max_momentum = per_group(&a["max_momentum"]);
    }
    if let Some(x) = a["div_factor"].as_f64() {
        o.div_factor = x;
    }
    if let Some(x) = a["final_div_factor"].as_f64() {
        o.final_div_factor = x;
    }
    if let Some(b) = a["three_phase"].as_bool() {
        o.three_phase = b;
    }
    o
}

fn plateau_options(a: &Json) -> PlateauOptions {
    let mut o = PlateauOptions::default();
    if let Some(s) = a["mode"].as_str() {
        o.mode = s.into();
    }
    if let Some(x) = a["factor"].as_f64() {
        o.factor = x;
    }
    if let Some(x) = a["patience"].as_i64() {
        o.patience = x;
    }
    if let Some(x) = a["threshold"].as_f64() {
        o.threshold = x;
    }
    if let Some(s) = a["threshold_mode"].as_str() {
        o.threshold_mode = s.into();
    }
    if let Some(x) = a["cooldown"].as_i64() {
        o.cooldown = x;
    }
    if !a["min_lr"].is_null() {
        o.min_lr = per_group(&a["min_lr"]);
    }
    if let Some(x) = a["eps"].as_f64() {
        o.eps = x;
    }
    o
}

fn make_scheduler(case: &Json, opt: &mut dyn Optimizer) -> Box<dyn LRScheduler> {
    let a = &case["args"];
    let f = |k: &str| a[k].as_f64().unwrap();
    let i = |k: &str| a[k].as_i64().unwrap();
    match case["scheduler"].as_str().unwrap() {
        "StepLR" => Box::new(StepLR::new(opt, i("step_size"), f("gamma")).unwrap()),
        "MultiStepLR" => {
            let m: Vec<i64> = a["milestones"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect();
            Box::new(MultiStepLR::new(opt, &m, f("gamma")).unwrap())
        }
        "ExponentialLR" => Box::new(ExponentialLR::new(opt, f("gamma")).unwrap()),
        "CosineAnnealingLR" => {
            let eta_min = a["eta_min"].as_f64().unwrap_or(0.0);
            Box::new(CosineAnnealingLR::new(opt, i("T_max"), eta_min).unwrap())
        }
        "LinearLR" => Box::new(
            LinearLR::new(
                opt,
                a["start_factor"].as_f64().unwrap_or(1.0 / 3.0),
                a["end_factor"].as_f64().unwrap_or(1.0),
                a["total_iters"].as_i64().unwrap_or(5),
            )
            .unwrap(),
        ),
        "LambdaLR" => {
            let names = case["lambdas"].as_array().unwrap();
            let fns: Vec<LrLambda> = names.iter().map(|n| lambda(n.as_str().unwrap())).collect();
            if fns.len() == 1 {
                let f0 = fns[0].clone();
                Box::new(LambdaLR::new(opt, move |e| f0(e)).unwrap())
            } else {
                Box::new(LambdaLR::per_group(opt, fns).unwrap())
            }
        }
        "OneCycleLR" => {
            Box::new(OneCycleLR::new(opt, per_group(&a["max_lr"]), one_cycle_options(a)).unwrap())
        }
        other => panic!("unknown scheduler {other}"),
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
        if case["scheduler"] == "ReduceLROnPlateau" {
            let metrics = f64s(&case["metrics"]);
            let mut s =
                ReduceLROnPlateau::new(opt.as_mut(), plateau_options(&case["args"])).unwrap();
            check(name, 0, opt.as_ref(), &s.get_last_lr(), case);
            for (k, m) in metrics.iter().enumerate() {
                opt.step().unwrap();
                s.step(opt.as_mut(), *m).unwrap();
                check(name, k + 1, opt.as_ref(), &s.get_last_lr(), case);
            }
        } else {
            let mut s = make_scheduler(case, opt.as_mut());
            check(name, 0, opt.as_ref(), &s.get_last_lr(), case);
            for k in 0..steps {
                opt.step().unwrap();
                s.step(opt.as_mut()).unwrap();
                check(name, k + 1, opt.as_ref(), &s.get_last_lr(), case);
            }
        }
        n += 1;
    }
    println!("lr_scheduler: {n} scheduler cases agree with torch");
    assert!(n >= 20);
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
