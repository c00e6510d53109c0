//! `borch_nn::api`: torch.nn.functional by name, bound as torch binds it, against the direct
//! functions of `functional`.

use borch_nn::{Reduction, api, functional as F};
use borch_tensor::api::Value;
use borch_tensor::{BorchError, Tensor};

fn t(v: Value) -> Tensor {
    match v {
        Value::Tensor(t) => t,
        other => panic!("not a tensor: {other:?}"),
    }
}

fn same(a: &Tensor, b: &Tensor) {
    assert_eq!(a.shape(), b.shape());
    let (x, y) = (
        a.to_vec_blocking::<f32>().unwrap(),
        b.to_vec_blocking::<f32>().unwrap(),
    );
    assert_eq!(x, y);
}

fn kw(name: &str, v: Value) -> (String, Value) {
    (name.to_string(), v)
}

#[test]
fn functional_ops_by_name_match_the_functions() {
    let x = Tensor::new([[0.5f32, -1.0, 2.0], [-0.25, 3.0, -2.5]]).unwrap();
    let y = Tensor::new([[0.0f32, 1.0, 2.0], [1.0, 0.5, -1.0]]).unwrap();
    let w = Tensor::new([[1.0f32, 0.5, -1.0], [2.0, 0.0, 1.0]]).unwrap();
    let b = Tensor::new([0.5f32, -0.5]).unwrap();
    let tv = |t: &Tensor| Value::Tensor(t.clone());

    // defaults: negative_slope=0.01
    let got = t(api::call("leaky_relu", vec![tv(&x)], vec![]).unwrap());
    same(&got, &F::leaky_relu(&x, 0.01).unwrap());
    // keywords by torch's names, positionals in torch's order
    let got = t(api::call(
        "hardtanh",
        vec![tv(&x)],
        vec![
            kw("max_val", Value::Float(1.5)),
            kw("min_val", Value::Float(-2.0)),
        ],
    )
    .unwrap());
    same(&got, &F::hardtanh(&x, -2.0, 1.5).unwrap());
    let got = t(api::call("softmax", vec![tv(&x), Value::Int(1)], vec![]).unwrap());
    same(&got, &F::softmax(&x, Some(1)).unwrap());
    // an optional tensor left out, then given by keyword
    let got = t(api::call("linear", vec![tv(&x), tv(&w)], vec![]).unwrap());
    same(&got, &F::linear(&x, &w, None).unwrap());
    let got = t(api::call(
        "linear",
        vec![tv(&x)],
        vec![kw("weight", tv(&w)), kw("bias", tv(&b))],
    )
    .unwrap());
    same(&got, &F::linear(&x, &w, Some(&b)).unwrap());
    // reduction as torch's string; `None` takes the default
    let got = t(api::call(
        "mse_loss",
        vec![tv(&x), tv(&y)],
        vec![kw("reduction", Value::Str("sum".into()))],
    )
    .unwrap());
    same(&got, &F::mse_loss(&x, &y, Reduction::Sum).unwrap());
    let got = t(api::call(
        "smooth_l1_loss",
        vec![tv(&x), tv(&y)],
        vec![kw("reduction", Value::None), kw("beta", Value::Float(0.5))],
    )
    .unwrap());
    same(
        &got,
        &F::smooth_l1_loss(&x, &y, Reduction::Mean, 0.5).unwrap(),
    );
    let got = t(api::call(
        "layer_norm",
        vec![tv(&x), Value::List(vec![Value::Int(3)])],
        vec![kw("eps", Value::None)],
    )
    .unwrap());
    same(&got, &F::layer_norm(&x, &[3], None, None, 1e-5).unwrap());
}

#[test]
fn functional_binding_errors_are_pythons() {
    let x = Tensor::new([1.0f32, 2.0]).unwrap();
    let err = |r: borch_tensor::Result<Value>| match r {
        Err(e) => e,
        Ok(_) => panic!("expected an error"),
    };
    let e = err(api::call(
        "relu",
        vec![Value::Tensor(x.clone())],
        vec![kw("alpha", Value::Int(1))],
    ));
    assert!(
        matches!(&e, BorchError::Type(m) if m == "relu() got an unexpected keyword argument 'alpha'"),
        "{e}"
    );
    let e = err(api::call(
        "mse_loss",
        vec![Value::Tensor(x.clone())],
        vec![],
    ));
    assert!(
        matches!(&e, BorchError::Type(m) if m == "mse_loss() missing 1 required positional argument: 'target'"),
        "{e}"
    );
    let e = err(api::call("no_such_op", vec![], vec![]));
    assert!(
        matches!(&e, BorchError::Type(m) if m == "module 'torch.nn.functional' has no attribute 'no_such_op'"),
        "{e}"
    );
    let e = err(api::call(
        "l1_loss",
        vec![Value::Tensor(x.clone()), Value::Tensor(x)],
        vec![kw("reduction", Value::Str("avg".into()))],
    ));
    assert!(
        matches!(&e, BorchError::Value(m) if m.contains("avg is not a valid value for reduction")),
        "{e}"
    );
}

