//! The models the ONNX tests export: an MLP, a CNN (unfused and fused) and the CIFAR ResNet-18
//! at a reduced width and torchvision's resnet18 (each unfused and fused), and padding and
//! resampling, in eval mode with running statistics that moved.

#![allow(dead_code)]

use borch_nn::utils::fusion::fuse_for_eval;
use borch_nn::{
    AdaptiveAvgPool2d, AvgPool2d, BatchNorm2d, Conv2d, ConvOptions, ConvTranspose2d,
    ConvTransposeOptions, Dropout, Flatten, GELU, LayerNorm, LeakyReLU, Linear, LogSoftmax,
    MaxPool2d, Module, ReLU, Sequential, Sigmoid, Softmax, Tanh, sequential,
};
use borch_tensor::{Padding, Result, Tensor, manual_seed, randn};
use borch_vision::models::{ResNetOptions, VisionTransformer, VitConfig, cifar_resnet18_with};

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

/// Every exportable padding mode (ONNX Pad) and interpolation mode (ONNX Resize), from sizes
/// and from scale factors, with and without align_corners.
pub fn pad_resize() -> Result<Box<dyn Module>> {
    use borch_nn::api::modules::build_module;
    use borch_tensor::api::Value;
    let ints = |v: &[i64]| Value::List(v.iter().map(|&i| Value::Int(i)).collect());
    let up = |size: Value, scale: Value, mode: &str, align: Value| {
        build_module(
            "Upsample",
            vec![size, scale, Value::Str(mode.into()), align],
            vec![],
        )
    };
    Ok(Box::new(Sequential::new(vec![
        build_module("ReflectionPad2d", vec![Value::Int(1)], vec![])?,
        build_module("ReplicationPad2d", vec![ints(&[1, 0, 2, 1])], vec![])?,
        build_module("ZeroPad2d", vec![Value::Int(1)], vec![])?,
        build_module(
            "ConstantPad2d",
            vec![ints(&[1, 2, 0, 1]), Value::Float(0.5)],
            vec![],
        )?,
        up(Value::None, Value::Float(2.0), "nearest", Value::None)?,
        Box::new(Conv2d::new(2, 3, &[3])?),
        up(ints(&[9, 11]), Value::None, "bilinear", Value::None)?,
        up(Value::None, Value::Float(1.5), "bicubic", Value::Bool(true))?,
        up(ints(&[7, 20]), Value::None, "nearest-exact", Value::None)?,
        up(
            Value::None,
            Value::Float(2.0),
            "bilinear",
            Value::Bool(false),
        )?,
        up(ints(&[10, 30]), Value::None, "bicubic", Value::None)?,
        up(ints(&[13, 17]), Value::None, "nearest", Value::None)?,
    ])))
}

/// torchvision's resnet18 at full width (1000 classes).
pub fn resnet18_full() -> Result<Box<dyn Module>> {
    Ok(Box::new(borch_vision::models::resnet18()?))
}

/// timm's VisionTransformer at a small size: 32×32 images, patches of 8 (17 tokens), width 48,
/// two blocks of three heads, 10 classes.
pub fn vit_small_cfg() -> Result<Box<dyn Module>> {
    Ok(Box::new(VisionTransformer::new(VitConfig {
        img_size: 32,
        patch_size: 8,
        embed_dim: 48,
        depth: 2,
        num_heads: 3,
        num_classes: 10,
        ..VitConfig::tiny()
    })?))
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
        ("pad_resize", pad_resize, vec![2, 2, 5, 5], false),
        ("resnet18_cifar_w8", resnet, vec![2, 3, 16, 16], false),
        ("resnet18_cifar_w8_fused", resnet, vec![2, 3, 16, 16], true),
        ("resnet18", resnet18_full, vec![2, 3, 64, 64], false),
        ("resnet18_fused", resnet18_full, vec![2, 3, 64, 64], true),
        ("vit_small_cfg", vit_small_cfg, vec![2, 3, 32, 32], false),
    ]
}

pub fn input(shape: &[usize], batch: usize) -> Result<Tensor> {
    let mut s = shape.to_vec();
    s[0] = batch;
    randn(&s, None)
}
