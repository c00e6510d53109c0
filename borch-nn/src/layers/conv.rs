//! Conv1d, Conv2d and Conv3d (torch's `_ConvNd`; a `padding_mode` other than `'zeros'` pads
//! through `F.pad`).

use borch_tensor::{BorchError, Padding, Result, Tensor};

use super::{parameter, present};
use crate::functional as F;
use crate::init;
use crate::module::Module;
use crate::repr::py_tuple;
use crate::{display_as_repr, training_flag};

/// The keyword arguments of `Conv1d` / `Conv2d` after the channels and kernel size, with torch's
/// defaults (`stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros'`).
/// Sizes take one value for every spatial dim or one per dim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvOptions {
    /// torch's `stride`, one per spatial dim.
    pub stride: Vec<usize>,
    /// torch's `padding`.
    pub padding: Padding,
    /// torch's `dilation`, one per spatial dim.
    pub dilation: Vec<usize>,
    /// torch's `groups`: blocked connections from input to output channels.
    pub groups: usize,
    /// torch's `bias`: whether to learn an additive bias.
    pub bias: bool,
    /// torch's `padding_mode`: `'zeros'`, `'reflect'`, `'replicate'` or `'circular'`.
    pub padding_mode: String,
}

impl Default for ConvOptions {
    fn default() -> Self {
        ConvOptions {
            stride: vec![1],
            padding: Padding::Sizes(vec![0]),
            dilation: vec![1],
            groups: 1,
            bias: true,
            padding_mode: "zeros".into(),
        }
    }
}

impl ConvOptions {
    /// Sets `stride`.
    pub fn stride(mut self, stride: &[usize]) -> Self {
        self.stride = stride.to_vec();
        self
    }
    /// Sets `padding`.
    pub fn padding(mut self, padding: Padding) -> Self {
        self.padding = padding;
        self
    }
    /// Sets `dilation`.
    pub fn dilation(mut self, dilation: &[usize]) -> Self {
        self.dilation = dilation.to_vec();
        self
    }
    /// Sets `groups`.
    pub fn groups(mut self, groups: usize) -> Self {
        self.groups = groups;
        self
    }
    /// Sets `bias`.
    pub fn bias(mut self, bias: bool) -> Self {
        self.bias = bias;
        self
    }
    /// Sets `padding_mode`.
    pub fn padding_mode(mut self, mode: &str) -> Self {
        self.padding_mode = mode.into();
        self
    }
}

fn value_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Value(msg.into()))
}

/// One value per spatial dim (torch's `_single` / `_pair`).
pub(super) fn per_dim<T: Copy>(v: &[T], n: usize, name: &str) -> Result<Vec<T>> {
    match v.len() {
        1 => Ok(vec![v[0]; n]),
        len if len == n => Ok(v.to_vec()),
        _ => value_err(format!("{name} must be an int or a tuple of {n} ints")),
    }
}

/// torch's `_ConvNd.__init__` checks, in its order.
fn check(in_channels: usize, out_channels: usize, o: &ConvOptions, stride: &[usize]) -> Result<()> {
    if o.groups == 0 {
        return value_err("groups must be a positive integer");
    }
    if !in_channels.is_multiple_of(o.groups) {
        return value_err("in_channels must be divisible by groups");
    }
    if !out_channels.is_multiple_of(o.groups) {
        return value_err("out_channels must be divisible by groups");
    }
    if o.padding == Padding::Same && stride.iter().any(|&s| s != 1) {
        return value_err("padding='same' is not supported for strided convolutions");
    }
    let modes = ["zeros", "reflect", "replicate", "circular"];
    if !modes.contains(&o.padding_mode.as_str()) {
        return value_err(format!(
            "padding_mode must be one of {{'replicate', 'circular', 'zeros', 'reflect'}}, but got \
             padding_mode='{}'",
            o.padding_mode
        ));
    }
    Ok(())
}

