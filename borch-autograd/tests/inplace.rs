//! In-place ops under autograd, against torch 2.15's behaviour and messages (each expected
//! string and number below was printed by torch): the leaf and view-of-leaf refusals, the version
//! counter caught at backward, and gradients that follow the history each use read.

use borch_autograd::{Backward, no_grad};
use borch_tensor::api::{Value, call};
use borch_tensor::{ErrorKind, Tensor};

fn leaf(values: [f32; 3]) -> Tensor {
    let t = Tensor::new(values).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn method(name: &str, t: &Tensor, args: Vec<Value>) -> borch_tensor::Result<Value> {
    let mut positional = vec![Value::Tensor(t.clone())];
    positional.extend(args);
    call(name, true, positional, vec![])
}

const HINT: &str = "Hint: enable anomaly detection to find the operation that failed to compute \
its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).";

#[test]
fn a_leaf_that_requires_grad_is_refused() {
    let x = leaf([1.0, 2.0, 3.0]);
    let e = method("add_", &x, vec![Value::Float(1.0)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert_eq!(
        e.to_string(),
        "a leaf Variable that requires grad is being used in an in-place operation."
    );
    let e = method("zero_", &x.narrow(0, 0, 2).unwrap(), vec![]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a view of a leaf Variable that requires grad is being used in an in-place operation."
    );
    // Under no_grad the write is allowed (an optimizer step).
    no_grad(|| method("mul_", &x, vec![Value::Float(2.0)])).unwrap();
    assert_eq!(x.to_vec_blocking::<f32>().unwrap(), [2.0, 4.0, 6.0]);
    assert_eq!(x.version(), 1);
}

#[test]
fn a_saved_input_modified_in_place_fails_at_backward() {
    // torch: a = x * 2; y = a.sin(); a.add_(1); y.sum().backward()
    let x = leaf([1.0, 2.0, 3.0]);
    let a = x.mul(2.0).unwrap();
    let y = a.sin().unwrap();
    a.add_(1.0, 1.0).unwrap();
    let e = y.sum(None, false).unwrap().backward().unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "one of the variables needed for gradient computation has been modified by an \
             inplace operation: [torch.FloatTensor [3]], which is output 0 of Add, is at version \
             1; expected version 0 instead. {HINT}"
        )
    );
}

#[test]
fn a_saved_output_modified_in_place_fails_at_backward() {
    // torch: a = x.clone(); a.exp_(); a.mul_(2); a.sum().backward()
    let x = leaf([1.0, 2.0, 3.0]);
    let a = x.deep_clone().unwrap();
    method("exp_", &a, vec![]).unwrap();
    a.mul_(2.0).unwrap();
    let e = a.sum(None, false).unwrap().backward().unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "one of the variables needed for gradient computation has been modified by an \
             inplace operation: [torch.FloatTensor [3]], which is output 0 of Exp, is at version \
             2; expected version 1 instead. {HINT}"
        )
    );
    // A saved leaf changed under no_grad: torch names no node.
    let x = leaf([1.0, 2.0, 3.0]);
    let y = x.sin().unwrap();
    no_grad(|| x.add_(1.0, 1.0)).unwrap();
    let e = y.sum(None, false).unwrap().backward().unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "one of the variables needed for gradient computation has been modified by an \
             inplace operation: [torch.FloatTensor [3]] is at version 1; expected version 0 \
             instead. {HINT}"
        )
    );
}

#[test]
fn uses_before_an_in_place_write_keep_the_history_they_read() {
    // torch: x = ones(3); a = x * 2; b = a * 3; a.mul_(5); (b.sum() + a.sum()).backward()
    // gives x.grad = [16, 16, 16].
    let x = leaf([1.0, 1.0, 1.0]);
    let a = x.mul(2.0).unwrap();
    let b = a.mul(3.0).unwrap();
    a.mul_(5.0).unwrap();
    let total = b
        .sum(None, false)
        .unwrap()
        .add(a.sum(None, false).unwrap())
        .unwrap();
    total.backward().unwrap();
    assert_eq!(
        x.grad().unwrap().to_vec_blocking::<f32>().unwrap(),
        [16.0, 16.0, 16.0]
    );
    assert!(!a.is_leaf());
}

#[test]
fn a_plain_tensor_written_from_one_that_requires_grad_joins_the_graph() {
    // torch: a = zeros(3); a.add_(w); (a * a).sum().backward() gives w.grad = 2 w.
    let w = leaf([1.0, -2.0, 0.5]);
    let a = borch_tensor::zeros(&[3], borch_tensor::DType::Float32).unwrap();
    a.add_(&w, 1.0).unwrap();
    assert!(a.requires_grad() && !a.is_leaf());
    a.mul(&a)
        .unwrap()
        .sum(None, false)
        .unwrap()
        .backward()
        .unwrap();
    assert_eq!(
        w.grad().unwrap().to_vec_blocking::<f32>().unwrap(),
        [2.0, -4.0, 1.0]
    );
}

#[test]
fn in_place_writes_count_versions() {
    let x = Tensor::new([1.0f32, 2.0, 3.0]).unwrap();
    assert_eq!(x.version(), 0);
    x.add_(1.0, 1.0).unwrap();
    x.mul_(2.0).unwrap();
    assert_eq!(x.version(), 2);
    // A view shares its base's counter.
    x.narrow(0, 1, 1).unwrap().zero_().unwrap();
    assert_eq!(x.version(), 3);
}
