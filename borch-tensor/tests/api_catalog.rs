//! The op catalog that bindings forward to: every signature parses, every table op is reachable,
//! and calls by name bind arguments the way Python does, with Python's and torch's messages.

use borch_tensor::api::{self, Value};
use borch_tensor::{BorchError, Tensor, ops::table};

fn t(v: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

fn tensor_of(v: Value) -> Tensor {
    match v {
        Value::Tensor(t) => t,
        other => panic!("expected a tensor, got {other:?}"),
    }
}

fn type_error(r: borch_tensor::Result<Value>) -> String {
    match r {
        Err(BorchError::Type(m)) => m,
        other => panic!("expected a TypeError, got {other:?}"),
    }
}

#[test]
fn every_signature_parses_and_names_are_unique_per_form() {
    let entries = api::entries();
    assert!(entries.len() > 150, "{} entries", entries.len());
    for (i, e) in entries.iter().enumerate() {
        for later in &entries[i + 1..] {
            let clash = e.name == later.name
                && ((e.is_method() && later.is_method())
                    || (e.is_function() && later.is_function()));
            assert!(!clash, "{} is listed twice", e.name);
        }
    }
}

#[test]
fn every_table_op_is_reachable_by_its_torch_name_or_through_an_argument() {
    let reached_through_argument = ["div_floor", "div_trunc", "gelu_tanh"];
    for op in table::ALL {
        if reached_through_argument.contains(&op.name) {
            continue;
        }
        assert!(
            api::find(op.name, true).is_some(),
            "{} has no catalog entry",
            op.name
        );
    }
}

#[test]
fn keywords_and_defaults_bind_like_python() {
    let x = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let kw = vec![
        ("dim".to_string(), Value::Int(1)),
        ("keepdim".to_string(), Value::Bool(true)),
    ];
    let got = tensor_of(api::call("sum", true, vec![Value::Tensor(x.clone())], kw).unwrap());
    assert_eq!(got.shape(), &[2, 1]);
    assert_eq!(got.to_vec_blocking::<f32>().unwrap(), vec![6.0, 15.0]);
    let all = tensor_of(api::call("sum", true, vec![Value::Tensor(x.clone())], vec![]).unwrap());
    assert_eq!(all.item_blocking().unwrap().to_f64(), 21.0);
    // None where the default is not None takes the default (JavaScript's undefined).
    let none = api::call(
        "sum",
        true,
        vec![Value::Tensor(x.clone()), Value::Int(0), Value::None],
        vec![],
    );
    assert_eq!(tensor_of(none.unwrap()).shape(), &[3]);
    let added = api::call(
        "add",
        false,
        vec![Value::Tensor(x.clone()), Value::Int(1)],
        vec![("alpha".into(), Value::Float(2.0))],
    );
    assert_eq!(
        tensor_of(added.unwrap()).to_vec_blocking::<f32>().unwrap()[0],
        3.0
    );
}

#[test]
fn methods_and_functions_of_one_name_can_differ() {
    let c = Tensor::from_slice(&[true, false], &[2]).unwrap();
    let x = t(&[1.0, 2.0], &[2]);
    let y = t(&[10.0, 20.0], &[2]);
    let method = api::call(
        "where",
        true,
        vec![
            Value::Tensor(x.clone()),
            Value::Tensor(c.clone()),
            Value::Tensor(y.clone()),
        ],
        vec![],
    );
    let function = api::call(
        "where",
        false,
        vec![Value::Tensor(c), Value::Tensor(x), Value::Tensor(y)],
        vec![],
    );
    let expect = vec![1.0f32, 20.0];
    assert_eq!(
        tensor_of(method.unwrap()).to_vec_blocking::<f32>().unwrap(),
        expect
    );
    assert_eq!(
        tensor_of(function.unwrap())
            .to_vec_blocking::<f32>()
            .unwrap(),
        expect
    );
}

#[test]
fn bad_calls_raise_type_errors_in_pythons_words() {
    let x = Value::Tensor(t(&[1.0], &[1]));
    let unexpected = api::call(
        "sum",
        true,
        vec![x.clone()],
        vec![("axis".into(), Value::Int(0))],
    );
    assert_eq!(
        type_error(unexpected),
        "sum() got an unexpected keyword argument 'axis'"
    );
    let missing = api::call("transpose", true, vec![x.clone(), Value::Int(0)], vec![]);
    assert_eq!(
        type_error(missing),
        "transpose() missing 1 required positional argument: 'dim1'"
    );
    let too_many = api::call("t", true, vec![x.clone(), Value::Int(0)], vec![]);
    assert_eq!(
        type_error(too_many),
        "t() takes 1 positional arguments but 2 were given"
    );
    let wrong = api::call("sum", true, vec![x.clone(), Value::Str("a".into())], vec![]);
    assert_eq!(
        type_error(wrong),
        "sum(): argument 'dim' (position 1) must be tuple of ints, not str"
    );
    // torch's positions: from 1 after a method's self; a function's count its first argument;
    // a keyword argument has none. A binding's own value (`Value::Other`) is named as it says.
    let other = || Value::Other("Map".into());
    let method = api::call("matmul", true, vec![x.clone(), other()], vec![]);
    assert_eq!(
        type_error(method),
        "matmul(): argument 'other' (position 1) must be Tensor, not Map"
    );
    let function = api::call("matmul", false, vec![x.clone(), other()], vec![]);
    assert_eq!(
        type_error(function),
        "matmul(): argument 'other' (position 2) must be Tensor, not Map"
    );
    let keyword = api::call(
        "matmul",
        true,
        vec![x.clone()],
        vec![("other".into(), other())],
    );
    assert_eq!(
        type_error(keyword),
        "matmul(): argument 'other' must be Tensor, not Map"
    );
    let unknown = api::call("foo_bar", true, vec![x], vec![]);
    assert_eq!(
        type_error(unknown),
        "'Tensor' object has no attribute 'foo_bar'"
    );
}

#[test]
fn varargs_sizes_are_taken_as_one_list_like_torch() {
    let x = Value::Tensor(t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[6]));
    let viewed = api::call(
        "view",
        true,
        vec![x.clone(), Value::Int(2), Value::Int(3)],
        vec![],
    );
    assert_eq!(tensor_of(viewed.unwrap()).shape(), &[2, 3]);
    let listed = api::call(
        "view",
        true,
        vec![x, Value::List(vec![Value::Int(3), Value::Int(-1)])],
        vec![],
    );
    assert_eq!(tensor_of(listed.unwrap()).shape(), &[3, 2]);
    let zeros = api::call("zeros", false, vec![Value::Int(2), Value::Int(3)], vec![]);
    assert_eq!(tensor_of(zeros.unwrap()).shape(), &[2, 3]);
    let y = Value::Tensor(t(&[1.0, 2.0, 3.0, 4.0], &[2, 2]));
    let rolled = api::call("roll", true, vec![y, Value::Int(1), Value::Int(0)], vec![]);
    let rolled = tensor_of(rolled.unwrap()).to_vec_blocking::<f32>().unwrap();
    assert_eq!(
        rolled,
        vec![3.0, 4.0, 1.0, 2.0],
        "roll(1, 0) is shifts=1, dims=0, not varargs"
    );
}

/// torch's factories take `requires_grad=`; torch 2.15 refuses it for int dtypes with
/// "Only Tensors of floating point and complex dtype can require gradients".
#[test]
fn factories_take_requires_grad() {
    let kw = |v: bool| vec![("requires_grad".to_string(), Value::Bool(v))];
    let z =
        tensor_of(api::call("zeros", false, vec![Value::Int(2), Value::Int(3)], kw(true)).unwrap());
    assert!(z.requires_grad() && z.is_leaf());
    assert_eq!(z.shape(), &[2, 3]);
    let r = tensor_of(api::call("randn", false, vec![Value::Int(4)], vec![]).unwrap());
    assert!(!r.requires_grad());
    let like = tensor_of(api::call("ones_like", false, vec![Value::Tensor(r)], kw(true)).unwrap());
    assert!(like.requires_grad());
    match api::call(
        "randint",
        false,
        vec![
            Value::Int(0),
            Value::Int(3),
            Value::List(vec![Value::Int(2)]),
        ],
        kw(true),
    ) {
        Err(BorchError::Runtime(m)) => {
            assert_eq!(
                m,
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        }
        other => panic!("expected torch's RuntimeError, got {other:?}"),
    }
}
