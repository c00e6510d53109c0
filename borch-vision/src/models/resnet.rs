//! torchvision's `ResNet` (`torchvision.models.resnet.ResNet`), one builder for every depth and
//! for borch's CIFAR variant (a stem option), constructed in torchvision's order and then
//! initialised by torchvision's loop over `modules()`, so that after `manual_seed(s)` every
//! parameter is torch's value bit for bit.

use borch_nn::init;
use borch_nn::{
    AdaptiveAvgPool2d, BatchNorm2d, Conv2d, ConvOptions, Identity, Linear, MaxPool2d, Module, ReLU,
    Sequential, training_flag,
};
use borch_tensor::{BorchError, Padding, Result, Tensor};

use super::blocks::{BasicBlock, BlockArgs, Bottleneck, conv1x1, norm};

/// Which residual block a ResNet stacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// `BasicBlock` (expansion 1): ResNet-18/34.
    Basic,
    /// `Bottleneck` (expansion 4): ResNet-50 and deeper.
    Bottleneck,
}

impl Block {
    /// torchvision's `expansion`: output channels per plane (1 or 4).
    pub fn expansion(self) -> usize {
        match self {
            Block::Basic => BasicBlock::EXPANSION,
            Block::Bottleneck => Bottleneck::EXPANSION,
        }
    }
}

/// The stem before `layer1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stem {
    /// torchvision's: `conv1` 7×7 stride 2 padding 3, `bn1`, `relu`, `maxpool` 3×3 stride 2
    /// padding 1 (for 224×224 ImageNet images).
    ImageNet,
    /// borch's CIFAR stem (torchvision has no CIFAR model): `conv1` 3×3 stride 1 padding 1,
    /// `bn1`, `relu`, and `maxpool` an `Identity` (for 32×32 images: no downsampling before
    /// `layer1`).
    Cifar,
}

/// torchvision's `ResNet(block, layers, num_classes=1000, zero_init_residual=False, groups=1,
/// width_per_group=64, replace_stride_with_dilation=None)` plus borch's stem and width options
/// (`norm_layer` is always `BatchNorm2d`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResNetConfig {
    /// torchvision's `block`: which residual block.
    pub block: Block,
    /// torchvision's `layers`: blocks in `layer1` to `layer4`.
    pub layers: [usize; 4],
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
    /// borch's stem option: torchvision's ImageNet stem or the CIFAR one.
    pub stem: Stem,
    /// The stem's channels and `layer1`'s planes (torchvision: 64); `layer2..4` double it.
    pub width: usize,
}

impl ResNetConfig {
    /// torchvision's defaults for `block` and `layers` (ImageNet stem, 1000 classes, width 64).
    pub fn new(block: Block, layers: [usize; 4]) -> ResNetConfig {
        ResNetConfig {
            block,
            layers,
            num_classes: 1000,
            zero_init_residual: false,
            groups: 1,
            width_per_group: 64,
            replace_stride_with_dilation: [false; 3],
            stem: Stem::ImageNet,
            width: 64,
        }
    }
}

/// torchvision's `ResNet`: children `conv1 bn1 relu maxpool layer1 layer2 layer3 layer4 avgpool
/// fc`, each layer a `Sequential` of blocks.
pub struct ResNet {
    /// torchvision's `conv1`.
    pub conv1: Box<dyn Module>,
    /// torchvision's `bn1`.
    pub bn1: Box<dyn Module>,
    /// torchvision's `relu`.
    pub relu: Box<dyn Module>,
    /// torchvision's `maxpool` (an `Identity` in the CIFAR stem).
    pub maxpool: Box<dyn Module>,
    /// torchvision's `layer1`: the blocks at the stem's resolution.
    pub layer1: Sequential,
    /// torchvision's `layer2`: stride 2, twice the planes.
    pub layer2: Sequential,
    /// torchvision's `layer3`: stride 2, four times the planes.
    pub layer3: Sequential,
    /// torchvision's `layer4`: stride 2, eight times the planes.
    pub layer4: Sequential,
    /// torchvision's `avgpool`: `AdaptiveAvgPool2d((1, 1))`.
    pub avgpool: Box<dyn Module>,
    /// torchvision's `fc`: `Linear(512 * expansion, num_classes)` at width 64.
    pub fc: Box<dyn Module>,
    /// What the model was built from.
    pub config: ResNetConfig,
    training: bool,
}

/// `_make_layer`'s running state (torchvision's `self.inplanes`, `self.dilation`).
struct Maker {
    block: Block,
    inplanes: usize,
    dilation: usize,
    groups: usize,
    base_width: usize,
}

