//! `torchvision.models`: ResNet-18/34/50 with torchvision's structure, state_dict keys and
//! default initialisation (after `manual_seed(s)`, torch's values bit for bit), and borch's CIFAR
//! ResNet-18 (`cifar_resnet18`) through the same builder with a 3×3 stem. [`catalog`] lists them
//! by name with torchvision's signatures, for the bindings, with borch's own digits models
//! (`digits_mlp`, `digits_cnn`) that the model catalogue ships trained.

mod blocks;
pub mod catalog;
mod digits;
mod fuse;
mod resnet;
mod vit;

pub use blocks::{BasicBlock, BlockArgs, Bottleneck, conv1x1, conv3x3};
pub use digits::{DIGITS_PIXELS, digits_cnn, digits_mlp};
pub use resnet::{Block, ResNet, ResNetConfig, Stem};
pub use vit::{
    Attention, Mlp, PatchEmbed, VisionTransformer, VitBlock, VitConfig, vit_tiny_patch16_224,
};

use borch_tensor::Result;

/// The keyword arguments torchvision's `resnet18(**kwargs)` passes to `ResNet`, with its
/// defaults, plus borch's `width` (the stem's channels and `layer1`'s planes; torchvision: 64).
/// `norm_layer` is always `BatchNorm2d` and `weights` always `None` (see [`catalog`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResNetOptions {
    /// torchvision's `num_classes`: the outputs of `fc` (1000).
    pub num_classes: usize,
    /// torchvision's `zero_init_residual`: zero the last BatchNorm weight of each block.
    pub zero_init_residual: bool,
    /// torchvision's `groups`: groups of the 3×3 convolutions (1).
    pub groups: usize,
    /// torchvision's `width_per_group` (64).
    pub width_per_group: usize,
    /// torchvision's `replace_stride_with_dilation` for `layer2` to `layer4`.
    pub replace_stride_with_dilation: [bool; 3],
    /// borch's width: the stem's channels and `layer1`'s planes (torchvision: 64).
    pub width: usize,
}

impl Default for ResNetOptions {
    fn default() -> Self {
        ResNetOptions {
            num_classes: 1000,
            zero_init_residual: false,
            groups: 1,
            width_per_group: 64,
            replace_stride_with_dilation: [false; 3],
            width: 64,
        }
    }
}

impl ResNetOptions {
    fn config(self, block: Block, layers: [usize; 4], stem: Stem) -> ResNetConfig {
        ResNetConfig {
            block,
            layers,
            num_classes: self.num_classes,
            zero_init_residual: self.zero_init_residual,
            groups: self.groups,
            width_per_group: self.width_per_group,
            replace_stride_with_dilation: self.replace_stride_with_dilation,
            stem,
            width: self.width,
        }
    }
}

/// torchvision's `resnet18()`: BasicBlock, `[2, 2, 2, 2]`, 1000 classes.
pub fn resnet18() -> Result<ResNet> {
    resnet18_with(ResNetOptions::default())
}

/// `resnet18(**kwargs)`.
pub fn resnet18_with(options: ResNetOptions) -> Result<ResNet> {
    ResNet::new(options.config(Block::Basic, [2, 2, 2, 2], Stem::ImageNet))
}

/// torchvision's `resnet34()`: BasicBlock, `[3, 4, 6, 3]`.
pub fn resnet34() -> Result<ResNet> {
    resnet34_with(ResNetOptions::default())
}

/// `resnet34(**kwargs)`.
pub fn resnet34_with(options: ResNetOptions) -> Result<ResNet> {
    ResNet::new(options.config(Block::Basic, [3, 4, 6, 3], Stem::ImageNet))
}

/// torchvision's `resnet50()`: Bottleneck, `[3, 4, 6, 3]` (ResNet V1.5).
pub fn resnet50() -> Result<ResNet> {
    resnet50_with(ResNetOptions::default())
}

/// `resnet50(**kwargs)`.
pub fn resnet50_with(options: ResNetOptions) -> Result<ResNet> {
    ResNet::new(options.config(Block::Bottleneck, [3, 4, 6, 3], Stem::ImageNet))
}

/// borch's CIFAR ResNet-18 (torchvision has none): ResNet-18's `[2, 2, 2, 2]` BasicBlocks with
/// 1×1-conv + BatchNorm shortcuts, a 3×3 stride-1 stem conv and no max pooling
/// ([`Stem::Cifar`]), `num_classes` outputs (10 for CIFAR-10).
pub fn cifar_resnet18(num_classes: usize) -> Result<ResNet> {
    cifar_resnet18_with(ResNetOptions {
        num_classes,
        ..ResNetOptions::default()
    })
}

/// `cifar_resnet18` with options (`width`: 64 is the benchmarks' network; a smaller width keeps
/// the structure at a fraction of the cost).
pub fn cifar_resnet18_with(options: ResNetOptions) -> Result<ResNet> {
    ResNet::new(options.config(Block::Basic, [2, 2, 2, 2], Stem::Cifar))
}
