//! Bad arguments get torch's error class and message, never a panic.

use borch_optim::{
    Adagrad, AdagradOptions, Adam, AdamOptions, Optimizer, ParamGroup, RMSprop, RMSpropOptions,
    SGD, SgdOptions, py_float,
};
use borch_tensor::{ErrorKind, Tensor, randn};

fn p() -> Tensor {
    randn(&[2, 3], None).unwrap()
}

fn err<T>(r: borch_tensor::Result<T>) -> (ErrorKind, String) {
    let e = r.err().expect("refused");
    (e.kind(), e.to_string())
}

#[test]
fn constructor_checks_match_torch() {
    let v = |m: &str| (ErrorKind::Value, m.to_string());
    assert_eq!(
        err(SGD::new(vec![p()], SgdOptions::new(-1.0))),
        v("Invalid learning rate: -1.0")
    );
    assert_eq!(
        err(SGD::new(vec![p()], SgdOptions::new(0.1).momentum(-0.5))),
        v("Invalid momentum value: -0.5")
    );
    assert_eq!(
        err(SGD::new(vec![p()], SgdOptions::new(0.1).nesterov(true))),
        v("Nesterov momentum requires a momentum and zero dampening")
    );
    assert_eq!(
        err(Adam::new(vec![p()], AdamOptions::default().betas(1.0, 0.9))),
        v("Invalid beta parameter at index 0: 1.0")
    );
    assert_eq!(
        err(Adam::new(vec![p()], AdamOptions::default().eps(-1e-5))),
        v("Invalid epsilon value: -1e-05")
    );
    assert_eq!(
        err(RMSprop::new(
            vec![p()],
            RMSpropOptions::default().alpha(-1.0)
        )),
        v("Invalid alpha value: -1.0")
    );
    assert_eq!(
        err(Adagrad::new(
            vec![p()],
            AdagradOptions::default().lr_decay(-0.001)
        )),
        v("Invalid lr_decay value: -0.001")
    );
    assert_eq!(
        err(SGD::new(vec![], SgdOptions::default())),
        v("optimizer got an empty parameter list")
    );
    let x = p();
    let groups = vec![
        ParamGroup::new(vec![x.clone()], SgdOptions::default()),
        ParamGroup::new(vec![x], SgdOptions::default()),
    ];
    assert_eq!(
        err(SGD::with_groups(groups, SgdOptions::default())),
        v("some parameters appear in more than one parameter group")
    );
}

#[test]
fn non_contiguous_parameters_and_bad_grads_are_refused() {
    let t = p().transpose(0, 1).unwrap();
    let (kind, msg) = err(SGD::new(vec![t], SgdOptions::default()));
    assert_eq!(kind, ErrorKind::Runtime);
    assert!(msg.contains("need contiguous parameters"), "{msg}");
    let x = p();
    let mut opt = SGD::new(vec![x.clone()], SgdOptions::default()).unwrap();
    x.set_grad(Some(randn(&[3, 2], None).unwrap()));
    let (kind, msg) = err(opt.step());
    assert_eq!(kind, ErrorKind::Runtime);
    assert!(
        msg.starts_with("assigned grad has data of a different size"),
        "{msg}"
    );
    // a transposed gradient of the right shape is made contiguous, not refused
    x.set_grad(Some(randn(&[3, 2], None).unwrap().transpose(0, 1).unwrap()));
    opt.step().unwrap();
}

#[test]
fn floats_print_as_python_does() {
    for (x, s) in [
        (-1.0, "-1.0"),
        (0.001, "0.001"),
        (1e-5, "1e-05"),
        (-2.5e-8, "-2.5e-08"),
        (1e16, "1e+16"),
        (123456.0, "123456.0"),
        (0.1, "0.1"),
        (f64::INFINITY, "inf"),
    ] {
        assert_eq!(py_float(x), s);
    }
}

#[test]
fn a_non_leaf_tensor_cannot_be_optimized() {
    let w = p();
    w.set_requires_grad(true).unwrap();
    let computed = w.mul(2.0).unwrap();
    assert_eq!(
        err(SGD::new(vec![computed], SgdOptions::new(0.1))),
        (
            ErrorKind::Value,
            "can't optimize a non-leaf Tensor".to_string()
        )
    );
    assert!(SGD::new(vec![w], SgdOptions::new(0.1)).is_ok());
}
