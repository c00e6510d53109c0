//! ConvTranspose1d/2d/3d (torch's `_ConvTransposeNd`, `padding_mode='zeros'` only, as torch).

use borch_tensor::{BorchError, Result, Tensor, TransposeArgs};

use super::conv::{per_dim, reset_conv, signed};
use super::{parameter, present};
use crate::functional as F;
use crate::module::Module;
use crate::repr::py_tuple;
use crate::{display_as_repr, training_flag};

/// The keyword arguments of `ConvTranspose{1,2,3}d` after the channels and kernel size, with
/// torch's defaults (`stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1,
/// padding_mode='zeros'`). Sizes take one value for every spatial dim or one per dim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvTransposeOptions {
    /// torch's `stride`, one per spatial dim.
    pub stride: Vec<usize>,
    /// torch's `padding`.
    pub padding: Vec<usize>,
    /// torch's `output_padding`: added to one side of the output, one per spatial dim.
    pub output_padding: Vec<usize>,
    /// torch's `groups`: blocked connections from input to output channels.
    pub groups: usize,
    /// torch's `bias`: whether to learn an additive bias.
    pub bias: bool,
    /// torch's `dilation`, one per spatial dim.
    pub dilation: Vec<usize>,
    /// torch's `padding_mode`: `'zeros'`, `'reflect'`, `'replicate'` or `'circular'`.
    pub padding_mode: String,
}

impl Default for ConvTransposeOptions {
    fn default() -> Self {
        ConvTransposeOptions {
            stride: vec![1],
            padding: vec![0],
            output_padding: vec![0],
            groups: 1,
            bias: true,
            dilation: vec![1],
            padding_mode: "zeros".into(),
        }
    }
}

/// torch's `_ConvNd` repr arguments: `in, out, kernel_size=…, stride=…` and those that differ
/// from their defaults (plain and transposed convolutions, and their Lazy forms).
#[allow(clippy::too_many_arguments)]
pub(crate) fn conv_repr(
    in_channels: usize,
    out_channels: usize,
    kernel_size: &[usize],
    stride: &[usize],
    padding: &[usize],
    dilation: &[usize],
    output_padding: &[usize],
    groups: usize,
    bias: bool,
    padding_mode: &str,
) -> String {
    let mut s = format!(
        "{in_channels}, {out_channels}, kernel_size={}, stride={}",
        py_tuple(kernel_size),
        py_tuple(stride)
    );
    if padding.iter().any(|&x| x != 0) {
        s += &format!(", padding={}", py_tuple(padding));
    }
    if dilation.iter().any(|&d| d != 1) {
        s += &format!(", dilation={}", py_tuple(dilation));
    }
    if output_padding.iter().any(|&x| x != 0) {
        s += &format!(", output_padding={}", py_tuple(output_padding));
    }
    if groups != 1 {
        s += &format!(", groups={groups}");
    }
    if !bias {
        s += ", bias=False";
    }
    if padding_mode != "zeros" {
        s += &format!(", padding_mode={padding_mode}");
    }
    s
}

fn value_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(BorchError::Value(msg.into()))
}

/// torch's `_ConvTransposeNd.__init__` and `_ConvNd.__init__` checks, in their order.
fn check(
    name: &str,
    in_channels: usize,
    out_channels: usize,
    o: &ConvTransposeOptions,
) -> Result<()> {
    if o.padding_mode != "zeros" {
        return value_err(format!(
            "Only \"zeros\" padding mode is supported for {name}"
        ));
    }
    if o.groups == 0 {
        return value_err("groups must be a positive integer");
    }
    if !in_channels.is_multiple_of(o.groups) {
        return value_err("in_channels must be divisible by groups");
    }
    if !out_channels.is_multiple_of(o.groups) {
        return value_err("out_channels must be divisible by groups");
    }
    Ok(())
}