/// torch's `_reversed_padding_repeated_twice`: the `F.pad` list a non-zeros `padding_mode`
/// pads with (for `'same'`, the extra pad of an even window goes after).
fn reversed_padding(padding: &Padding, kernel: &[usize], dilation: &[usize]) -> Vec<isize> {
    let n = kernel.len();
    let mut out = vec![0; 2 * n];
    for i in 0..n {
        let (l, r) = match padding {
            Padding::Sizes(p) => (p[i], p[i]),
            Padding::Valid => (0, 0),
            Padding::Same => {
                let total = (dilation[i] * (kernel[i] - 1)) as isize;
                (total / 2, total - total / 2)
            }
        };
        out[2 * (n - 1 - i)] = l;
        out[2 * (n - 1 - i) + 1] = r;
    }
    out
}

/// The input and padding a convolution runs with: with a non-zeros `padding_mode`, the input
/// padded by `F.pad` in that mode and no padding left for the convolution.
fn mode_padded(
    input: &Tensor,
    mode: &str,
    padding: &Padding,
    kernel: &[usize],
    dilation: &[usize],
) -> Result<(Tensor, Padding)> {
    if mode == "zeros" {
        return Ok((input.clone(), padding.clone()));
    }
    let pads = reversed_padding(padding, kernel, dilation);
    let padded = F::pad(input, &pads, mode, None)?;
    Ok((padded, Padding::Sizes(vec![0; kernel.len()])))
}

pub(super) fn signed(v: &[usize]) -> Vec<isize> {
    v.iter().map(|&x| x as isize).collect()
}

/// torch's `_ConvNd.reset_parameters` (plain and transposed): `kaiming_uniform_(weight,
/// a=sqrt(5))`, then the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
pub(super) fn reset_conv(weight: &Tensor, bias: Option<&Tensor>) -> Result<()> {
    init::kaiming_uniform_(weight, 5.0f64.sqrt(), "fan_in", "leaky_relu")?;
    if let Some(b) = bias {
        let (fan_in, _) = init::calculate_fan_in_and_fan_out(weight)?;
        if fan_in != 0 {
            let bound = 1.0 / (fan_in as f64).sqrt();
            init::uniform_(b, -bound, bound)?;
        }
    }
    Ok(())
}

