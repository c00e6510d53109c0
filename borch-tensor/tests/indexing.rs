//! `index` (Python subscripts) against the explicit view calls torch documents for each item:
//! `t[i]` is `select(0, i)`, `t[a:b:s]` is `slice(0, a, b, s)`, `t[None]` is `unsqueeze(0)`, `...`
//! skips dims, a 1-D long tensor is `index_select`. The expected values are those calls' results.

use borch_tensor::api::{self, Value};
use borch_tensor::{BorchError, Tensor, arange};

fn a() -> Tensor {
    arange(0.0, 24.0, 1.0).unwrap().view(&[2, 3, 4]).unwrap()
}
fn n(v: i64) -> Value {
    Value::Int(v)
}
fn sl(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Value {
    let o = |v: Option<i64>| v.map_or(Value::None, Value::Int);
    Value::List(vec![o(start), o(stop), o(step)])
}
fn idx(t: &Tensor, items: Vec<Value>) -> borch_tensor::Result<Tensor> {
    match api::call(
        "index",
        true,
        vec![Value::Tensor(t.clone()), Value::List(items)],
        vec![],
    )? {
        Value::Tensor(t) => Ok(t),
        other => panic!("index returned {other:?}"),
    }
}
fn same(got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape(), want.shape());
    assert_eq!(
        got.to_vec_blocking::<f32>().unwrap(),
        want.to_vec_blocking::<f32>().unwrap()
    );
}

#[test]
fn subscripts_equal_their_explicit_view_calls() {
    let t = a();
    // t[1]
    same(&idx(&t, vec![n(1)]).unwrap(), &t.select(0, 1).unwrap());
    // t[-1, 2]
    same(
        &idx(&t, vec![n(-1), n(2)]).unwrap(),
        &t.select(0, -1).unwrap().select(0, 2).unwrap(),
    );
    // t[1:, ::2]
    same(
        &idx(&t, vec![sl(Some(1), None, None), sl(None, None, Some(2))]).unwrap(),
        &t.slice(0, Some(1), None, 1)
            .unwrap()
            .slice(1, None, None, 2)
            .unwrap(),
    );
    // t[..., None]
    same(
        &idx(&t, vec![Value::Str("...".into()), Value::None]).unwrap(),
        &t.unsqueeze(3).unwrap(),
    );
    // t[None, 0, ..., 1:3]
    same(
        &idx(
            &t,
            vec![
                Value::None,
                n(0),
                Value::Str("...".into()),
                sl(Some(1), Some(3), None),
            ],
        )
        .unwrap(),
        &t.unsqueeze(0)
            .unwrap()
            .select(1, 0)
            .unwrap()
            .narrow(2, 1, 2)
            .unwrap(),
    );
    // t[:, 1] with a stop past the end: t[:, 1, 2:100]
    same(
        &idx(
            &t,
            vec![sl(None, None, None), n(1), sl(Some(2), Some(100), None)],
        )
        .unwrap(),
        &t.select(1, 1).unwrap().narrow(1, 2, 2).unwrap(),
    );
    // t[:, idx] with a 1-D long tensor
    let positions = Tensor::from_slice(&[2i64, 0], &[2]).unwrap();
    same(
        &idx(
            &t,
            vec![sl(None, None, None), Value::Tensor(positions.clone())],
        )
        .unwrap(),
        &t.index_select(1, &positions).unwrap(),
    );
}

#[test]
fn bad_subscripts_raise_torchs_errors() {
    let t = a();
    let e = idx(&t, vec![n(5)]).unwrap_err();
    assert!(matches!(e, BorchError::Index(_)));
    assert_eq!(
        e.to_string(),
        "index 5 is out of bounds for dimension 0 with size 2"
    );
    let e = idx(&t, vec![n(0), n(0), n(0), n(0)]).unwrap_err();
    assert_eq!(e.to_string(), "too many indices for tensor of dimension 3");
    let e = idx(&t, vec![Value::Str("...".into()), Value::Str("...".into())]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "an index can only have a single ellipsis ('...')"
    );
    let mask = match api::call(
        "gt",
        true,
        vec![Value::Tensor(t.clone()), Value::Float(5.0)],
        vec![],
    ) {
        Ok(Value::Tensor(m)) => m,
        other => panic!("gt returned {other:?}"),
    };
    // t[mask] reads the mask back on native targets (values: the indexing goldens).
    assert!(idx(&t, vec![Value::Tensor(mask)]).is_ok());
    let e = idx(&t, vec![sl(None, None, Some(-1))]).unwrap_err();
    assert_eq!(e.to_string(), "step must be greater than zero");
}
