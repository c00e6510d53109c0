//! torch.ao.nn.intrinsic's fused modules: Sequential-like containers of the float modules
//! (children `0`, `1`, `2`; ConvAddReLU2d's ReLU is `relu`), so their state dicts, reprs and
//! train-mode behaviour are torch's; their forwards run the fused ops where one exists.

use borch_tensor::{BorchError, Result, Tensor, linear_relu};

use super::fold::{FoldCache, FoldKind, bn_parts, conv_bn2d_forward, conv2d_epilogue};
use crate::functional as F;
use crate::module::Module;
use crate::{
    BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv2d, Conv3d, LeakyReLU, Linear, ReLU, Tanh,
};
use crate::{display_as_repr, training_flag};

/// A container of typed children named as torch names them; `$forward(&self, x)` is its
/// forward; `$extra` fields (not children) are initialised by `Default`.
macro_rules! fused_module {
    (
        $(#[$doc:meta])* $name:ident { $($field:ident : $ty:ty => $child:literal),+ }
        $(extra { $($efield:ident : $ety:ty),* })?
        forward($s:ident, $x:ident) $body:block
    ) => {
        $(#[$doc])*
        pub struct $name {
            $(#[doc = concat!("torch's child `", $child, "`.")] pub $field: $ty,)+
            $($($efield: $ety,)*)?
            training: bool,
        }

        impl $name {
            /// torch's constructor: the modules it holds, in order.
            pub fn new($($field: $ty),+) -> $name {
                $name {
                    $($field,)+
                    $($($efield: <$ety>::default(),)*)?
                    training: true,
                }
            }
        }

        impl Module for $name {
            fn forward(&self, $x: &Tensor) -> Result<Tensor> {
                let $s = self;
                $body
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn named_children(&self) -> Vec<(String, &dyn Module)> {
                vec![$(($child.into(), &self.$field as &dyn Module)),+]
            }
            fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
                vec![$(($child.into(), &mut self.$field as &mut dyn Module)),+]
            }
            training_flag!();
        }

        display_as_repr!($name);
    };
}

fn relu_if(y: Tensor, relu: bool) -> Result<Tensor> {
    if relu { y.relu() } else { Ok(y) }
}

fused_module! {
    /// torch's `nni.ConvReLU1d(conv, relu)`: `relu(conv(x))`.
    ConvReLU1d { conv: Conv1d => "0", relu: ReLU => "1" }
    forward(s, x) { s.conv.forward(x)?.relu() }
}

fused_module! {
    /// torch's `nni.ConvReLU2d(conv, relu)`: `relu(conv(x))` as one `conv2d_fused`.
    ConvReLU2d { conv: Conv2d => "0", relu: ReLU => "1" }
    forward(s, x) {
        conv2d_epilogue(&s.conv, x, &s.conv.weight, s.conv.bias.as_ref(), None, true)
    }
}

fused_module! {
    /// torch's `nni.ConvReLU3d(conv, relu)`: `relu(conv(x))`.
    ConvReLU3d { conv: Conv3d => "0", relu: ReLU => "1" }
    forward(s, x) { s.conv.forward(x)?.relu() }
}

fused_module! {
    /// torch's `nni.LinearReLU(linear, relu)`: `relu(linear(x))` as one `linear_relu`.
    LinearReLU { linear: Linear => "0", relu: ReLU => "1" }
    forward(s, x) { linear_relu(x, &s.linear.weight, s.linear.bias.as_ref()) }
}

fused_module! {
    /// torch's `nni.LinearLeakyReLU(linear, leaky_relu)`: `leaky_relu(linear(x))`.
    LinearLeakyReLU { linear: Linear => "0", leaky_relu: LeakyReLU => "1" }
    forward(s, x) { s.leaky_relu.forward(&s.linear.forward(x)?) }
}

fused_module! {
    /// torch's `nni.LinearTanh(linear, tanh)`: `tanh(linear(x))`.
    LinearTanh { linear: Linear => "0", tanh: Tanh => "1" }
    forward(s, x) { s.linear.forward(x)?.tanh() }
}

fused_module! {
    /// torch's `nni.BNReLU2d(batch_norm, relu)`: `relu(bn(x))`.
    BNReLU2d { bn: BatchNorm2d => "0", relu: ReLU => "1" }
    forward(s, x) { s.bn.forward(x)?.relu() }
}

fused_module! {
    /// torch's `nni.BNReLU3d(batch_norm, relu)`: `relu(bn(x))`.
    BNReLU3d { bn: BatchNorm3d => "0", relu: ReLU => "1" }
    forward(s, x) { s.bn.forward(x)?.relu() }
}

macro_rules! conv_bn_nd {
    ($(#[$doc:meta])* $name:ident, $conv:ty, $bn:ty, relu) => {
        fused_module! {
            $(#[$doc])*
            $name { conv: $conv => "0", bn: $bn => "1", relu: ReLU => "2" }
            extra { fold: FoldCache }
            forward(s, x) { conv_bn_nd(&s.conv, &s.bn, &s.fold, x, true) }
        }
    };
    ($(#[$doc:meta])* $name:ident, $conv:ty, $bn:ty) => {
        fused_module! {
            $(#[$doc])*
            $name { conv: $conv => "0", bn: $bn => "1" }
            extra { fold: FoldCache }
            forward(s, x) { conv_bn_nd(&s.conv, &s.bn, &s.fold, x, false) }
        }
    };
}

/// Conv-BN(-ReLU) of any rank: in eval mode the folded convolution, else conv then BatchNorm.
trait ConvBnPair {
    fn run(&self, bn: &dyn Module, fold: &FoldCache, x: &Tensor, relu: bool) -> Result<Tensor>;
}

macro_rules! conv_bn_pair {
    ($conv:ty, $bn:ty) => {
        impl ConvBnPair for $conv {
            fn run(
                &self,
                bn: &dyn Module,
                fold: &FoldCache,
                x: &Tensor,
                relu: bool,
            ) -> Result<Tensor> {
                let bn = bn
                    .as_any()
                    .downcast_ref::<$bn>()
                    .ok_or_else(|| BorchError::Runtime("a BatchNorm was expected".into()))?;
                let y = match bn_parts!(bn) {
                    Some(p) => {
                        let (w, b) =
                            fold.folded(FoldKind::Conv, &self.weight, self.bias.as_ref(), &p)?;
                        self.with_parameters(w, Some(b)).forward(x)?
                    }
                    None => bn.forward(&self.forward(x)?)?,
                };
                relu_if(y, relu)
            }
        }
    };
}

conv_bn_pair!(Conv1d, BatchNorm1d);
conv_bn_pair!(Conv3d, BatchNorm3d);

impl ConvBnPair for Conv2d {
    fn run(&self, bn: &dyn Module, fold: &FoldCache, x: &Tensor, relu: bool) -> Result<Tensor> {
        let bn = bn
            .as_any()
            .downcast_ref::<BatchNorm2d>()
            .ok_or_else(|| BorchError::Runtime("a BatchNorm2d was expected".into()))?;
        conv_bn2d_forward(self, bn, fold, x, None, relu)
    }
}

fn conv_bn_nd<C: ConvBnPair, B: Module>(
    conv: &C,
    bn: &B,
    fold: &FoldCache,
    x: &Tensor,
    relu: bool,
) -> Result<Tensor> {
    conv.run(bn.as_module(), fold, x, relu)
}

conv_bn_nd!(
    /// torch's `nni.ConvBn1d(conv, bn)`: `bn(conv(x))`; in eval mode BatchNorm is folded into
    /// the convolution (one convolution).
    ConvBn1d, Conv1d, BatchNorm1d
);
conv_bn_nd!(
    /// torch's `nni.ConvBn2d(conv, bn)`: `bn(conv(x))`; in eval mode one `conv2d_fused` with
    /// BatchNorm folded in.
    ConvBn2d, Conv2d, BatchNorm2d
);
conv_bn_nd!(
    /// torch's `nni.ConvBn3d(conv, bn)`: `bn(conv(x))`; in eval mode BatchNorm is folded into
    /// the convolution.
    ConvBn3d, Conv3d, BatchNorm3d
);
conv_bn_nd!(
    /// torch's `nni.ConvBnReLU1d(conv, bn, relu)`: `relu(bn(conv(x)))`, folded in eval mode.
    ConvBnReLU1d, Conv1d, BatchNorm1d, relu
);
conv_bn_nd!(
    /// torch's `nni.ConvBnReLU2d(conv, bn, relu)`: `relu(bn(conv(x)))`; in eval mode one
    /// `conv2d_fused` with BatchNorm folded in and the ReLU in its epilogue.
    ConvBnReLU2d, Conv2d, BatchNorm2d, relu
);
conv_bn_nd!(
    /// torch's `nni.ConvBnReLU3d(conv, bn, relu)`: `relu(bn(conv(x)))`, folded in eval mode.
    ConvBnReLU3d, Conv3d, BatchNorm3d, relu
);

fused_module! {
    /// torch's `nni.LinearBn1d(linear, bn)`: `bn(linear(x))`; in eval mode BatchNorm is folded
    /// into the linear map (one addmm).
    LinearBn1d { linear: Linear => "0", bn: BatchNorm1d => "1" }
    extra { fold: FoldCache }
    forward(s, x) {
        match bn_parts!(&s.bn) {
            Some(p) => {
                let w = &s.linear.weight;
                let (w, b) = s.fold.folded(FoldKind::Linear, w, s.linear.bias.as_ref(), &p)?;
                F::linear(x, &w, Some(&b))
            }
            None => s.bn.forward(&s.linear.forward(x)?),
        }
    }
}

/// torch's `forward(x1, x2)` called with one tensor.
fn missing_x2(name: &str) -> BorchError {
    BorchError::Type(format!(
        "{name}.forward() missing 1 required positional argument: 'x2'"
    ))
}

fn two<'a>(name: &str, inputs: &[&'a Tensor]) -> Result<(&'a Tensor, &'a Tensor)> {
    match inputs {
        [x1, x2] => Ok((x1, x2)),
        [_] => Err(missing_x2(name)),
        _ => Err(BorchError::Type(format!(
            "{name}.forward() takes 3 positional arguments but {} were given",
            inputs.len() + 1
        ))),
    }
}

/// torch's `nni.ConvAdd2d(conv, add)`: `forward(x1, x2) = conv(x1) + x2`, one `conv2d_fused`
/// with the residual in its epilogue. `add` is torch's `torch.add`; borch's always adds.
pub struct ConvAdd2d {
    /// torch's `conv` (child `0`).
    pub conv: Conv2d,
    training: bool,
}

impl ConvAdd2d {
    /// `ConvAdd2d(conv, torch.add)`.
    pub fn new(conv: Conv2d) -> ConvAdd2d {
        ConvAdd2d {
            conv,
            training: true,
        }
    }
}

/// torch's `nni.ConvAddReLU2d(conv, add, relu)`: `forward(x1, x2) = relu(conv(x1) + x2)`, one
/// `conv2d_fused`. Its children are `0` (the conv) and `relu`, as torch registers them.
pub struct ConvAddReLU2d {
    /// torch's `conv` (child `0`).
    pub conv: Conv2d,
    /// torch's `relu`.
    pub relu: ReLU,
    training: bool,
}

impl ConvAddReLU2d {
    /// `ConvAddReLU2d(conv, torch.add, relu)`.
    pub fn new(conv: Conv2d, relu: ReLU) -> ConvAddReLU2d {
        ConvAddReLU2d {
            conv,
            relu,
            training: true,
        }
    }
}

impl Module for ConvAdd2d {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(missing_x2("ConvAdd2d"))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        let (x1, x2) = two("ConvAdd2d", inputs)?;
        let c = &self.conv;
        conv2d_epilogue(c, x1, &c.weight, c.bias.as_ref(), Some(x2), false)
    }
    fn name(&self) -> String {
        "ConvAdd2d".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        vec![("0".into(), &self.conv as &dyn Module)]
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        vec![("0".into(), &mut self.conv as &mut dyn Module)]
    }
    training_flag!();
}

impl Module for ConvAddReLU2d {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(missing_x2("ConvAddReLU2d"))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        let (x1, x2) = two("ConvAddReLU2d", inputs)?;
        let c = &self.conv;
        conv2d_epilogue(c, x1, &c.weight, c.bias.as_ref(), Some(x2), true)
    }
    fn name(&self) -> String {
        "ConvAddReLU2d".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        vec![
            ("0".into(), &self.conv as &dyn Module),
            ("relu".into(), &self.relu as &dyn Module),
        ]
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        vec![
            ("0".into(), &mut self.conv as &mut dyn Module),
            ("relu".into(), &mut self.relu as &mut dyn Module),
        ]
    }
    training_flag!();
}

display_as_repr!(ConvAdd2d, ConvAddReLU2d);