macro_rules! conv_layer {
    ($name:ident, $dims:expr, $f:path, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// torch's `in_channels`.
            pub in_channels: usize,
            /// torch's `out_channels`.
            pub out_channels: usize,
            /// torch's `kernel_size`, one per spatial dim.
            pub kernel_size: Vec<usize>,
            /// torch's `stride`, one per spatial dim.
            pub stride: Vec<usize>,
            /// torch's `padding`.
            pub padding: Padding,
            /// torch's `dilation`, one per spatial dim.
            pub dilation: Vec<usize>,
            /// torch's `groups`: blocked connections from input to output channels.
            pub groups: usize,
            /// torch's `padding_mode`: `'zeros'`, `'reflect'`, `'replicate'` or `'circular'`.
            pub padding_mode: String,
            /// torch's `weight` parameter.
            pub weight: Tensor,
            /// torch's `bias` parameter (`None` when made with `bias=False`).
            pub bias: Option<Tensor>,
            training: bool,
        }

        impl $name {
            /// The layer with torch's default options.
            pub fn new(
                in_channels: usize,
                out_channels: usize,
                kernel_size: &[usize],
            ) -> Result<$name> {
                $name::with_options(
                    in_channels,
                    out_channels,
                    kernel_size,
                    ConvOptions::default(),
                )
            }

            /// The layer with `options`, initialised as torch: weight
            /// `(out_channels, in_channels / groups, *kernel_size)`.
            pub fn with_options(
                in_channels: usize,
                out_channels: usize,
                kernel_size: &[usize],
                options: ConvOptions,
            ) -> Result<$name> {
                let kernel_size = per_dim(kernel_size, $dims, "kernel_size")?;
                let stride = per_dim(&options.stride, $dims, "stride")?;
                let dilation = per_dim(&options.dilation, $dims, "dilation")?;
                check(in_channels, out_channels, &options, &stride)?;
                let padding = match &options.padding {
                    Padding::Sizes(s) => Padding::Sizes(per_dim(s, $dims, "padding")?),
                    other => other.clone(),
                };
                let mut shape = vec![out_channels, in_channels / options.groups];
                shape.extend(&kernel_size);
                let weight = parameter(&shape)?;
                let bias = if options.bias {
                    Some(parameter(&[out_channels])?)
                } else {
                    None
                };
                let layer = $name {
                    in_channels,
                    out_channels,
                    kernel_size,
                    stride,
                    padding,
                    dilation,
                    groups: options.groups,
                    padding_mode: options.padding_mode,
                    weight,
                    bias,
                    training: true,
                };
                layer.reset_parameters()?;
                Ok(layer)
            }

            /// torch's `reset_parameters`: `kaiming_uniform_(weight, a=sqrt(5))`, then the bias
            /// from U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
            pub fn reset_parameters(&self) -> Result<()> {
                reset_conv(&self.weight, self.bias.as_ref())
            }

            /// The input this layer convolves (padded by `F.pad` for a `padding_mode` other
            /// than `'zeros'`) and the padding left for the convolution itself.
            pub fn padded_input(&self, input: &Tensor) -> Result<(Tensor, Padding)> {
                mode_padded(
                    input,
                    &self.padding_mode,
                    &self.padding,
                    &self.kernel_size,
                    &self.dilation,
                )
            }

            /// A copy of this layer (options and training flag) holding `weight` and `bias`
            /// instead of its own: what `copy.deepcopy(conv)` then setting `.weight` / `.bias`
            /// gives (`nn.utils.fusion.fuse_conv_bn_eval`). Draws nothing.
            pub fn with_parameters(&self, weight: Tensor, bias: Option<Tensor>) -> $name {
                $name {
                    in_channels: self.in_channels,
                    out_channels: self.out_channels,
                    kernel_size: self.kernel_size.clone(),
                    stride: self.stride.clone(),
                    padding: self.padding.clone(),
                    dilation: self.dilation.clone(),
                    groups: self.groups,
                    padding_mode: self.padding_mode.clone(),
                    weight,
                    bias,
                    training: self.training,
                }
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                let (input, padding) = mode_padded(
                    input,
                    &self.padding_mode,
                    &self.padding,
                    &self.kernel_size,
                    &self.dilation,
                )?;
                $f(
                    &input,
                    &self.weight,
                    self.bias.as_ref(),
                    &signed(&self.stride),
                    &padding,
                    &signed(&self.dilation),
                    self.groups as isize,
                )
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                let mut s = format!(
                    "{}, {}, kernel_size={}, stride={}",
                    self.in_channels,
                    self.out_channels,
                    py_tuple(&self.kernel_size),
                    py_tuple(&self.stride)
                );
                match &self.padding {
                    Padding::Sizes(p) if p.iter().all(|&x| x == 0) => {}
                    Padding::Sizes(p) => s += &format!(", padding={}", py_tuple(p)),
                    Padding::Valid => s += ", padding=valid",
                    Padding::Same => s += ", padding=same",
                }
                if self.dilation.iter().any(|&d| d != 1) {
                    s += &format!(", dilation={}", py_tuple(&self.dilation));
                }
                if self.groups != 1 {
                    s += &format!(", groups={}", self.groups);
                }
                if self.bias.is_none() {
                    s += ", bias=False";
                }
                if self.padding_mode != "zeros" {
                    s += &format!(", padding_mode={}", self.padding_mode);
                }
                s
            }
            fn own_parameters(&self) -> Vec<(String, Tensor)> {
                present(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
            }
            training_flag!();
        }

        display_as_repr!($name);
    };
}

conv_layer!(
    Conv2d,
    2,
    F::conv2d,
    "torch's `nn.Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, \
     dilation=1, groups=1, bias=True, padding_mode='zeros')` over `(N, C, H, W)` or `(C, H, W)`."
);
conv_layer!(
    Conv1d,
    1,
    F::conv1d,
    "torch's `nn.Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, \
     dilation=1, groups=1, bias=True, padding_mode='zeros')` over `(N, C, L)` or `(C, L)`."
);
conv_layer!(
    Conv3d,
    3,
    F::conv3d,
    "torch's `nn.Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, \
     dilation=1, groups=1, bias=True, padding_mode='zeros')` over `(N, C, D, H, W)` or \
     `(C, D, H, W)`."
);
