//! ConvTranspose's `forward(input, output_size)`: the output padding it implies, and torch's
//! ValueErrors (messages from torch 2.15).

use borch_nn::{ConvTranspose2d, ConvTransposeOptions, Module};
use borch_tensor::{manual_seed, randn};

#[test]
fn output_size_picks_the_output_padding() {
    manual_seed(0);
    let options = ConvTransposeOptions {
        stride: vec![2],
        ..ConvTransposeOptions::default()
    };
    let m = ConvTranspose2d::with_options(2, 3, &[3], options).unwrap();
    let x = randn(&[1, 2, 4, 4], None).unwrap();
    let plain = m.forward(&x).unwrap();
    assert_eq!(plain.shape(), [1, 3, 9, 9]);
    let bigger = m.forward_with_output_size(&x, &[10, 10]).unwrap();
    assert_eq!(bigger.shape(), [1, 3, 10, 10]);
    // The extra row and column get no window: the first 9 x 9 are the plain output.
    let corner = bigger.narrow(2, 0, 9).unwrap().narrow(3, 0, 9).unwrap();
    let (a, b) = (
        corner
            .contiguous()
            .unwrap()
            .to_vec_blocking::<f32>()
            .unwrap(),
        plain.to_vec_blocking::<f32>().unwrap(),
    );
    assert!(a.iter().zip(&b).all(|(p, q)| (p - q).abs() < 1e-5));
    let same = m.forward_with_output_size(&x, &[1, 3, 9, 9]).unwrap();
    assert_eq!(same.shape(), [1, 3, 9, 9]);
    let e = m.forward_with_output_size(&x, &[12, 12]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "requested an output size of [12, 12], but valid sizes range from [9, 9] to [10, 10] \
         (for an input of torch.Size([4, 4]))"
    );
    let e = m.forward_with_output_size(&x, &[1, 2, 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements (got 3)"
    );
}
