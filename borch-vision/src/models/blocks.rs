//! torchvision's residual blocks: `BasicBlock` (two 3×3 convolutions; ResNet-18/34) and
//! `Bottleneck` (1×1, 3×3, 1×1 with the stride on the 3×3: ResNet V1.5; ResNet-50), built in
//! torchvision's order so that the default initialisation draws torch's values.
//!
//! Children are named and registered as torchvision registers them (`conv1 bn1 relu conv2 bn2
//! downsample`; the Bottleneck's `conv1 bn1 conv2 bn2 conv3 bn3 relu downsample`), so state_dict
//! keys and `modules()` order are torchvision's. Each child is a `Box<dyn Module>` that
//! [`BasicBlock::set_child`] replaces by name (torch's `setattr`, what `fuse_modules` does), and
//! [`BasicBlock::set_residual_tail`] hands the last convolution, its BatchNorm, the residual add
//! and the final ReLU to one fused module (`ConvAddReLU2d`) that takes `(x, identity)`.

use borch_nn::{BatchNorm2d, Conv2d, ConvOptions, Identity, Module, ReLU, training_flag};
use borch_tensor::{BorchError, Padding, Result, Tensor};

/// torchvision's `conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1)`: 3×3, padding
/// `dilation`, no bias.
pub fn conv3x3(
    in_planes: usize,
    out_planes: usize,
    stride: usize,
    groups: usize,
    dilation: usize,
) -> Result<Conv2d> {
    let options = ConvOptions::default()
        .stride(&[stride])
        .padding(Padding::Sizes(vec![dilation as isize]))
        .groups(groups)
        .bias(false)
        .dilation(&[dilation]);
    Conv2d::with_options(in_planes, out_planes, &[3], options)
}

/// torchvision's `conv1x1(in_planes, out_planes, stride=1)`: no bias.
pub fn conv1x1(in_planes: usize, out_planes: usize, stride: usize) -> Result<Conv2d> {
    let options = ConvOptions::default().stride(&[stride]).bias(false);
    Conv2d::with_options(in_planes, out_planes, &[1], options)
}

/// `BatchNorm2d(n)` with torch's defaults (torchvision's `norm_layer`).
pub(crate) fn norm(n: usize) -> Result<Box<dyn Module>> {
    Ok(Box::new(BatchNorm2d::new(n)?))
}

fn boxed(m: impl Module + 'static) -> Box<dyn Module> {
    Box::new(m)
}

/// What a block's constructor takes beyond its planes (torchvision's block signature).
#[derive(Debug, Clone, Copy)]
pub struct BlockArgs {
    /// torchvision's `stride`.
    pub stride: usize,
    /// torchvision's `groups` (1).
    pub groups: usize,
    /// torchvision's `base_width` (64).
    pub base_width: usize,
    /// torchvision's `dilation` (1).
    pub dilation: usize,
}

/// Replace `slot` by `module`, returning what was there.
fn swap(slot: &mut Box<dyn Module>, module: Box<dyn Module>) -> Box<dyn Module> {
    std::mem::replace(slot, module)
}

fn no_child(block: &str, name: &str) -> BorchError {
    BorchError::Key(format!("'{block}' object has no child module '{name}'"))
}

/// The shared forward tail: identity (or `downsample(x)`), then `relu(bn(conv(out)) +
/// identity)`, or the fused tail's `forward_args(&[out, identity])`.
#[allow(clippy::too_many_arguments)]
fn tail(
    x: &Tensor,
    out: &Tensor,
    conv: &dyn Module,
    bn: &dyn Module,
    relu: &dyn Module,
    downsample: Option<&dyn Module>,
    fused: bool,
) -> Result<Tensor> {
    let identity = match downsample {
        Some(d) => d.forward(x)?,
        None => x.clone(),
    };
    if fused {
        return conv.forward_args(&[out, &identity]);
    }
    let out = bn.forward(&conv.forward(out)?)?;
    relu.forward(&out.add(&identity)?)
}

