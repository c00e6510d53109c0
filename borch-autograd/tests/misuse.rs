//! Training misuse gets torch's errors (issue 9; messages as torch 2.11 words them): a grad of the wrong size or dtype, a tensor as
//! its own grad, backward through tensors a scope released. The tensors stay usable after.

use borch_autograd::Backward;
use borch_tensor::{DType, ErrorKind, Tensor, keep_alive, scope, zeros};

fn leaf() -> Tensor {
    let t = Tensor::new([1.0f32, 2.0, 3.0]).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

#[test]
fn assigned_grads_are_checked_as_torch_checks_them() {
    let w = leaf();
    let e = w
        .assign_grad(Some(zeros(&[4], DType::Float32).unwrap()))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Runtime);
    assert_eq!(
        e.to_string(),
        "attempting to assign a gradient of size '[4]' to a tensor of size '[3]'. Please ensure \
         that the gradient and the tensor are the same size"
    );
    let e = w
        .assign_grad(Some(zeros(&[3], DType::Int64).unwrap()))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "attempting to assign a gradient with dtype 'long int' to a tensor with grad_dtype \
             'Float'. The gradient must match the tensor's grad_dtype"
        ),
        "{e}"
    );
    let e = w.assign_grad(Some(w.clone())).unwrap_err();
    assert_eq!(e.to_string(), "can't assign Variable as its own grad");
    assert!(w.grad().is_none(), "a refused grad is not stored");
    w.assign_grad(Some(zeros(&[3], DType::Float32).unwrap()))
        .unwrap();
    w.assign_grad(None).unwrap();
    assert!(w.grad().is_none());
}

#[test]
fn backward_through_a_released_loss_is_refused() {
    let w = keep_alive(&leaf());
    let loss = scope(|_| w.square()?.sum(None, false)).unwrap();
    assert!(loss.is_released());
    let e = loss.backward().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Released);
    assert!(
        e.to_string().contains("was used after it was released"),
        "{e}"
    );
    assert!(w.grad().is_none());
    // The leaf still trains.
    w.square()
        .unwrap()
        .sum(None, false)
        .unwrap()
        .backward()
        .unwrap();
    assert_eq!(
        w.grad().unwrap().to_vec_blocking::<f32>().unwrap(),
        [2.0, 4.0, 6.0]
    );
}
