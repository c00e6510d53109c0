//! `fuse_for_eval` on torchvision's ResNets: every Conv-BN(-Add)(-ReLU) of an eval model becomes
//! one fused convolution, the logits stay those of the unfused model within 1e-5, and the CIFAR
//! ResNet-18's eval forward is 22 dispatches (20 convolutions, the adaptive average pool's mean,
//! the linear).

use borch_autograd::no_grad;
use borch_nn::Module;
use borch_nn::utils::fusion::fuse_for_eval;
use borch_tensor::{Result, Tensor, default_device, manual_seed, randn};
use borch_vision::models::{ResNet, ResNetOptions, cifar_resnet18_with, resnet50_with};

/// The device's dispatch counter is shared by the tests of this binary (parallel threads).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn options(width: usize) -> ResNetOptions {
    ResNetOptions {
        num_classes: 10,
        width,
        ..ResNetOptions::default()
    }
}

/// Two train forwards (running statistics away from 0 and 1), then eval.
fn warmed(mut model: ResNet, x: &Tensor) -> Result<ResNet> {
    for _ in 0..2 {
        model.forward(x)?;
    }
    model.eval();
    Ok(model)
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f32::max)
}

fn check(mut model: ResNet, x: &Tensor) -> Result<u64> {
    let before: Vec<f32> = no_grad(|| model.forward(x))?.to_vec_blocking()?;
    fuse_for_eval(&mut model)?;
    let device = default_device()?;
    no_grad(|| model.forward(x))?;
    let start = device.dispatches();
    let after: Vec<f32> = no_grad(|| model.forward(x))?.to_vec_blocking()?;
    let dispatches = device.dispatches() - start;
    let scale = before.iter().fold(1.0f32, |m, v| m.max(v.abs()));
    let diff = max_diff(&before, &after);
    assert!(
        diff <= 1e-5 * scale,
        "fused logits differ by {diff} (scale {scale})"
    );
    Ok(dispatches)
}

#[test]
fn cifar_resnet18_fused_eval_forward_is_22_dispatches() -> Result<()> {
    // The whole test: the device's dispatch counter and the seed are process-wide.
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    manual_seed(0);
    let x = randn(&[2, 3, 32, 32], None)?;
    let model = warmed(cifar_resnet18_with(options(8))?, &x)?;
    assert_eq!(check(model, &x)?, 22);
    Ok(())
}

#[test]
fn resnet50_bottlenecks_fuse_too() -> Result<()> {
    // The whole test: the device's dispatch counter and the seed are process-wide.
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    manual_seed(0);
    let x = randn(&[2, 3, 32, 32], None)?;
    let model = warmed(resnet50_with(options(8))?, &x)?;
    // 53 convolutions (stem, 16 blocks x 3, 4 shortcuts), then the pools and fc (4).
    assert_eq!(check(model, &x)?, 57);
    Ok(())
}