#[test]
fn convolution_and_pooling_by_name_take_torchs_argument_forms() {
    let x = borch_tensor::arange_to(2.0 * 2.0 * 4.0 * 4.0)
        .unwrap()
        .reshape(&[2, 2, 4, 4])
        .unwrap();
    let w = borch_tensor::ones(&[3, 2, 3, 3], borch_tensor::DType::Float32).unwrap();
    let tv = |t: &Tensor| Value::Tensor(t.clone());
    // padding as a string, stride as an int
    let got = t(api::call(
        "conv2d",
        vec![tv(&x), tv(&w)],
        vec![kw("padding", Value::Str("same".into()))],
    )
    .unwrap());
    let want = F::conv2d(&x, &w, None, &[1], &borch_tensor::Padding::Same, &[1], 1).unwrap();
    same(&got, &want);
    // torch.conv2d is the same function in torch's namespace
    let got = t(borch_tensor::api::call(
        "conv2d",
        false,
        vec![tv(&x), tv(&w), Value::None, Value::Int(2), Value::Int(1)],
        vec![],
    )
    .unwrap());
    let want = F::conv2d(
        &x,
        &w,
        None,
        &[2],
        &borch_tensor::Padding::Sizes(vec![1]),
        &[1],
        1,
    );
    same(&got, &want.unwrap());
    // return_indices gives (values, indices)
    let pair = api::call(
        "max_pool2d",
        vec![tv(&x), Value::Int(2)],
        vec![kw("return_indices", Value::Bool(true))],
    )
    .unwrap();
    let Value::List(items) = pair else {
        panic!("max_pool2d(return_indices=True) returns a pair")
    };
    assert_eq!(items.len(), 2);
    let got = t(api::call(
        "adaptive_avg_pool2d",
        vec![tv(&x), Value::List(vec![Value::Int(1), Value::None])],
        vec![],
    )
    .unwrap());
    assert_eq!(got.shape(), &[2, 2, 1, 4]);
    let err = api::call(
        "conv2d",
        vec![tv(&x), tv(&w)],
        vec![kw("padding", Value::Str("full".into()))],
    );
    assert_eq!(
        err.unwrap_err(),
        BorchError::Runtime("Invalid padding string: 'full'".into())
    );
}

#[test]
fn module_classes_build_by_name_with_torchs_errors() {
    use borch_nn::api::modules::{build_module, classes, find};
    let lin = build_module(
        "Linear",
        vec![Value::Int(3), Value::Int(2)],
        vec![kw("bias", Value::Bool(false))],
    )
    .unwrap();
    assert_eq!(
        lin.repr(),
        "Linear(in_features=3, out_features=2, bias=False)"
    );
    let conv = build_module(
        "Conv2d",
        vec![Value::Int(1), Value::Int(4), Value::Int(3)],
        vec![kw("padding", Value::Str("same".into()))],
    )
    .unwrap();
    assert_eq!(conv.name(), "Conv2d");
    let msg = |r: borch_tensor::Result<Box<dyn borch_nn::Module>>| match r {
        Ok(m) => panic!("accepted: {}", m.repr()),
        Err(e) => (e.kind(), e.to_string()),
    };
    let (kind, text) = msg(build_module("Linear", vec![Value::Int(3)], vec![]));
    assert_eq!(kind, BorchError::Type(String::new()).kind());
    assert_eq!(
        text,
        "Linear() missing 1 required positional argument: 'out_features'"
    );
    let (_, text) = msg(build_module(
        "Linear",
        vec![Value::Int(3), Value::Int(2)],
        vec![kw("bais", Value::Bool(false))],
    ));
    assert_eq!(text, "Linear() got an unexpected keyword argument 'bais'");
    let (_, text) = msg(build_module(
        "Linear",
        vec![Value::Str("a".into()), Value::Int(2)],
        vec![],
    ));
    assert_eq!(
        text,
        "Linear(): argument 'in_features' (position 1) must be int, not str"
    );
    let (_, text) = msg(build_module("Linaer", vec![], vec![]));
    assert_eq!(text, "module 'torch.nn' has no attribute 'Linaer'");
    let (_, text) = msg(build_module("ReLU", vec![Value::Bool(true)], vec![]));
    assert_eq!(
        text,
        "ReLU(inplace=True): borch's modules have no in-place form"
    );
    let (_, text) = msg(build_module(
        "MSELoss",
        vec![],
        vec![kw("reduction", Value::Str("avg".into()))],
    ));
    assert_eq!(text, "avg is not a valid value for reduction");
    assert!(classes().len() >= 38, "the 38 classes borch had before the catalog");
    assert!(
        find("CrossEntropyLoss")
            .unwrap()
            .signature
            .starts_with("weight: Tensor = None")
    );
}
