//! Bad input gets torch's error, never a panic, and the tensors involved stay usable.

use borch_tensor::{BorchError, DType, ErrorKind, Scalar, Tensor, arange, full};

fn kind(r: borch_tensor::Result<Tensor>) -> (ErrorKind, String) {
    let e: BorchError = r.expect_err("bad input must be refused");
    (e.kind(), e.to_string())
}

#[test]
fn bad_input_is_an_error_and_nothing_is_lost() {
    let a = Tensor::new([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]).unwrap();
    let (k, m) = kind(a.add(Tensor::new([1.0f32, 2.0, 3.0, 4.0]).unwrap()));
    assert_eq!(k, ErrorKind::Runtime);
    assert_eq!(
        m,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
    );
    let (k, m) = kind(a.transpose(0, 2));
    assert_eq!(k, ErrorKind::Index);
    assert_eq!(
        m,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    let (k, _) = kind(a.view(&[4, -1]));
    assert_eq!(k, ErrorKind::Runtime);
    let (k, _) = kind(a.slice(0, None, None, 0));
    assert_eq!(k, ErrorKind::Value);
    let b = Tensor::new([true, false]).unwrap();
    let (k, _) = kind(b.neg());
    assert_eq!(k, ErrorKind::NotImplemented);
    let (k, _) = kind(Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[2, 2]));
    assert_eq!(k, ErrorKind::Runtime);
    let (k, m) = kind(Tensor::from_slice(&[1i64 << 40], &[1]));
    assert_eq!(k, ErrorKind::Runtime);
    assert!(m.contains("out of range for borch's int64"));
    let (k, _) = kind(full(&[2], Scalar::Int(1 << 40), Some(DType::Int64)));
    assert_eq!(k, ErrorKind::Runtime);
    let e = a.item_blocking().unwrap_err();
    assert_eq!(
        e.to_string(),
        "a Tensor with 6 elements cannot be converted to Scalar"
    );
    let (k, _) = kind(arange(0, 5, 0));
    assert_eq!(k, ErrorKind::Runtime);
    // After all of that the same tensors still compute.
    let sum = a.add(1.0).unwrap().to_vec_blocking::<f32>().unwrap();
    assert_eq!(sum, vec![2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    assert_eq!(
        b.logical_not().unwrap().to_vec_blocking::<bool>().unwrap(),
        vec![false, true]
    );
}
