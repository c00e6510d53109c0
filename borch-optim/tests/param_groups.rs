//! Reading and editing `param_groups[i][key]` (torch's `for g in opt.param_groups: g["lr"] = …`).

use borch_optim::{Optimizer, SGD, SgdOptions, Value};
use borch_tensor::{BorchError, Tensor};

fn sgd(lr: f64) -> (Tensor, SGD) {
    let p = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    p.set_requires_grad(true).unwrap();
    let options = SgdOptions {
        lr,
        ..SgdOptions::default()
    };
    let opt = SGD::new(vec![p.clone()], options).unwrap();
    (p, opt)
}

#[test]
fn lr_set_through_the_group_drives_the_next_step() {
    let (p, mut opt) = sgd(0.1);
    assert_eq!(opt.group_options(0).unwrap()["lr"], Value::Float(0.1));
    opt.set_group_option(0, "lr", Value::Float(0.5)).unwrap();
    assert_eq!(opt.lr(0), 0.5);
    p.set_grad(Some(Tensor::from_slice(&[1.0f32, 1.0], &[2]).unwrap()));
    opt.step().unwrap();
    // p - lr * grad with lr 0.5 (plain SGD: no momentum, no weight decay).
    assert_eq!(p.to_vec_blocking::<f32>().unwrap(), vec![0.5, 1.5]);
}

#[test]
fn other_options_and_scheduler_entries_are_editable() {
    let (_, mut opt) = sgd(0.1);
    opt.set_group_option(0, "momentum", Value::Float(0.9))
        .unwrap();
    assert_eq!(opt.momentum(0), Some(0.9));
    opt.set_group_option(0, "initial_lr", Value::Float(0.2))
        .unwrap();
    let options = opt.group_options(0).unwrap();
    assert_eq!(options["initial_lr"], Value::Float(0.2));
    assert_eq!(options["nesterov"], Value::Bool(false));
    assert!(!options.contains_key("params"));
}

#[test]
fn bad_edits_are_refused_and_change_nothing() {
    let (_, mut opt) = sgd(0.1);
    let err = opt
        .set_group_option(0, "lr", Value::Str("fast".into()))
        .unwrap_err();
    assert!(matches!(err, BorchError::Type(_)), "{err}");
    assert_eq!(opt.lr(0), 0.1);
    let err = opt
        .set_group_option(1, "lr", Value::Float(0.5))
        .unwrap_err();
    assert!(matches!(err, BorchError::Index(ref m) if m == "list index out of range"));
    assert!(matches!(
        opt.set_group_option(0, "params", Value::None).unwrap_err(),
        BorchError::NotImplemented(_)
    ));
    assert!(matches!(
        opt.set_group_option(0, "note", Value::Str("x".into()))
            .unwrap_err(),
        BorchError::NotImplemented(_)
    ));
    assert!(matches!(
        opt.group_options(2).unwrap_err(),
        BorchError::Index(_)
    ));
}
