//! A target out of range is found by the GPU and reported at the next readback on the device,
//! whichever tensor it reads: this test has its own binary so that no other test's readback
//! receives it.

use borch_nn::{Reduction, functional as F};
use borch_tensor::{Tensor, randn};
#[test]
fn out_of_range_targets_are_reported_at_readback() {
    let x = randn(&[2, 3], None).unwrap();
    let t = Tensor::new([1i64, 7]).unwrap();
    let loss = F::cross_entropy(&x, &t, None, -100, Reduction::Mean, 0.0).unwrap();
    let e = loss.item_blocking().unwrap_err();
    // torch raises IndexError("Target 7 is out of bounds.") at once; the gather inside
    // cross_entropy reports it at the readback, by its name.
    assert_eq!(
        e.to_string(),
        "index 7 is out of bounds for dimension 1 with size 3 (raised by gather(); index errors \
         are found on the GPU and reported at the next read)"
    );
}