macro_rules! conv_transpose_layer {
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
            pub padding: Vec<usize>,
            /// torch's `output_padding`: added to one side of the output, one per spatial dim.
            pub output_padding: Vec<usize>,
            /// torch's `groups`: blocked connections from input to output channels.
            pub groups: usize,
            /// torch's `dilation`, one per spatial dim.
            pub dilation: Vec<usize>,
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
                    ConvTransposeOptions::default(),
                )
            }

            /// The layer with `options`, initialised as torch: weight
            /// `(in_channels, out_channels / groups, *kernel_size)`.
            pub fn with_options(
                in_channels: usize,
                out_channels: usize,
                kernel_size: &[usize],
                options: ConvTransposeOptions,
            ) -> Result<$name> {
                let kernel_size = per_dim(kernel_size, $dims, "kernel_size")?;
                let stride = per_dim(&options.stride, $dims, "stride")?;
                let padding = per_dim(&options.padding, $dims, "padding")?;
                let output_padding = per_dim(&options.output_padding, $dims, "output_padding")?;
                let dilation = per_dim(&options.dilation, $dims, "dilation")?;
                check(stringify!($name), in_channels, out_channels, &options)?;
                let mut shape = vec![in_channels, out_channels / options.groups];
                shape.extend(&kernel_size);
                let weight = parameter(&shape)?;
                let bias = if options.bias {
                    Some(parameter(&[out_channels])?)
                } else {
                    None
                };
                reset_conv(&weight, bias.as_ref())?;
                Ok($name {
                    in_channels,
                    out_channels,
                    kernel_size,
                    stride,
                    padding,
                    output_padding,
                    groups: options.groups,
                    dilation,
                    padding_mode: options.padding_mode,
                    weight,
                    bias,
                    training: true,
                })
            }

            /// torch's `reset_parameters`.
            pub fn reset_parameters(&self) -> Result<()> {
                reset_conv(&self.weight, self.bias.as_ref())
            }

            /// A copy of this layer (options and training flag) holding `weight` and `bias`
            /// instead of its own (`nn.utils.fusion.fuse_conv_bn_eval(..., transpose=True)`).
            pub fn with_parameters(&self, weight: Tensor, bias: Option<Tensor>) -> $name {
                $name {
                    in_channels: self.in_channels,
                    out_channels: self.out_channels,
                    kernel_size: self.kernel_size.clone(),
                    stride: self.stride.clone(),
                    padding: self.padding.clone(),
                    output_padding: self.output_padding.clone(),
                    groups: self.groups,
                    dilation: self.dilation.clone(),
                    padding_mode: self.padding_mode.clone(),
                    weight,
                    bias,
                    training: self.training,
                }
            }

            /// torch's `forward(input, output_size)`: the output padding that gives
            /// `output_size` (its spatial sizes, or all of the output's), within torch's range.
            pub fn forward_with_output_size(
                &self,
                input: &Tensor,
                output_size: &[usize],
            ) -> Result<Tensor> {
                let output_padding = output_padding(
                    $dims,
                    input,
                    output_size,
                    &self.stride,
                    &self.padding,
                    &self.kernel_size,
                    &self.dilation,
                )?;
                self.run(input, &output_padding)
            }

            fn run(&self, input: &Tensor, output_padding: &[usize]) -> Result<Tensor> {
                let (stride, padding, dilation) = (
                    signed(&self.stride),
                    signed(&self.padding),
                    signed(&self.dilation),
                );
                let output_padding = signed(output_padding);
                let args = TransposeArgs {
                    stride: &stride,
                    padding: &padding,
                    output_padding: &output_padding,
                    groups: self.groups as isize,
                    dilation: &dilation,
                };
                $f(input, &self.weight, self.bias.as_ref(), &args)
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                self.run(input, &self.output_padding)
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                conv_repr(
                    self.in_channels,
                    self.out_channels,
                    &self.kernel_size,
                    &self.stride,
                    &self.padding,
                    &self.dilation,
                    &self.output_padding,
                    self.groups,
                    self.bias.is_some(),
                    &self.padding_mode,
                )
            }
            fn own_parameters(&self) -> Vec<(String, Tensor)> {
                present(&[("weight", Some(&self.weight)), ("bias", self.bias.as_ref())])
            }
            training_flag!();
        }

        display_as_repr!($name);
    };
}

/// torch's `_ConvTransposeNd._output_padding` for a requested `output_size`.
fn output_padding(
    dims: usize,
    input: &Tensor,
    output_size: &[usize],
    stride: &[usize],
    padding: &[usize],
    kernel: &[usize],
    dilation: &[usize],
) -> Result<Vec<usize>> {
    let non_spatial = if input.dim() == dims + 2 { 2 } else { 1 };
    let size = if output_size.len() == non_spatial + dims {
        &output_size[non_spatial..]
    } else {
        output_size
    };
    if size.len() != dims || input.dim() < non_spatial + dims {
        return value_err(format!(
            "ConvTranspose{dims}D: for {}D input, output_size must have {dims} or {} elements \
             (got {})",
            input.dim(),
            non_spatial + dims,
            size.len()
        ));
    }
    let mins: Vec<i64> = (0..dims)
        .map(|d| {
            (input.shape()[d + non_spatial] as i64 - 1) * stride[d] as i64 - 2 * padding[d] as i64
                + dilation[d] as i64 * (kernel[d] as i64 - 1)
                + 1
        })
        .collect();
    let maxs: Vec<i64> = (0..dims).map(|d| mins[d] + stride[d] as i64 - 1).collect();
    if (0..dims).any(|d| (size[d] as i64) < mins[d] || size[d] as i64 > maxs[d]) {
        let list = |v: &[i64]| {
            let items: Vec<String> = v.iter().map(i64::to_string).collect();
            format!("[{}]", items.join(", "))
        };
        let given: Vec<i64> = size.iter().map(|&v| v as i64).collect();
        let spatial: Vec<i64> = input.shape()[non_spatial..]
            .iter()
            .map(|&v| v as i64)
            .collect();
        return value_err(format!(
            "requested an output size of {}, but valid sizes range from {} to {} (for an input \
             of torch.Size({}))",
            list(&given),
            list(&mins),
            list(&maxs),
            list(&spatial)
        ));
    }
    Ok((0..dims)
        .map(|d| (size[d] as i64 - mins[d]) as usize)
        .collect())
}

conv_transpose_layer!(
    ConvTranspose1d,
    1,
    F::conv_transpose1d,
    "torch's `nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0, \
     output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros')` over `(N, C, L)` \
     or `(C, L)`."
);
conv_transpose_layer!(
    ConvTranspose2d,
    2,
    F::conv_transpose2d,
    "torch's `nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, \
     output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros')` over \
     `(N, C, H, W)` or `(C, H, W)`."
);
conv_transpose_layer!(
    ConvTranspose3d,
    3,
    F::conv_transpose3d,
    "torch's `nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=1, padding=0, \
     output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros')` over \
     `(N, C, D, H, W)` or `(C, D, H, W)`."
);
