//! Optimizer state dicts: torch's layout, a saved run resumes exactly, loading copies state, and
//! mismatches get torch's errors.

use borch_optim::lr_scheduler::StepLR;
use borch_optim::{
    Adagrad, AdagradOptions, Adam, AdamOptions, Optimizer, ParamGroup, SGD, SgdOptions, StateValue,
    Value,
};
use borch_tensor::{Tensor, randn};

fn params() -> Vec<Tensor> {
    vec![randn(&[3, 2], None).unwrap(), randn(&[4], None).unwrap()]
}

fn copies(ps: &[Tensor]) -> Vec<Tensor> {
    ps.iter().map(|p| p.deep_clone().unwrap()).collect()
}

fn read(ps: &[Tensor]) -> Vec<Vec<f32>> {
    ps.iter()
        .map(|p| p.to_vec_blocking::<f32>().unwrap())
        .collect()
}

fn set_grads(ps: &[Tensor], grads: &[Tensor]) {
    for (p, g) in ps.iter().zip(grads) {
        p.set_grad(Some(g.clone()));
    }
}

#[test]
fn saved_adam_resumes_exactly_and_loading_copies_state() {
    let opts = AdamOptions::new(0.05).amsgrad(true).weight_decay(0.01);
    let a = params();
    let mut opt_a = Adam::new(a.clone(), opts.clone()).unwrap();
    for _ in 0..3 {
        let grads: Vec<Tensor> = a.iter().map(|p| randn(p.shape(), None).unwrap()).collect();
        set_grads(&a, &grads);
        opt_a.step().unwrap();
    }
    let saved = opt_a.state_dict();
    assert_eq!(saved.state.len(), 2);
    let keys: Vec<&String> = saved.state[&0].entries.keys().collect();
    assert_eq!(keys, ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]);
    assert!(matches!(saved.state[&1].entries["step"], StateValue::Step(s) if s == 3.0));
    assert_eq!(saved.param_groups[0].params, vec![0, 1]);
    assert_eq!(
        saved.param_groups[0].options["betas"],
        Value::from((0.9, 0.999))
    );

    let b = copies(&a);
    let mut opt_b = Adam::new(b.clone(), AdamOptions::default()).unwrap();
    opt_b.load_state_dict(&saved).unwrap();
    assert_eq!(opt_b.param_groups[0].options, opts);
    for _ in 0..2 {
        let grads: Vec<Tensor> = a.iter().map(|p| randn(p.shape(), None).unwrap()).collect();
        set_grads(&a, &grads);
        set_grads(&b, &grads);
        opt_a.step().unwrap();
        opt_b.step().unwrap();
        assert_eq!(read(&a), read(&b));
    }
    let (sa, sb) = (opt_a.state_dict(), opt_b.state_dict());
    let exp_avg = |s: &borch_optim::StateDict| s.state[&0].tensor("exp_avg").unwrap().clone();
    assert!(
        !exp_avg(&sa).shares_storage(&exp_avg(&sb)),
        "loaded state is a copy"
    );
    assert_eq!(
        exp_avg(&sa).to_vec_blocking::<f32>().unwrap(),
        exp_avg(&sb).to_vec_blocking::<f32>().unwrap()
    );
}

#[test]
fn steps_write_parameters_in_place() {
    let ps = params();
    let model_view = ps[0].clone();
    let before = ps[0].to_vec_blocking::<f32>().unwrap();
    let mut opt = SGD::new(ps.clone(), SgdOptions::new(0.5)).unwrap();
    ps[0].set_grad(Some(ps[0].ones_like().unwrap()));
    opt.step().unwrap();
    let after = model_view.to_vec_blocking::<f32>().unwrap();
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(*a, b - 0.5);
    }
    assert!(model_view.shares_storage(&opt.param_groups[0].params[0]));
}

#[test]
fn mismatched_state_dicts_get_torchs_errors() {
    let ps = params();
    let sgd = SgdOptions::new(0.1).momentum(0.9);
    let one = SGD::new(ps.clone(), sgd.clone()).unwrap();
    let groups = vec![
        ParamGroup::new(vec![ps[0].clone()], sgd.clone()),
        ParamGroup::new(vec![ps[1].clone()], sgd.clone()),
    ];
    let mut two = SGD::with_groups(groups, sgd.clone()).unwrap();
    let e = two.load_state_dict(&one.state_dict()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "loaded state dict has a different number of parameter groups"
    );
    let mut short = SGD::new(vec![ps[0].deep_clone().unwrap()], sgd).unwrap();
    let e = short.load_state_dict(&one.state_dict()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
    );
}

#[test]
fn group_entries_include_scheduler_keys_and_adagrad_state_exists_at_once() {
    let ps = params();
    let mut opt = Adagrad::new(
        ps.clone(),
        AdagradOptions::new(0.1).initial_accumulator_value(0.5),
    )
    .unwrap();
    let sd = opt.state_dict();
    assert_eq!(
        sd.state.len(),
        2,
        "torch's Adagrad makes its state in the constructor"
    );
    let sum = sd.state[&1]
        .tensor("sum")
        .unwrap()
        .to_vec_blocking::<f32>()
        .unwrap();
    assert_eq!(sum, vec![0.5; 4]);
    let _s = StepLR::new(&mut opt, 3, 0.5).unwrap();
    let sd = opt.state_dict();
    assert_eq!(sd.param_groups[0].options["initial_lr"], Value::Float(0.1));
    let mut other = Adagrad::new(copies(&ps), AdagradOptions::default()).unwrap();
    other.load_state_dict(&sd).unwrap();
    assert_eq!(other.group_extra(0, "initial_lr"), Some(0.1));
    assert_eq!(other.lr(0), 0.1);
}