/// torchvision's `BasicBlock(inplanes, planes, stride=1, downsample=None, groups=1,
/// base_width=64, dilation=1)` (expansion 1).
pub struct BasicBlock {
    /// torchvision's `conv1`.
    pub conv1: Box<dyn Module>,
    /// torchvision's `bn1`.
    pub bn1: Box<dyn Module>,
    /// torchvision's `relu`.
    pub relu: Box<dyn Module>,
    /// torchvision's `conv2`.
    pub conv2: Box<dyn Module>,
    /// torchvision's `bn2`.
    pub bn2: Box<dyn Module>,
    /// torchvision's `downsample`: `Sequential(conv1x1, BatchNorm2d)` where the block changes
    /// the stride or the channels.
    pub downsample: Option<Box<dyn Module>>,
    /// torchvision's `stride`.
    pub stride: usize,
    residual_fused: bool,
    training: bool,
}

impl BasicBlock {
    /// torchvision's `expansion`: output channels per plane.
    pub const EXPANSION: usize = 1;

    /// torchvision's checks and construction order (`conv1`, `bn1`, `relu`, `conv2`, `bn2`; the
    /// downsample was built by the caller before the block, as `_make_layer` does).
    pub fn new(
        inplanes: usize,
        planes: usize,
        downsample: Option<Box<dyn Module>>,
        a: BlockArgs,
    ) -> Result<BasicBlock> {
        if a.groups != 1 || a.base_width != 64 {
            return Err(BorchError::Value(
                "BasicBlock only supports groups=1 and base_width=64".into(),
            ));
        }
        if a.dilation > 1 {
            return Err(BorchError::NotImplemented(
                "Dilation > 1 not supported in BasicBlock".into(),
            ));
        }
        Ok(BasicBlock {
            conv1: boxed(conv3x3(inplanes, planes, a.stride, 1, 1)?),
            bn1: norm(planes)?,
            relu: boxed(ReLU::new()),
            conv2: boxed(conv3x3(planes, planes, 1, 1, 1)?),
            bn2: norm(planes)?,
            downsample,
            stride: a.stride,
            residual_fused: false,
            training: true,
        })
    }

    /// Hand `conv2`, `bn2`, the residual add and the last ReLU to `fused` (a module computing
    /// `relu(bn2(conv2(x)) + identity)` from `forward_args(&[x, identity])`, e.g. a fused
    /// `ConvAddReLU2d`): it becomes `conv2`, `bn2` an `Identity` (torch's `fuse_modules`
    /// convention). The first ReLU stays `relu` (fuse it into `conv1` separately).
    pub fn set_residual_tail(&mut self, fused: Box<dyn Module>) {
        self.conv2 = fused;
        self.bn2 = boxed(Identity::new());
        self.residual_fused = true;
    }

    /// Whether the tail was fused by [`BasicBlock::set_residual_tail`].
    pub fn residual_fused(&self) -> bool {
        self.residual_fused
    }
}

impl Module for BasicBlock {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let out = self
            .relu
            .forward(&self.bn1.forward(&self.conv1.forward(x)?)?)?;
        tail(
            x,
            &out,
            self.conv2.as_ref(),
            self.bn2.as_ref(),
            self.relu.as_ref(),
            self.downsample.as_deref(),
            self.residual_fused,
        )
    }
    fn name(&self) -> String {
        "BasicBlock".into()
    }
    fn fuse_for_eval(&mut self) -> Result<()> {
        self.fuse_eval()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        self.children()
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        self.children_mut()
    }
    training_flag!();
}

/// torchvision's `Bottleneck(inplanes, planes, stride=1, downsample=None, groups=1,
/// base_width=64, dilation=1)` (expansion 4; the stride on the 3×3 convolution, ResNet V1.5).
pub struct Bottleneck {
    /// torchvision's `conv1`.
    pub conv1: Box<dyn Module>,
    /// torchvision's `bn1`.
    pub bn1: Box<dyn Module>,
    /// torchvision's `conv2`.
    pub conv2: Box<dyn Module>,
    /// torchvision's `bn2`.
    pub bn2: Box<dyn Module>,
    /// torchvision's `conv3`.
    pub conv3: Box<dyn Module>,
    /// torchvision's `bn3`.
    pub bn3: Box<dyn Module>,
    /// torchvision's `relu`.
    pub relu: Box<dyn Module>,
    /// torchvision's `downsample`, where the block changes the stride or the channels.
    pub downsample: Option<Box<dyn Module>>,
    /// torchvision's `stride`.
    pub stride: usize,
    residual_fused: bool,
    training: bool,
}

