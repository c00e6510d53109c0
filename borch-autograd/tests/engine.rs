//! The engine on small graphs whose gradients are known in closed form.

use borch_autograd::{Backward, backward, grad, has_map_derivative, no_grad};
use borch_tensor::{ErrorKind, Tensor, ops::table};

fn vec(t: &Tensor) -> Vec<f32> {
    t.to_vec_blocking::<f32>().unwrap()
}

#[test]
fn every_float_table_op_has_a_derivative() {
    for op in table::ALL {
        if !op.predicate && !op.integral {
            assert!(
                has_map_derivative(op.name),
                "no derivative for table op '{}'",
                op.name
            );
        }
    }
}

#[test]
fn chain_rule_through_broadcast_and_views() {
    let x = Tensor::new([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]).unwrap();
    x.set_requires_grad(true).unwrap();
    let b = Tensor::new([1.0f32, -1.0, 0.5]).unwrap();
    b.set_requires_grad(true).unwrap();
    // y = (x.t() * 2).t() * b + x ; d/dx = 2b + 1 per element, d/db = 2 * sum over rows of x
    let y = x
        .t()
        .unwrap()
        .mul(2.0)
        .unwrap()
        .t()
        .unwrap()
        .mul(&b)
        .unwrap()
        .add(&x)
        .unwrap();
    backward(&y, Some(&y.ones_like().unwrap()), false).unwrap();
    assert_eq!(
        vec(&x.grad().unwrap()),
        vec![3.0, -1.0, 2.0, 3.0, -1.0, 2.0]
    );
    assert_eq!(vec(&b.grad().unwrap()), vec![10.0, 14.0, 18.0]);
    assert!(x.is_leaf() && !y.is_leaf());
}

#[test]
fn grads_accumulate_and_graph_is_freed() {
    let x = Tensor::new([2.0f32]).unwrap();
    x.set_requires_grad(true).unwrap();
    let y = x.exp().unwrap().sum(None, false).unwrap();
    y.backward_with(None, true).unwrap();
    y.backward().unwrap();
    let e = 2.0f32.exp();
    let g = vec(&x.grad().unwrap())[0];
    assert!((g - 2.0 * e).abs() < 1e-4, "accumulated twice: {g}");
    let err = y.backward().unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Trying to backward through the graph a second time")
    );
}

#[test]
fn no_grad_records_nothing_and_grad_returns_without_accumulating() {
    let x = Tensor::new([1.0f32, 2.0]).unwrap();
    x.set_requires_grad(true).unwrap();
    let y = no_grad(|| x.mul(3.0).unwrap());
    assert!(!y.requires_grad());
    let z = x.square().unwrap().sum(None, false).unwrap();
    let g = grad(&[z], std::slice::from_ref(&x), &[None], None, false, false).unwrap();
    assert_eq!(vec(g[0].as_ref().unwrap()), vec![2.0, 4.0]);
    assert!(x.grad().is_none());
    let e = Tensor::new([1.0f32]).unwrap().backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert_eq!(
        e.to_string(),
        "element 0 of tensors does not require grad and does not have a grad_fn"
    );
}

#[test]
fn inplace_on_a_leaf_that_requires_grad_is_refused() {
    let x = Tensor::new([1.0f32, 2.0]).unwrap();
    x.set_requires_grad(true).unwrap();
    let e = x.fill_(0.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a leaf Variable that requires grad is being used in an in-place operation."
    );
    no_grad(|| x.fill_(0.0)).unwrap();
}
