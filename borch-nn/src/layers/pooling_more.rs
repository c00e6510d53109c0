//! MaxPool1d/3d, AvgPool1d/3d, AdaptiveAvgPool1d/3d, AdaptiveMaxPool1d/2d/3d, LPPool1d/2d/3d and
//! MaxUnpool1d/2d/3d over `nn::functional`. A module's `forward` returns one tensor: with
//! `return_indices=True` it is refused, and `forward_with_indices` gives the indices too.

use borch_tensor::{BorchError, Result, Scalar, Tensor};

use super::pooling::{
    adaptive_avg, avg_pool, max_pool, output_size_repr, refuse_indices, signed, size,
};
use crate::functional as F;
use crate::module::Module;
use crate::repr::{py_bool, py_float, py_tuple};
use crate::{display_as_repr, training_flag};

/// torch's `_single` / `_pair` / `_triple` as it prints: always a tuple of `n`.
fn tuple_of(v: &[usize], n: usize) -> String {
    match v {
        [one] => py_tuple(&vec![*one; n]),
        _ => py_tuple(v),
    }
}

max_pool!(
    MaxPool1d,
    F::max_pool1d,
    F::max_pool1d_with_indices,
    "torch's `nn.MaxPool1d(kernel_size, stride=None, padding=0, dilation=1, \
     return_indices=False, ceil_mode=False)` over `(N, C, L)` or `(C, L)`."
);
max_pool!(
    MaxPool3d,
    F::max_pool3d,
    F::max_pool3d_with_indices,
    "torch's `nn.MaxPool3d(kernel_size, stride=None, padding=0, dilation=1, \
     return_indices=False, ceil_mode=False)` over `(N, C, D, H, W)` or `(C, D, H, W)`."
);

/// torch's `nn.AvgPool1d(kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True)`; its sizes print as 1-tuples, as torch stores them.
pub struct AvgPool1d {
    /// torch's `kernel_size`, one per spatial dim.
    pub kernel_size: usize,
    /// torch's `stride`, one per spatial dim.
    pub stride: usize,
    /// torch's `padding`.
    pub padding: usize,
    /// torch's `ceil_mode`: ceil instead of floor in the output shape.
    pub ceil_mode: bool,
    /// torch's `count_include_pad`: count the zero padding in the average.
    pub count_include_pad: bool,
    training: bool,
}

impl AvgPool1d {
    /// torch's full signature; `stride` `None` is the kernel size.
    pub fn new(
        kernel_size: usize,
        stride: Option<usize>,
        padding: usize,
        ceil_mode: bool,
        count_include_pad: bool,
    ) -> AvgPool1d {
        AvgPool1d {
            kernel_size,
            stride: stride.unwrap_or(kernel_size),
            padding,
            ceil_mode,
            count_include_pad,
            training: true,
        }
    }
}

impl Module for AvgPool1d {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::avg_pool1d(
            input,
            &[self.kernel_size as isize],
            Some(&[self.stride as isize]),
            &[self.padding as isize],
            self.ceil_mode,
            self.count_include_pad,
        )
    }
    fn name(&self) -> String {
        "AvgPool1d".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "kernel_size={}, stride={}, padding={}",
            py_tuple(&[self.kernel_size]),
            py_tuple(&[self.stride]),
            py_tuple(&[self.padding])
        )
    }
    training_flag!();
}

avg_pool!(
    AvgPool3d,
    F::avg_pool3d,
    "torch's `nn.AvgPool3d(kernel_size, stride=None, padding=0, ceil_mode=False, \
     count_include_pad=True, divisor_override=None)`."
);

adaptive_avg!(
    AdaptiveAvgPool1d,
    F::adaptive_avg_pool1d,
    "torch's `nn.AdaptiveAvgPool1d(output_size)`."
);
adaptive_avg!(
    AdaptiveAvgPool3d,
    F::adaptive_avg_pool3d,
    "torch's `nn.AdaptiveAvgPool3d(output_size)`; `None` keeps that input size."
);

macro_rules! adaptive_max {
    ($name:ident, $f:path, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// torch's `output_size`.
            pub output_size: Vec<Option<usize>>,
            /// torch's `return_indices`: also return the indices of the max values.
            pub return_indices: bool,
            training: bool,
        }

        impl $name {
            /// torch's constructor with `output_size` (`None` keeps that input size) and `return_indices`.
            pub fn new(output_size: &[Option<usize>], return_indices: bool) -> $name {
                $name {
                    output_size: output_size.to_vec(),
                    return_indices,
                    training: true,
                }
            }

            /// The pooled values and the flat index of each maximum in its input plane.
            pub fn forward_with_indices(&self, input: &Tensor) -> Result<(Tensor, Tensor)> {
                $f(input, &self.output_size)
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                if self.return_indices {
                    return Err(refuse_indices(stringify!($name)));
                }
                Ok($f(input, &self.output_size)?.0)
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                output_size_repr(&self.output_size)
            }
            training_flag!();
        }
    };
}