impl Maker {
    /// torchvision's `_make_layer(block, planes, blocks, stride=1, dilate=False)`: the
    /// downsample first (when the stride or the channels change), then the blocks.
    fn layer(
        &mut self,
        planes: usize,
        blocks: usize,
        stride: usize,
        dilate: bool,
    ) -> Result<Sequential> {
        let expansion = self.block.expansion();
        let previous_dilation = self.dilation;
        let mut stride = stride;
        if dilate {
            self.dilation *= stride;
            stride = 1;
        }
        let downsample: Option<Box<dyn Module>> =
            if stride != 1 || self.inplanes != planes * expansion {
                let conv = conv1x1(self.inplanes, planes * expansion, stride)?;
                let bn = norm(planes * expansion)?;
                Some(Box::new(Sequential::new(vec![Box::new(conv), bn])))
            } else {
                None
            };
        let first = BlockArgs {
            stride,
            groups: self.groups,
            base_width: self.base_width,
            dilation: previous_dilation,
        };
        let mut out: Vec<Box<dyn Module>> = vec![self.block(planes, downsample, first)?];
        self.inplanes = planes * expansion;
        let rest = BlockArgs {
            stride: 1,
            dilation: self.dilation,
            ..first
        };
        for _ in 1..blocks {
            out.push(self.block(planes, None, rest)?);
        }
        Ok(Sequential::new(out))
    }

    fn block(
        &self,
        planes: usize,
        downsample: Option<Box<dyn Module>>,
        a: BlockArgs,
    ) -> Result<Box<dyn Module>> {
        Ok(match self.block {
            Block::Basic => Box::new(BasicBlock::new(self.inplanes, planes, downsample, a)?),
            Block::Bottleneck => Box::new(Bottleneck::new(self.inplanes, planes, downsample, a)?),
        })
    }
}

fn stem_conv(stem: Stem, width: usize) -> Result<Conv2d> {
    let (kernel, stride, padding) = match stem {
        Stem::ImageNet => (7, 2, 3),
        Stem::Cifar => (3, 1, 1),
    };
    let options = ConvOptions::default()
        .stride(&[stride])
        .padding(Padding::Sizes(vec![padding]))
        .bias(false);
    Conv2d::with_options(3, width, &[kernel], options)
}

fn stem_pool(stem: Stem) -> Box<dyn Module> {
    match stem {
        Stem::ImageNet => Box::new(MaxPool2d::with_options(
            &[3],
            Some(&[2]),
            &[1],
            &[1],
            false,
            false,
        )),
        Stem::Cifar => Box::new(Identity::new()),
    }
}

impl ResNet {
    /// Build as torchvision's `ResNet.__init__` does: every module constructed in its order
    /// (each convolution and the Linear drawing their default init), then `kaiming_normal_(w,
    /// mode="fan_out", nonlinearity="relu")` on every Conv2d and 1/0 on every BatchNorm2d in
    /// `modules()` order, then (with `zero_init_residual`) each block's last BatchNorm weight 0.
    pub fn new(config: ResNetConfig) -> Result<ResNet> {
        let c = &config;
        if c.width == 0 {
            return Err(BorchError::Value("ResNet width must be positive".into()));
        }
        let conv1 = stem_conv(c.stem, c.width)?;
        let bn1 = norm(c.width)?;
        let mut maker = Maker {
            block: c.block,
            inplanes: c.width,
            dilation: 1,
            groups: c.groups,
            base_width: c.width_per_group,
        };
        let w = c.width;
        let dil = c.replace_stride_with_dilation;
        let layer1 = maker.layer(w, c.layers[0], 1, false)?;
        let layer2 = maker.layer(2 * w, c.layers[1], 2, dil[0])?;
        let layer3 = maker.layer(4 * w, c.layers[2], 2, dil[1])?;
        let layer4 = maker.layer(8 * w, c.layers[3], 2, dil[2])?;
        let avgpool = AdaptiveAvgPool2d::new(&[Some(1), Some(1)]);
        let fc = Linear::new(8 * w * c.block.expansion(), c.num_classes)?;
        let model = ResNet {
            conv1: Box::new(conv1),
            bn1,
            relu: Box::new(ReLU::new()),
            maxpool: stem_pool(c.stem),
            layer1,
            layer2,
            layer3,
            layer4,
            avgpool: Box::new(avgpool),
            fc: Box::new(fc),
            config,
            training: true,
        };
        model.init_weights()?;
        Ok(model)
    }

