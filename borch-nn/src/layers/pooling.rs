//! MaxPool2d, AvgPool2d and AdaptiveAvgPool2d, and the one definition of each pooling class
//! (`max_pool!`, `avg_pool!`, `adaptive_avg!`) that `pooling_more.rs` uses for the other ranks.
//! A module's `forward` returns one tensor: with `return_indices=True` it is refused, and
//! `forward_with_indices` gives the indices too.

use borch_tensor::BorchError;

use crate::display_as_repr;
use crate::functional as F;
use crate::repr::py_tuple;

/// A size as torch stores it: as given, an int or a tuple.
pub(super) fn size(v: &[usize]) -> String {
    match v {
        [one] => one.to_string(),
        _ => py_tuple(v),
    }
}

pub(super) fn signed(v: &[usize]) -> Vec<isize> {
    v.iter().map(|&x| x as isize).collect()
}

/// `output_size=…` as torch prints it (`None` for a kept size).
pub(super) fn output_size_repr(sizes: &[Option<usize>]) -> String {
    let show = |s: &Option<usize>| s.map_or("None".to_string(), |x| x.to_string());
    let shown = match sizes {
        [one] => show(one),
        items => format!(
            "({})",
            items.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
    };
    format!("output_size={shown}")
}

pub(super) fn refuse_indices(name: &str) -> BorchError {
    // The functional form's name: MaxPool1d → max_pool1d, AdaptiveMaxPool2d → adaptive_max_pool2d.
    let mut f = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            f.push('_');
        }
        f.push(c.to_ascii_lowercase());
    }
    BorchError::NotImplemented(format!(
        "{name}(return_indices=True): a borch module's forward returns one tensor; call \
         forward_with_indices for the values and the indices (or F.{f}(…, return_indices=True))"
    ))
}

/// Builder methods `fn field(mut self, value) -> Self` for the named fields.
macro_rules! setters {
    ($($field:ident: $ty:ty),* $(,)?) => {
        $(
            #[doc = concat!("Sets `", stringify!($field), "`.")]
            pub fn $field(mut self, value: $ty) -> Self {
                self.$field = value.into();
                self
            }
        )*
    };
}
pub(super) use setters;

/// torch's `nn.MaxPool{1,2,3}d(kernel_size, stride=None, padding=0, dilation=1,
/// return_indices=False, ceil_mode=False)` over a functional form and its `_with_indices` one.
macro_rules! max_pool {
    ($name:ident, $values:path, $with_indices:path, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// torch's `kernel_size`, one per spatial dim.
            pub kernel_size: Vec<usize>,
            /// The kernel size when not given (torch's `stride=None`).
            pub stride: Vec<usize>,
            /// torch's `padding`.
            pub padding: Vec<usize>,
            /// torch's `dilation`, one per spatial dim.
            pub dilation: Vec<usize>,
            /// torch's `return_indices`: also return the indices of the max values.
            pub return_indices: bool,
            /// torch's `ceil_mode`: ceil instead of floor in the output shape.
            pub ceil_mode: bool,
            training: bool,
        }

        impl $name {
            /// `(kernel_size)`: stride the kernel size, no padding.
            pub fn new(kernel_size: &[usize]) -> $name {
                $name::with_options(kernel_size, None, &[0], &[1], false, false)
            }
            /// torch's full signature; `stride` `None` is the kernel size.
            pub fn with_options(
                kernel_size: &[usize],
                stride: Option<&[usize]>,
                padding: &[usize],
                dilation: &[usize],
                return_indices: bool,
                ceil_mode: bool,
            ) -> $name {
                $name {
                    kernel_size: kernel_size.to_vec(),
                    stride: stride.unwrap_or(kernel_size).to_vec(),
                    padding: padding.to_vec(),
                    dilation: dilation.to_vec(),
                    return_indices,
                    ceil_mode,
                    training: true,
                }
            }
            super::pooling::setters!(
                stride: &[usize],
                padding: &[usize],
                dilation: &[usize],
                return_indices: bool,
                ceil_mode: bool,
            );

            /// The pooled values and the flat index of each maximum in its input plane.
            pub fn forward_with_indices(
                &self,
                input: &borch_tensor::Tensor,
            ) -> borch_tensor::Result<(borch_tensor::Tensor, borch_tensor::Tensor)> {
                use super::pooling::signed;
                $with_indices(
                    input,
                    &signed(&self.kernel_size),
                    Some(&signed(&self.stride)),
                    &signed(&self.padding),
                    &signed(&self.dilation),
                    self.ceil_mode,
                )
            }
        }

        impl crate::module::Module for $name {
            fn forward(&self, input: &borch_tensor::Tensor) -> borch_tensor::Result<borch_tensor::Tensor> {
                use super::pooling::signed;
                if self.return_indices {
                    return Err(super::pooling::refuse_indices(stringify!($name)));
                }
                $values(
                    input,
                    &signed(&self.kernel_size),
                    Some(&signed(&self.stride)),
                    &signed(&self.padding),
                    &signed(&self.dilation),
                    self.ceil_mode,
                )
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                use super::pooling::size;
                format!(
                    "kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}",
                    size(&self.kernel_size),
                    size(&self.stride),
                    size(&self.padding),
                    size(&self.dilation),
                    crate::repr::py_bool(self.ceil_mode)
                )
            }
            crate::training_flag!();
        }
    };
}
pub(super) use max_pool;

