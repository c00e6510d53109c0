//! GPU dispatches of `nn.intrinsic` eval forwards (under `no_grad`, steady state), pinned.
//!
//! `borch_tensor::conv2d_fused` and `linear_relu` are one dispatch each: the implicit-GEMM
//! convolution and the matmul apply bias, residual add and ReLU in their epilogue.

use borch_autograd::no_grad;
use borch_nn::intrinsic::{
    ConvAddReLU2d, ConvBnReLU2d, ConvReLU2d, FoldCache, LinearReLU, conv_bn2d_forward,
};
use borch_nn::utils::fusion::fuse_for_eval;
use borch_nn::{BatchNorm2d, Conv2d, ConvOptions, Linear, Module, ReLU, sequential};
use borch_tensor::{Padding, Result, Tensor, default_device, manual_seed, randn};

/// One `conv2d_fused(..., residual=None, relu=true)` with a bias (as every folded conv has).
const FUSED_CONV_DISPATCHES: u64 = 1;
/// One `conv2d_fused(..., residual=Some, relu=true)`.
const FUSED_CONV_ADD_DISPATCHES: u64 = 1;
/// One `linear_relu` of a 2-D input with a bias.
const LINEAR_RELU_DISPATCHES: u64 = 1;

/// The device's dispatch counter is shared by the tests of this binary (parallel threads).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn count<T>(f: impl FnOnce() -> Result<T>) -> (u64, T) {
    let device = default_device().unwrap();
    let before = device.dispatches();
    let out = no_grad(f).unwrap();
    (device.dispatches() - before, out)
}

/// A 3x3 'same' convolution (with a bias: what a fold gives, so the counts compare).
fn conv3x3(cin: usize, cout: usize, bias: bool) -> Conv2d {
    let o = ConvOptions::default()
        .padding(Padding::Sizes(vec![1]))
        .bias(bias);
    Conv2d::with_options(cin, cout, &[3], o).unwrap()
}

/// A torchvision BasicBlock without downsampling: conv-bn-relu, conv-bn, add the input, relu;
/// after `fuse_for_eval` its eval forward is two `conv_bn2d_forward`s (BatchNorm folded,
/// residual and ReLU in the second's epilogue).
struct Block {
    conv1: Conv2d,
    bn1: BatchNorm2d,
    conv2: Conv2d,
    bn2: BatchNorm2d,
    fold1: FoldCache,
    fold2: FoldCache,
    fused: bool,
    training: bool,
}

impl Module for Block {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        if self.fused && !self.training {
            let y = conv_bn2d_forward(&self.conv1, &self.bn1, &self.fold1, x, None, true)?;
            return conv_bn2d_forward(&self.conv2, &self.bn2, &self.fold2, &y, Some(x), true);
        }
        let y = self.bn1.forward(&self.conv1.forward(x)?)?.relu()?;
        self.bn2.forward(&self.conv2.forward(&y)?)?.add(x)?.relu()
    }
    fn name(&self) -> String {
        "BasicBlock".into()
    }
    borch_nn::child_fields!(conv1, bn1, conv2, bn2);
    fn fuse_for_eval(&mut self) -> Result<()> {
        self.fused = true;
        Ok(())
    }
    borch_nn::training_flag!();
}

/// Train a BatchNorm's statistics away from (0, 1) so that a fold is not an identity.
fn warm(m: &mut dyn Module, x: &Tensor) {
    m.train(true);
    m.forward(x).unwrap();
    m.eval();
}

#[test]
fn conv_relu2d_eval_forward_is_one_fused_conv() {
    let _serial = serial();
    manual_seed(0);
    let mut m = ConvReLU2d::new(conv3x3(4, 8, true), ReLU::new());
    m.eval();
    let x = randn(&[2, 4, 6, 6], None).unwrap();
    let (n, _) = count(|| m.forward(&x));
    println!("conv_relu {n}");
    assert_eq!(n, FUSED_CONV_DISPATCHES);
}

#[test]
fn conv_add_relu2d_eval_forward_is_one_fused_conv() {
    let _serial = serial();
    manual_seed(0);
    let mut m = ConvAddReLU2d::new(conv3x3(4, 8, true), ReLU::new());
    m.eval();
    let x = randn(&[2, 4, 6, 6], None).unwrap();
    let r = randn(&[2, 8, 6, 6], None).unwrap();
    let (n, _) = count(|| m.forward_args(&[&x, &r]));
    println!("conv_add_relu {n}");
    assert_eq!(n, FUSED_CONV_ADD_DISPATCHES);
}

