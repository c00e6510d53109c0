//! borch's own models for the bundled 8×8 digits (`data/digits/`, input `(N, 1, 8, 8)`): a
//! two-layer MLP and a small CNN with BatchNorm, each an `nn.Sequential` so their state_dict
//! keys are torch's (`1.weight`, `3.bias`, ...). Trained by `cargo xtask train-catalogue` and
//! shipped in `catalogue/` (see docs/vision.md, "Model catalogue").

use borch_nn::{BatchNorm2d, Conv2d, ConvOptions, Flatten, Linear, MaxPool2d, ReLU, Sequential};
use borch_tensor::{BorchError, Padding, Result};

/// Pixels of one digit image (8 × 8).
pub const DIGITS_PIXELS: usize = 64;

/// `digits_mlp(hidden=64, num_classes=10)`: `Sequential(Flatten(), Linear(64, hidden), ReLU(),
/// Linear(hidden, num_classes))`, initialised as torch's layers are (from the default
/// generator). Keys: `1.weight`, `1.bias`, `3.weight`, `3.bias`.
pub fn digits_mlp(hidden: usize, num_classes: usize) -> Result<Sequential> {
    positive(
        "digits_mlp",
        &[("hidden", hidden), ("num_classes", num_classes)],
    )?;
    Ok(Sequential::new(vec![
        Box::new(Flatten::new()),
        Box::new(Linear::new(DIGITS_PIXELS, hidden)?),
        Box::new(ReLU::new()),
        Box::new(Linear::new(hidden, num_classes)?),
    ]))
}

/// `digits_cnn(num_classes=10)`: `Sequential(Conv2d(1, 16, 3, padding=1), BatchNorm2d(16),
/// ReLU(), Conv2d(16, 32, 3, padding=1), BatchNorm2d(32), ReLU(), MaxPool2d(2), Flatten(),
/// Linear(512, num_classes))`. Keys: `0.*` and `3.*` (conv), `1.*` and `4.*` (BatchNorm, with
/// `running_mean`, `running_var`, `num_batches_tracked`), `8.*` (linear).
pub fn digits_cnn(num_classes: usize) -> Result<Sequential> {
    positive("digits_cnn", &[("num_classes", num_classes)])?;
    let conv = |i: usize, o: usize| {
        let options = ConvOptions::default().padding(Padding::Sizes(vec![1]));
        Conv2d::with_options(i, o, &[3], options)
    };
    Ok(Sequential::new(vec![
        Box::new(conv(1, 16)?),
        Box::new(BatchNorm2d::new(16)?),
        Box::new(ReLU::new()),
        Box::new(conv(16, 32)?),
        Box::new(BatchNorm2d::new(32)?),
        Box::new(ReLU::new()),
        Box::new(MaxPool2d::new(&[2])),
        Box::new(Flatten::new()),
        Box::new(Linear::new(32 * 4 * 4, num_classes)?),
    ]))
}

fn positive(model: &str, sizes: &[(&str, usize)]) -> Result<()> {
    match sizes.iter().find(|(_, v)| *v == 0) {
        Some((name, _)) => Err(BorchError::Value(format!(
            "{model}(): {name} must be a positive int"
        ))),
        None => Ok(()),
    }
}