    /// torchvision's initialisation loop (after construction).
    fn init_weights(&self) -> Result<()> {
        for m in self.modules() {
            if let Some(conv) = m.as_any().downcast_ref::<Conv2d>() {
                init::kaiming_normal_(&conv.weight, 0.0, "fan_out", "relu")?;
            } else if let Some(bn) = m.as_any().downcast_ref::<BatchNorm2d>() {
                if let Some(w) = bn.weight() {
                    init::constant_(w, 1.0)?;
                }
                if let Some(b) = bn.bias() {
                    init::constant_(b, 0.0)?;
                }
            }
        }
        if self.config.zero_init_residual {
            for m in self.modules() {
                let last = if let Some(b) = m.as_any().downcast_ref::<Bottleneck>() {
                    b.bn3.as_ref()
                } else if let Some(b) = m.as_any().downcast_ref::<BasicBlock>() {
                    b.bn2.as_ref()
                } else {
                    continue;
                };
                if let Some(w) = last
                    .as_any()
                    .downcast_ref::<BatchNorm2d>()
                    .and_then(|bn| bn.weight())
                {
                    init::constant_(w, 0.0)?;
                }
            }
        }
        Ok(())
    }

    /// torch's `setattr(model, name, module)` for a child other than a layer (`conv1`, `bn1`,
    /// `relu`, `maxpool`, `avgpool`, `fc`): the old one returned. Layers are reached as
    /// `layer1.get_mut(i)` and their blocks downcast (`as_any_mut`).
    pub fn set_child(&mut self, name: &str, module: Box<dyn Module>) -> Result<Box<dyn Module>> {
        let slot = match name {
            "conv1" => &mut self.conv1,
            "bn1" => &mut self.bn1,
            "relu" => &mut self.relu,
            "maxpool" => &mut self.maxpool,
            "avgpool" => &mut self.avgpool,
            "fc" => &mut self.fc,
            _ => {
                return Err(BorchError::Key(format!(
                    "'ResNet' object has no replaceable child module '{name}'"
                )));
            }
        };
        Ok(std::mem::replace(slot, module))
    }

    /// The four layers, in order.
    pub fn layers(&self) -> [&Sequential; 4] {
        [&self.layer1, &self.layer2, &self.layer3, &self.layer4]
    }

    /// The four layers, mutably (to fuse their blocks).
    pub fn layers_mut(&mut self) -> [&mut Sequential; 4] {
        [
            &mut self.layer1,
            &mut self.layer2,
            &mut self.layer3,
            &mut self.layer4,
        ]
    }
}

impl Module for ResNet {
    /// torchvision's `_forward_impl`: stem, layers, average pool, `flatten(x, 1)`, `fc`.
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let x = self.conv1.forward(x)?;
        let x = self.relu.forward(&self.bn1.forward(&x)?)?;
        let mut x = self.maxpool.forward(&x)?;
        for layer in self.layers() {
            x = layer.forward(&x)?;
        }
        let x = self.avgpool.forward(&x)?.flatten(1, -1)?;
        self.fc.forward(&x)
    }
    fn name(&self) -> String {
        "ResNet".into()
    }
    fn fuse_for_eval(&mut self) -> Result<()> {
        self.fuse_eval()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        vec![
            ("conv1".into(), self.conv1.as_ref()),
            ("bn1".into(), self.bn1.as_ref()),
            ("relu".into(), self.relu.as_ref()),
            ("maxpool".into(), self.maxpool.as_ref()),
            ("layer1".into(), &self.layer1),
            ("layer2".into(), &self.layer2),
            ("layer3".into(), &self.layer3),
            ("layer4".into(), &self.layer4),
            ("avgpool".into(), self.avgpool.as_ref()),
            ("fc".into(), self.fc.as_ref()),
        ]
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        vec![
            ("conv1".into(), self.conv1.as_mut()),
            ("bn1".into(), self.bn1.as_mut()),
            ("relu".into(), self.relu.as_mut()),
            ("maxpool".into(), self.maxpool.as_mut()),
            ("layer1".into(), &mut self.layer1),
            ("layer2".into(), &mut self.layer2),
            ("layer3".into(), &mut self.layer3),
            ("layer4".into(), &mut self.layer4),
            ("avgpool".into(), self.avgpool.as_mut()),
            ("fc".into(), self.fc.as_mut()),
        ]
    }
    training_flag!();
}

borch_nn::display_as_repr!(ResNet);