#[test]
fn linear_relu_is_one_dispatch() {
    let _serial = serial();
    manual_seed(0);
    let m = LinearReLU::new(Linear::new(8, 4).unwrap(), ReLU::new());
    let x = randn(&[3, 8], None).unwrap();
    let (n, _) = count(|| m.forward(&x));
    assert_eq!(n, LINEAR_RELU_DISPATCHES);
}

#[test]
fn conv_bn_relu2d_eval_forward_folds_once_then_is_one_fused_conv() {
    let _serial = serial();
    manual_seed(0);
    let x = randn(&[2, 4, 6, 6], None).unwrap();
    let mut m = ConvBnReLU2d::new(
        conv3x3(4, 8, false),
        BatchNorm2d::new(8).unwrap(),
        ReLU::new(),
    );
    warm(&mut m, &x);
    // The first eval forward folds BatchNorm into the weight and bias (zeros for the missing
    // conv bias, ones/zeros not needed: bn is affine; rsqrt(var + eps), scale, weight product,
    // bias chain) and caches them.
    let (first, _) = count(|| m.forward(&x));
    let (steady, _) = count(|| m.forward(&x));
    println!("conv_bn_relu first {first} steady {steady}");
    assert_eq!(steady, FUSED_CONV_DISPATCHES);
    assert_eq!(first, FUSED_CONV_DISPATCHES + FOLD_DISPATCHES);
    // Fused by fuse_for_eval (a Sequential of Conv2d, BatchNorm2d, ReLU → ConvReLU2d(fused
    // conv), Identity, Identity): the fold is done once, at fusion.
    let mut seq = sequential![
        conv3x3(4, 8, false),
        BatchNorm2d::new(8).unwrap(),
        ReLU::new()
    ];
    warm(&mut seq, &x);
    let (_, unfused) = count(|| seq.forward(&x));
    let (fold, _) = count(|| fuse_for_eval(&mut seq));
    println!("fuse_for_eval {fold}");
    assert_eq!(fold, FOLD_DISPATCHES);
    let (n, fused) = count(|| seq.forward(&x));
    assert_eq!(n, FUSED_CONV_DISPATCHES);
    let a: Vec<f32> = fused.to_vec_blocking().unwrap();
    let b: Vec<f32> = unfused.to_vec_blocking().unwrap();
    assert!(a.iter().zip(&b).all(|(a, b)| (a - b).abs() <= 1e-5));
}

/// Dispatches of one fold (`fuse_conv_bn_weights` of a conv without bias and an affine
/// BatchNorm): zeros for the bias, `rv + eps`, rsqrt, `bn_w * rsqrt`, the weight product,
/// `(b - rm) * rsqrt * bn_w + bn_b` (4). Not on the eval path after the first call.
const FOLD_DISPATCHES: u64 = 9;

#[test]
fn basic_block_fused_eval_forward() {
    let _serial = serial();
    manual_seed(0);
    let x = randn(&[2, 8, 6, 6], None).unwrap();
    let mut block = Block {
        conv1: conv3x3(8, 8, false),
        bn1: BatchNorm2d::new(8).unwrap(),
        conv2: conv3x3(8, 8, false),
        bn2: BatchNorm2d::new(8).unwrap(),
        fold1: FoldCache::new(),
        fold2: FoldCache::new(),
        fused: false,
        training: true,
    };
    warm(&mut block, &x);
    let (unfused_n, unfused) = count(|| block.forward(&x));
    fuse_for_eval(&mut block).unwrap();
    count(|| block.forward(&x)); // folds both pairs
    let (n, fused) = count(|| block.forward(&x));
    println!("block fused {n} unfused {unfused_n}");
    // conv-bn-relu, then conv-bn-add-relu: two fused convolutions.
    assert_eq!(n, FUSED_CONV_DISPATCHES + FUSED_CONV_ADD_DISPATCHES);
    assert!(n < unfused_n, "{n} fused vs {unfused_n} unfused");
    let a: Vec<f32> = fused.to_vec_blocking().unwrap();
    let b: Vec<f32> = unfused.to_vec_blocking().unwrap();
    assert!(a.iter().zip(&b).all(|(a, b)| (a - b).abs() <= 1e-5));
}
