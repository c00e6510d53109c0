//! MaxPool2d, AvgPool2d and AdaptiveAvgPool2d.

use borch_tensor::{BorchError, Result, Tensor};

use crate::functional as F;
use crate::module::Module;
use crate::repr::{py_bool, py_tuple};
use crate::{display_as_repr, training_flag};

/// A size as torch stores it: as given, an int or a tuple.
fn size(v: &[usize]) -> String {
    match v {
        [one] => one.to_string(),
        _ => py_tuple(v),
    }
}

fn signed(v: &[usize]) -> Vec<isize> {
    v.iter().map(|&x| x as isize).collect()
}

/// torch's `nn.MaxPool2d(kernel_size, stride=None, padding=0, dilation=1,
/// return_indices=False, ceil_mode=False)`. `forward` returns the values; with
/// `return_indices`, `forward_with_indices` gives the indices too.
pub struct MaxPool2d {
    pub kernel_size: Vec<usize>,
    /// The kernel size when not given (torch's `stride=None`).
    pub stride: Vec<usize>,
    pub padding: Vec<usize>,
    pub dilation: Vec<usize>,
    pub return_indices: bool,
    pub ceil_mode: bool,
    training: bool,
}

impl MaxPool2d {
    /// `MaxPool2d(kernel_size)`: stride the kernel size, no padding.
    pub fn new(kernel_size: &[usize]) -> MaxPool2d {
        MaxPool2d {
            kernel_size: kernel_size.to_vec(),
            stride: kernel_size.to_vec(),
            padding: vec![0],
            dilation: vec![1],
            return_indices: false,
            ceil_mode: false,
            training: true,
        }
    }
    /// torch's full signature; `stride` `None` is the kernel size.
    pub fn with_options(
        kernel_size: &[usize],
        stride: Option<&[usize]>,
        padding: &[usize],
        dilation: &[usize],
        return_indices: bool,
        ceil_mode: bool,
    ) -> MaxPool2d {
        MaxPool2d {
            kernel_size: kernel_size.to_vec(),
            stride: stride.unwrap_or(kernel_size).to_vec(),
            padding: padding.to_vec(),
            dilation: dilation.to_vec(),
            return_indices,
            ceil_mode,
            training: true,
        }
    }
    pub fn stride(mut self, stride: &[usize]) -> Self {
        self.stride = stride.to_vec();
        self
    }
    pub fn padding(mut self, padding: &[usize]) -> Self {
        self.padding = padding.to_vec();
        self
    }
    pub fn dilation(mut self, dilation: &[usize]) -> Self {
        self.dilation = dilation.to_vec();
        self
    }
    pub fn return_indices(mut self, flag: bool) -> Self {
        self.return_indices = flag;
        self
    }
    pub fn ceil_mode(mut self, flag: bool) -> Self {
        self.ceil_mode = flag;
        self
    }

    /// The pooled values and the flat index of each maximum in its plane.
    pub fn forward_with_indices(&self, input: &Tensor) -> Result<(Tensor, Tensor)> {
        F::max_pool2d_with_indices(
            input,
            &signed(&self.kernel_size),
            Some(&signed(&self.stride)),
            &signed(&self.padding),
            &signed(&self.dilation),
            self.ceil_mode,
        )
    }
}

impl Module for MaxPool2d {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        if self.return_indices {
            return Err(BorchError::NotImplemented(
                "MaxPool2d(return_indices=True): a borch module's forward returns one tensor; \
                 call forward_with_indices for the values and the indices"
                    .into(),
            ));
        }
        F::max_pool2d(
            input,
            &signed(&self.kernel_size),
            Some(&signed(&self.stride)),
            &signed(&self.padding),
            &signed(&self.dilation),
            self.ceil_mode,
        )
    }
    fn name(&self) -> String {
        "MaxPool2d".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}",
            size(&self.kernel_size),
            size(&self.stride),
            size(&self.padding),
            size(&self.dilation),
            py_bool(self.ceil_mode)
        )
    }
    training_flag!();
}

/// torch's `nn.AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None)`.
pub struct AvgPool2d {
    pub kernel_size: Vec<usize>,
    pub stride: Vec<usize>,
    pub padding: Vec<usize>,
    pub ceil_mode: bool,
    pub count_include_pad: bool,
    pub divisor_override: Option<isize>,
    training: bool,
}

impl AvgPool2d {
    /// `AvgPool2d(kernel_size)`: stride the kernel size, no padding.
    pub fn new(kernel_size: &[usize]) -> AvgPool2d {
        AvgPool2d {
            kernel_size: kernel_size.to_vec(),
            stride: kernel_size.to_vec(),
            padding: vec![0],
            ceil_mode: false,
            count_include_pad: true,
            divisor_override: None,
            training: true,
        }
    }
    pub fn stride(mut self, stride: &[usize]) -> Self {
        self.stride = stride.to_vec();
        self
    }
    pub fn padding(mut self, padding: &[usize]) -> Self {
        self.padding = padding.to_vec();
        self
    }
    pub fn ceil_mode(mut self, flag: bool) -> Self {
        self.ceil_mode = flag;
        self
    }
    pub fn count_include_pad(mut self, flag: bool) -> Self {
        self.count_include_pad = flag;
        self
    }
    /// torch's full signature; `stride` `None` is the kernel size.
    pub fn with_options(
        kernel_size: &[usize],
        stride: Option<&[usize]>,
        padding: &[usize],
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Option<isize>,
    ) -> AvgPool2d {
        AvgPool2d {
            kernel_size: kernel_size.to_vec(),
            stride: stride.unwrap_or(kernel_size).to_vec(),
            padding: padding.to_vec(),
            ceil_mode,
            count_include_pad,
            divisor_override,
            training: true,
        }
    }
    pub fn divisor_override(mut self, divisor: Option<isize>) -> Self {
        self.divisor_override = divisor;
        self
    }
}

impl Module for AvgPool2d {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::avg_pool2d(
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
        "AvgPool2d".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "kernel_size={}, stride={}, padding={}",
            size(&self.kernel_size),
            size(&self.stride),
            size(&self.padding)
        )
    }
    training_flag!();
}

/// torch's `nn.AdaptiveAvgPool2d(output_size)`; `None` keeps that input size.
pub struct AdaptiveAvgPool2d {
    pub output_size: Vec<Option<usize>>,
    training: bool,
}

impl AdaptiveAvgPool2d {
    pub fn new(output_size: &[Option<usize>]) -> AdaptiveAvgPool2d {
        AdaptiveAvgPool2d {
            output_size: output_size.to_vec(),
            training: true,
        }
    }
}

impl Module for AdaptiveAvgPool2d {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::adaptive_avg_pool2d(input, &self.output_size)
    }
    fn name(&self) -> String {
        "AdaptiveAvgPool2d".into()
    }
    fn extra_repr(&self) -> String {
        let show = |s: &Option<usize>| s.map_or("None".to_string(), |x| x.to_string());
        let shown = match self.output_size.as_slice() {
            [one] => show(one),
            items => format!(
                "({})",
                items.iter().map(show).collect::<Vec<_>>().join(", ")
            ),
        };
        format!("output_size={shown}")
    }
    training_flag!();
}

display_as_repr!(MaxPool2d, AvgPool2d, AdaptiveAvgPool2d);