impl Bottleneck {
    /// torchvision's `expansion`: output channels per plane.
    pub const EXPANSION: usize = 4;

    /// torchvision's construction order: `conv1 bn1 conv2 bn2 conv3 bn3 relu`, with
    /// `width = int(planes * (base_width / 64.0)) * groups`.
    pub fn new(
        inplanes: usize,
        planes: usize,
        downsample: Option<Box<dyn Module>>,
        a: BlockArgs,
    ) -> Result<Bottleneck> {
        let width = (planes as f64 * (a.base_width as f64 / 64.0)) as usize * a.groups;
        let out = planes * Self::EXPANSION;
        Ok(Bottleneck {
            conv1: boxed(conv1x1(inplanes, width, 1)?),
            bn1: norm(width)?,
            conv2: boxed(conv3x3(width, width, a.stride, a.groups, a.dilation)?),
            bn2: norm(width)?,
            conv3: boxed(conv1x1(width, out, 1)?),
            bn3: norm(out)?,
            relu: boxed(ReLU::new()),
            downsample,
            stride: a.stride,
            residual_fused: false,
            training: true,
        })
    }

    /// Hand `conv3`, `bn3`, the residual add and the last ReLU to `fused` (forward_args
    /// `(x, identity)`), as [`BasicBlock::set_residual_tail`].
    pub fn set_residual_tail(&mut self, fused: Box<dyn Module>) {
        self.conv3 = fused;
        self.bn3 = boxed(Identity::new());
        self.residual_fused = true;
    }

    /// Whether the residual tail was handed to a fused module.
    pub fn residual_fused(&self) -> bool {
        self.residual_fused
    }
}

impl Module for Bottleneck {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let out = self
            .relu
            .forward(&self.bn1.forward(&self.conv1.forward(x)?)?)?;
        let out = self
            .relu
            .forward(&self.bn2.forward(&self.conv2.forward(&out)?)?)?;
        tail(
            x,
            &out,
            self.conv3.as_ref(),
            self.bn3.as_ref(),
            self.relu.as_ref(),
            self.downsample.as_deref(),
            self.residual_fused,
        )
    }
    fn name(&self) -> String {
        "Bottleneck".into()
    }
    fn fuse_for_eval(&mut self) -> Result<()> {
        self.fuse_eval()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        self.children()
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        self.children_mut()
    }
    training_flag!();
}

/// A block's children in torchvision's registration order, then its optional `downsample`:
/// `set_child` (torch's `setattr(block, name, module)`: the child replaced, the old one returned;
/// an absent `downsample` returns an `Identity`) and the lists `named_children(_mut)` give.
macro_rules! block_children {
    ($block:ident: $($child:ident),+) => {
        impl $block {
            /// torch's `setattr(block, name, module)` for a child (or `downsample`).
            pub fn set_child(
                &mut self,
                name: &str,
                module: Box<dyn Module>,
            ) -> Result<Box<dyn Module>> {
                Ok(match name {
                    $(stringify!($child) => swap(&mut self.$child, module),)+
                    "downsample" => self
                        .downsample
                        .replace(module)
                        .unwrap_or_else(|| boxed(Identity::new())),
                    _ => return Err(no_child(stringify!($block), name)),
                })
            }

            fn children(&self) -> Vec<(String, &dyn Module)> {
                let mut out: Vec<(String, &dyn Module)> =
                    vec![$((stringify!($child).into(), self.$child.as_ref())),+];
                if let Some(d) = &self.downsample {
                    out.push(("downsample".into(), d.as_ref()));
                }
                out
            }

            fn children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
                let mut out: Vec<(String, &mut dyn Module)> =
                    vec![$((stringify!($child).into(), self.$child.as_mut())),+];
                if let Some(d) = &mut self.downsample {
                    out.push(("downsample".into(), d.as_mut()));
                }
                out
            }
        }
    };
}

block_children!(BasicBlock: conv1, bn1, relu, conv2, bn2);
block_children!(Bottleneck: conv1, bn1, conv2, bn2, conv3, bn3, relu);

borch_nn::display_as_repr!(BasicBlock, Bottleneck);
