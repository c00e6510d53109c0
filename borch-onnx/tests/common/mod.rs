//! The models the ONNX tests export: an MLP, a CNN (unfused and fused) and the CIFAR ResNet-18
//! at a reduced width (unfused and fused), in eval mode with running statistics that moved.

#![allow(dead_code)]

use borch_nn::utils::fusion::fuse_for_eval;
use borch_nn::{
    AdaptiveAvgPool2d, AvgPool2d, BatchNorm2d, Conv2d, ConvOptions, ConvTranspose2d,
    ConvTransposeOptions, Dropout, Flatten, GELU, LayerNorm, LeakyReLU, Linear, LogSoftmax,
    MaxPool2d, Module, ReLU, Sequential, Sigmoid, Softmax, Tanh, sequential,
};
use borch_tensor::{Padding, Result, Tensor, manual_seed, randn};
use borch_vision::models::{ResNetOptions, cifar_resnet18_with};

pub fn mlp() -> Result<Box<dyn Module>> {
    Ok(Box::new(sequential![
        Linear::new(16, 32)?,
        ReLU::new(),
        Dropout::new(0.2)?,
        Linear::new(32, 32)?,
        GELU::new("none"),
        LayerNorm::new(&[32])?,
        Linear::new(32, 24)?,
        Tanh::new(),
        Linear::new(24, 10)?,
        LogSoftmax::new(Some(1)),
    ]))
}

pub fn cnn() -> Result<Box<dyn Module>> {
    let dilated = ConvOptions::default()
        .stride(&[2])
        .padding(Padding::Sizes(vec![2]))
        .dilation(&[2])
        .groups(2);
    let up = ConvTransposeOptions {
        stride: vec![2],
        ..ConvTransposeOptions::default()
    };
    Ok(Box::new(sequential![
        Conv2d::with_options(
            3,
            8,
            &[3],
            ConvOptions::default().padding(Padding::Sizes(vec![1]))
        )?,
        BatchNorm2d::new(8)?,
        ReLU::new(),
        MaxPool2d::new(&[2]),
        Conv2d::with_options(8, 16, &[3], dilated)?,
        BatchNorm2d::new(16)?,
        LeakyReLU::new(0.1),
        ConvTranspose2d::with_options(16, 8, &[2], up)?,
        Sigmoid::new(),
        AvgPool2d::new(&[2]),
        AdaptiveAvgPool2d::new(&[Some(1)]),
        Flatten::new(),
        Linear::new(8, 10)?,
        Softmax::new(Some(1)),
    ]))
}

/// Padding (reflect, and zeros through `cat`) and resampling, composed of primitives in borch
/// (no Pad/Resize node yet).
pub fn pad_upsample() -> Result<Box<dyn Module>> {
    use borch_nn::api::modules::build_module;
    use borch_tensor::api::Value;
    Ok(Box::new(Sequential::new(vec![
        build_module("ReflectionPad2d", vec![Value::Int(1)], vec![])?,
        build_module("Upsample", vec![Value::None, Value::Float(2.0)], vec![])?,
        Box::new(Conv2d::new(2, 3, &[3])?),
    ])))
}

pub fn resnet() -> Result<Box<dyn Module>> {
    Ok(Box::new(cifar_resnet18_with(ResNetOptions {
        num_classes: 10,
        width: 8,
        ..ResNetOptions::default()
    })?))
}

/// `build()` after `manual_seed(seed)`, three training forwards (so BatchNorm's running
/// statistics are not their initial values), then eval (and fused when `fused`).
pub fn prepared(build: Builder, input: &[usize], fused: bool) -> Result<Box<dyn Module>> {
    manual_seed(7);
    let mut m = build()?;
    for _ in 0..3 {
        let x = randn(input, None)?;
        borch_autograd::no_grad(|| m.forward(&x))?;
    }
    m.eval();
    if fused {
        fuse_for_eval(m.as_mut())?;
        // fuse_modules' new modules start in training mode, as torch's do.
        m.eval();
    }
    Ok(m)
}

pub type Builder = fn() -> Result<Box<dyn Module>>;

/// The model cases: name, builder, input shape (batch first), fused.
pub fn cases() -> Vec<(&'static str, Builder, Vec<usize>, bool)> {
    vec![
        ("mlp", mlp as Builder, vec![2, 16], false),
        ("cnn", cnn, vec![2, 3, 12, 12], false),
        ("cnn_fused", cnn, vec![2, 3, 12, 12], true),
        ("pad_upsample", pad_upsample, vec![2, 2, 5, 5], false),
        ("resnet18_cifar_w8", resnet, vec![2, 3, 16, 16], false),
        ("resnet18_cifar_w8_fused", resnet, vec![2, 3, 16, 16], true),
    ]
}

pub fn input(shape: &[usize], batch: usize) -> Result<Tensor> {
    let mut s = shape.to_vec();
    s[0] = batch;
    randn(&s, None)
}