/// torch's `nn.AvgPool{2,3}d(kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None)` over a functional form.
macro_rules! avg_pool {
    ($name:ident, $f:path, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// torch's `kernel_size`, one per spatial dim.
            pub kernel_size: Vec<usize>,
            /// torch's `stride`, one per spatial dim.
            pub stride: Vec<usize>,
            /// torch's `padding`.
            pub padding: Vec<usize>,
            /// torch's `ceil_mode`: ceil instead of floor in the output shape.
            pub ceil_mode: bool,
            /// torch's `count_include_pad`: count the zero padding in the average.
            pub count_include_pad: bool,
            /// torch's `divisor_override`: the divisor instead of the window size.
            pub divisor_override: Option<isize>,
            training: bool,
        }

        impl $name {
            /// `(kernel_size)`: stride the kernel size, no padding.
            pub fn new(kernel_size: &[usize]) -> $name {
                $name::with_options(kernel_size, None, &[0], false, true, None)
            }
            /// torch's full signature; `stride` `None` is the kernel size.
            pub fn with_options(
                kernel_size: &[usize],
                stride: Option<&[usize]>,
                padding: &[usize],
                ceil_mode: bool,
                count_include_pad: bool,
                divisor_override: Option<isize>,
            ) -> $name {
                $name {
                    kernel_size: kernel_size.to_vec(),
                    stride: stride.unwrap_or(kernel_size).to_vec(),
                    padding: padding.to_vec(),
                    ceil_mode,
                    count_include_pad,
                    divisor_override,
                    training: true,
                }
            }
            super::pooling::setters!(
                stride: &[usize],
                padding: &[usize],
                ceil_mode: bool,
                count_include_pad: bool,
                divisor_override: Option<isize>,
            );
        }

        impl crate::module::Module for $name {
            fn forward(&self, input: &borch_tensor::Tensor) -> borch_tensor::Result<borch_tensor::Tensor> {
                use super::pooling::signed;
                $f(
                    input,
                    &signed(&self.kernel_size),
                    Some(&signed(&self.stride)),
                    &signed(&self.padding),
                    self.ceil_mode,
                    self.count_include_pad,
                    self.divisor_override,
                )
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                use super::pooling::size;
                format!(
                    "kernel_size={}, stride={}, padding={}",
                    size(&self.kernel_size),
                    size(&self.stride),
                    size(&self.padding)
                )
            }
            crate::training_flag!();
        }
    };
}
pub(super) use avg_pool;

/// torch's `nn.AdaptiveAvgPool{1,2,3}d(output_size)` over a functional form; `None` keeps that
/// input size.
macro_rules! adaptive_avg {
    ($name:ident, $f:path, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            /// torch's `output_size`.
            pub output_size: Vec<Option<usize>>,
            training: bool,
        }

        impl $name {
            /// torch's constructor with `output_size` (`None` keeps that input size).
            pub fn new(output_size: &[Option<usize>]) -> $name {
                $name {
                    output_size: output_size.to_vec(),
                    training: true,
                }
            }
        }

        impl crate::module::Module for $name {
            fn forward(
                &self,
                input: &borch_tensor::Tensor,
            ) -> borch_tensor::Result<borch_tensor::Tensor> {
                $f(input, &self.output_size)
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                super::pooling::output_size_repr(&self.output_size)
            }
            crate::training_flag!();
        }
    };
}
pub(super) use adaptive_avg;

max_pool!(
    MaxPool2d,
    F::max_pool2d,
    F::max_pool2d_with_indices,
    "torch's `nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1, \
     return_indices=False, ceil_mode=False)` over `(N, C, H, W)` or `(C, H, W)`; with \
     `return_indices`, `forward_with_indices` gives the indices too."
);
avg_pool!(
    AvgPool2d,
    F::avg_pool2d,
    "torch's `nn.AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False, \
     count_include_pad=True, divisor_override=None)`."
);
adaptive_avg!(
    AdaptiveAvgPool2d,
    F::adaptive_avg_pool2d,
    "torch's `nn.AdaptiveAvgPool2d(output_size)`; `None` keeps that input size."
);

display_as_repr!(MaxPool2d, AvgPool2d, AdaptiveAvgPool2d);
