//! `Module::fuse_for_eval` for torchvision's blocks and the ResNet stem (what
//! `borch_nn::utils::fusion::fuse_for_eval(model)` calls): every Conv-BN pair of an eval model is
//! folded into one convolution with a bias (`fuse_conv_bn_eval`), a following ReLU joins it
//! (`nn.intrinsic.ConvReLU2d`), and a block's last convolution takes the residual add and the
//! final ReLU too (`ConvAddReLU2d`, through `set_residual_tail`). The replaced BatchNorms and
//! ReLUs become `Identity`, as torch's `fuse_modules` leaves them, so each convolution of the
//! block is one dispatch.

use borch_nn::intrinsic::{ConvAddReLU2d, ConvReLU2d};
use borch_nn::utils::fusion::fuse_conv_bn_eval;
use borch_nn::{BatchNorm2d, Conv2d, Identity, Module, ReLU};
use borch_tensor::Result;

use super::blocks::{BasicBlock, Bottleneck};
use super::resnet::ResNet;

/// `conv` and `bn` folded into one convolution, where they are a `Conv2d` and a `BatchNorm2d`
/// in eval mode with running statistics; `None` otherwise (the pair is left as it is).
fn fold(conv: &dyn Module, bn: &dyn Module) -> Result<Option<Conv2d>> {
    let (Some(c), Some(b)) = (
        conv.as_any().downcast_ref::<Conv2d>(),
        bn.as_any().downcast_ref::<BatchNorm2d>(),
    ) else {
        return Ok(None);
    };
    if c.is_training() || b.is_training() || b.running_mean().is_none() {
        return Ok(None);
    }
    fuse_conv_bn_eval(c, b, false).map(Some)
}

fn is_relu(m: &dyn Module) -> bool {
    m.as_any().downcast_ref::<ReLU>().is_some()
}

fn in_eval(mut m: impl Module + 'static) -> Box<dyn Module> {
    m.train(false);
    Box::new(m)
}

fn conv_relu(conv: Conv2d) -> Box<dyn Module> {
    in_eval(ConvReLU2d::new(conv, ReLU::new()))
}

fn conv_add_relu(conv: Conv2d) -> Box<dyn Module> {
    in_eval(ConvAddReLU2d::new(conv, ReLU::new()))
}

fn identity() -> Box<dyn Module> {
    in_eval(Identity::new())
}

/// Fuse `downsample` (a `Sequential(conv1x1, BatchNorm2d)`) by the Sequential's own rule.
fn fuse_downsample(downsample: &mut Option<Box<dyn Module>>) -> Result<()> {
    match downsample {
        Some(d) => d.fuse_for_eval(),
        None => Ok(()),
    }
}

impl BasicBlock {
    /// `relu(bn1(conv1(x)))` → `ConvReLU2d`; `relu(bn2(conv2(out)) + identity)` →
    /// `ConvAddReLU2d`; the shortcut's Conv-BN folded. A block already fused, in training
    /// mode or not made of Conv2d/BatchNorm2d/ReLU is left as it is.
    pub(crate) fn fuse_eval(&mut self) -> Result<()> {
        if self.residual_fused() || !is_relu(self.relu.as_ref()) {
            return Ok(());
        }
        let (Some(c1), Some(c2)) = (
            fold(self.conv1.as_ref(), self.bn1.as_ref())?,
            fold(self.conv2.as_ref(), self.bn2.as_ref())?,
        ) else {
            return Ok(());
        };
        fuse_downsample(&mut self.downsample)?;
        self.conv1 = conv_relu(c1);
        self.bn1 = identity();
        self.relu = identity();
        self.set_residual_tail(conv_add_relu(c2));
        Ok(())
    }
}

impl Bottleneck {
    /// As `BasicBlock::fuse_eval`, for the three convolutions (1×1, 3×3, 1×1 + add + ReLU).
    pub(crate) fn fuse_eval(&mut self) -> Result<()> {
        if self.residual_fused() || !is_relu(self.relu.as_ref()) {
            return Ok(());
        }
        let (Some(c1), Some(c2), Some(c3)) = (
            fold(self.conv1.as_ref(), self.bn1.as_ref())?,
            fold(self.conv2.as_ref(), self.bn2.as_ref())?,
            fold(self.conv3.as_ref(), self.bn3.as_ref())?,
        ) else {
            return Ok(());
        };
        fuse_downsample(&mut self.downsample)?;
        self.conv1 = conv_relu(c1);
        self.bn1 = identity();
        self.conv2 = conv_relu(c2);
        self.bn2 = identity();
        self.relu = identity();
        self.set_residual_tail(conv_add_relu(c3));
        Ok(())
    }
}

impl ResNet {
    /// The stem's `relu(bn1(conv1(x)))` → `ConvReLU2d`, then every block.
    pub(crate) fn fuse_eval(&mut self) -> Result<()> {
        if is_relu(self.relu.as_ref())
            && let Some(c) = fold(self.conv1.as_ref(), self.bn1.as_ref())?
        {
            self.conv1 = conv_relu(c);
            self.bn1 = identity();
            self.relu = identity();
        }
        for layer in self.layers_mut() {
            layer.fuse_for_eval()?;
        }
        Ok(())
    }
}