adaptive_max!(
    AdaptiveMaxPool1d,
    F::adaptive_max_pool1d,
    "torch's `nn.AdaptiveMaxPool1d(output_size, return_indices=False)`."
);
adaptive_max!(
    AdaptiveMaxPool2d,
    F::adaptive_max_pool2d,
    "torch's `nn.AdaptiveMaxPool2d(output_size, return_indices=False)`; `None` keeps that size."
);
adaptive_max!(
    AdaptiveMaxPool3d,
    F::adaptive_max_pool3d,
    "torch's `nn.AdaptiveMaxPool3d(output_size, return_indices=False)`; `None` keeps that size."
);

macro_rules! lp_pool {
    ($name:ident, $f:path, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// As given (an int prints as one, as torch shows it).
            pub norm_type: Scalar,
            /// torch's `kernel_size`, one per spatial dim.
            pub kernel_size: Vec<usize>,
            /// torch's `stride`, one per spatial dim.
            pub stride: Option<Vec<usize>>,
            /// torch's `ceil_mode`: ceil instead of floor in the output shape.
            pub ceil_mode: bool,
            training: bool,
        }

        impl $name {
            /// torch's constructor: `norm_type`, `kernel_size`, `stride` (`None`: the kernel size), `ceil_mode`.
            pub fn new(
                norm_type: impl Into<Scalar>,
                kernel_size: &[usize],
                stride: Option<&[usize]>,
                ceil_mode: bool,
            ) -> $name {
                $name {
                    norm_type: norm_type.into(),
                    kernel_size: kernel_size.to_vec(),
                    stride: stride.map(<[usize]>::to_vec),
                    ceil_mode,
                    training: true,
                }
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                let stride = self.stride.as_deref().map(signed);
                $f(
                    input,
                    self.norm_type.to_f64(),
                    &signed(&self.kernel_size),
                    stride.as_deref(),
                    self.ceil_mode,
                )
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                format!(
                    "norm_type={}, kernel_size={}, stride={}, ceil_mode={}",
                    match self.norm_type {
                        Scalar::Float(p) => py_float(p),
                        other => other.to_f64().to_string(),
                    },
                    size(&self.kernel_size),
                    self.stride.as_deref().map_or("None".into(), size),
                    py_bool(self.ceil_mode)
                )
            }
            training_flag!();
        }
    };
}

lp_pool!(
    LPPool1d,
    F::lp_pool1d,
    "torch's `nn.LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)`."
);
lp_pool!(
    LPPool2d,
    F::lp_pool2d,
    "torch's `nn.LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)`."
);
lp_pool!(
    LPPool3d,
    F::lp_pool3d,
    "torch's `nn.LPPool3d(norm_type, kernel_size, stride=None, ceil_mode=False)`."
);

macro_rules! max_unpool {
    ($name:ident, $dims:expr, $f:path, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// torch's `kernel_size`, one per spatial dim.
            pub kernel_size: Vec<usize>,
            /// torch's `stride`, one per spatial dim.
            pub stride: Vec<usize>,
            /// torch's `padding`.
            pub padding: Vec<usize>,
            training: bool,
        }

        impl $name {
            /// torch's signature; `stride` `None` is the kernel size.
            pub fn new(
                kernel_size: &[usize],
                stride: Option<&[usize]>,
                padding: &[usize],
            ) -> $name {
                $name {
                    kernel_size: kernel_size.to_vec(),
                    stride: stride.unwrap_or(kernel_size).to_vec(),
                    padding: padding.to_vec(),
                    training: true,
                }
            }

            /// torch's `forward(input, indices, output_size=None)`.
            pub fn forward_with_output_size(
                &self,
                input: &Tensor,
                indices: &Tensor,
                output_size: Option<&[usize]>,
            ) -> Result<Tensor> {
                let output_size = output_size.map(signed);
                $f(
                    input,
                    indices,
                    &signed(&self.kernel_size),
                    Some(&signed(&self.stride)),
                    &signed(&self.padding),
                    output_size.as_deref(),
                )
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                self.forward_args(&[input])
            }
            fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
                match inputs {
                    [input, indices] => self.forward_with_output_size(input, indices, None),
                    _ => Err(BorchError::Type(format!(
                        "{}.forward() missing 1 required positional argument: 'indices'",
                        stringify!($name)
                    ))),
                }
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                format!(
                    "kernel_size={}, stride={}, padding={}",
                    tuple_of(&self.kernel_size, $dims),
                    tuple_of(&self.stride, $dims),
                    tuple_of(&self.padding, $dims)
                )
            }
            training_flag!();
        }
    };
}

max_unpool!(
    MaxUnpool1d,
    1,
    F::max_unpool1d,
    "torch's `nn.MaxUnpool1d(kernel_size, stride=None, padding=0)`: `forward(input, indices)`."
);
max_unpool!(
    MaxUnpool2d,
    2,
    F::max_unpool2d,
    "torch's `nn.MaxUnpool2d(kernel_size, stride=None, padding=0)`: `forward(input, indices)`."
);
max_unpool!(
    MaxUnpool3d,
    3,
    F::max_unpool3d,
    "torch's `nn.MaxUnpool3d(kernel_size, stride=None, padding=0)`: `forward(input, indices)`."
);

display_as_repr!(
    MaxPool1d,
    MaxPool3d,
    AvgPool1d,
    AvgPool3d,
    AdaptiveAvgPool1d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
);
