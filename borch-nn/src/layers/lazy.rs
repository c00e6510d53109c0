//! torch's Lazy modules: LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d,
//! LazyBatchNorm1d/2d/3d and LazyInstanceNorm1d/2d/3d. Each
//! infers its input size (`in_features`, `in_channels`) on the first forward, then builds the
//! module it becomes (torch's `cls_to_become`) with torch's default initialisation drawn at that
//! moment, so after `manual_seed` the parameters are torch's. Before the first forward there are
//! no parameters (torch holds `UninitializedParameter`s, which borch does not have).

use std::cell::RefCell;

use borch_tensor::{BorchError, Padding, Result, Tensor};

use super::conv_transpose::conv_repr;
use super::{
    BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv2d, Conv3d, ConvOptions, ConvTranspose1d,
    ConvTranspose2d, ConvTranspose3d, ConvTransposeOptions, InstanceNorm1d, InstanceNorm2d,
    InstanceNorm3d, Linear,
};
use crate::module::Module;
use crate::repr::py_bool;

/// Builds the materialised module from the inferred input size.
type Make<M> = Box<dyn Fn(usize) -> Result<M>>;

/// A module whose input size is inferred on the first forward; then it is the module `M`
/// (its name, parameters, repr and forward).
pub struct Lazy<M: Module> {
    class: &'static str,
    /// torch's `extra_repr` before the first forward (the input size shown as 0).
    placeholder: String,
    /// The input size of a first input (torch's `in_features` / `_get_in_channels`).
    infer: fn(&Tensor, &'static str) -> Result<usize>,
    make: Make<M>,
    inner: RefCell<Option<M>>,
    training: bool,
}

impl<M: Module> Lazy<M> {
    fn new(
        class: &'static str,
        placeholder: String,
        infer: fn(&Tensor, &'static str) -> Result<usize>,
        make: Make<M>,
    ) -> Lazy<M> {
        Lazy {
            class,
            placeholder,
            infer,
            make,
            inner: RefCell::new(None),
            training: true,
        }
    }

    /// torch's `has_uninitialized_params()`: true until the first forward.
    pub fn has_uninitialized_params(&self) -> bool {
        self.inner.borrow().is_none()
    }

    /// torch's `initialize_parameters(input)`: build the module for this input's size (a no-op
    /// once built).
    pub fn initialize_parameters(&self, input: &Tensor) -> Result<()> {
        if self.inner.borrow().is_some() {
            return Ok(());
        }
        let size = (self.infer)(input, self.class)?;
        let mut m = (self.make)(size)?;
        m.train(self.training);
        *self.inner.borrow_mut() = Some(m);
        Ok(())
    }
}

impl<M: Module + 'static> Module for Lazy<M> {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        self.initialize_parameters(input)?;
        match self.inner.borrow().as_ref() {
            Some(m) => m.forward(input),
            None => Err(BorchError::Runtime(format!(
                "{} is not initialised",
                self.class
            ))),
        }
    }
    fn name(&self) -> String {
        match self.inner.borrow().as_ref() {
            Some(m) => m.name(),
            None => self.class.into(),
        }
    }
    fn extra_repr(&self) -> String {
        match self.inner.borrow().as_ref() {
            Some(m) => m.extra_repr(),
            None => self.placeholder.clone(),
        }
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        self.inner
            .borrow()
            .as_ref()
            .map_or_else(Vec::new, |m| m.own_parameters())
    }
    fn own_buffers(&self) -> Vec<(String, Tensor)> {
        self.inner
            .borrow()
            .as_ref()
            .map_or_else(Vec::new, |m| m.own_buffers())
    }
    fn is_training(&self) -> bool {
        self.training
    }
    fn set_training(&mut self, mode: bool) {
        self.training = mode;
        if let Some(m) = self.inner.get_mut() {
            m.set_training(mode);
        }
    }
}

impl<M: Module + 'static> std::fmt::Display for Lazy<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.repr())
    }
}

impl<M: Module + 'static> std::fmt::Debug for Lazy<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.repr())
    }
}

/// torch's `LazyLinear`: `in_features = input.shape[-1]`.
fn last_dim(input: &Tensor, _class: &'static str) -> Result<usize> {
    match input.shape().last() {
        Some(&n) => Ok(n),
        None => Err(BorchError::Index(
            "tuple index out of range (a 0-dim input has no last dim)".into(),
        )),
    }
}

/// torch's `_LazyConvXdMixin._get_in_channels` for `dims` spatial dims.
fn in_channels(input: &Tensor, class: &'static str, dims: usize) -> Result<usize> {
    let (unbatched, batched) = (dims + 1, dims + 2);
    if input.dim() != unbatched && input.dim() != batched {
        return Err(BorchError::Runtime(format!(
            "Expected {unbatched}D (unbatched) or {batched}D (batched) input to {class}, but got \
             input of size: {}",
            borch_tensor::fmt_size(input.shape())
        )));
    }
    Ok(input.shape()[input.dim() - unbatched])
}

/// torch's `nn.LazyLinear(out_features, bias=True)`; becomes a `Linear`.
pub type LazyLinear = Lazy<Linear>;

impl Lazy<Linear> {
    /// torch's `LazyLinear(out_features, bias)`: `in_features` is taken from the first input.
    pub fn linear(out_features: usize, bias: bool) -> LazyLinear {
        let placeholder = format!(
            "in_features=0, out_features={out_features}, bias={}",
            py_bool(bias)
        );
        Lazy::new(
            "LazyLinear",
            placeholder,
            last_dim,
            Box::new(move |n| Linear::with_bias(n, out_features, bias)),
        )
    }
}

/// Every spatial dim's value (torch's `_single` / `_pair` / `_triple`).
fn full(v: &[usize], n: usize) -> Vec<usize> {
    if v.len() == 1 {
        vec![v[0]; n]
    } else {
        v.to_vec()
    }
}

fn conv_placeholder(dims: usize, out: usize, kernel: &[usize], o: &ConvOptions) -> String {
    let sizes = match &o.padding {
        Padding::Sizes(s) => full(&s.iter().map(|&x| x as usize).collect::<Vec<_>>(), dims),
        _ => vec![0; dims],
    };
    let mut s = conv_repr(
        0,
        out,
        &full(kernel, dims),
        &full(&o.stride, dims),
        &sizes,
        &full(&o.dilation, dims),
        &[],
        o.groups,
        o.bias,
        &o.padding_mode,
    );
    // After `stride=(…)`, where torch shows a string padding.
    let stride = s.find("stride=(").unwrap_or(0);
    let stride_end = s[stride..].find(')').map_or(s.len(), |i| stride + i + 1);
    match &o.padding {
        Padding::Valid => s.insert_str(stride_end, ", padding=valid"),
        Padding::Same => s.insert_str(stride_end, ", padding=same"),
        Padding::Sizes(_) => {}
    }
    s
}

macro_rules! lazy_conv {
    ($alias:ident, $inner:ident, $ctor:ident, $dims:expr, $doc:literal) => {
        #[doc = $doc]
        pub type $alias = Lazy<$inner>;

        impl Lazy<$inner> {
            #[doc = $doc]
            pub fn $ctor(
                out_channels: usize,
                kernel_size: &[usize],
                options: ConvOptions,
            ) -> $alias {
                let placeholder = conv_placeholder($dims, out_channels, kernel_size, &options);
                let kernel = kernel_size.to_vec();
                Lazy::new(
                    stringify!($alias),
                    placeholder,
                    |x, class| in_channels(x, class, $dims),
                    Box::new(move |c| {
                        $inner::with_options(c, out_channels, &kernel, options.clone())
                    }),
                )
            }
        }
    };
}

lazy_conv!(
    LazyConv1d,
    Conv1d,
    conv1d,
    1,
    "torch's `nn.LazyConv1d(out_channels, kernel_size, stride=1, padding=0, dilation=1, \
     groups=1, bias=True, padding_mode='zeros')`; becomes a `Conv1d`."
);
lazy_conv!(
    LazyConv2d,
    Conv2d,
    conv2d,
    2,
    "torch's `nn.LazyConv2d(out_channels, kernel_size, …)`; becomes a `Conv2d`."
);
lazy_conv!(
    LazyConv3d,
    Conv3d,
    conv3d,
    3,
    "torch's `nn.LazyConv3d(out_channels, kernel_size, …)`; becomes a `Conv3d`."
);

macro_rules! lazy_conv_transpose {
    ($alias:ident, $inner:ident, $ctor:ident, $dims:expr, $doc:literal) => {
        #[doc = $doc]
        pub type $alias = Lazy<$inner>;

        impl Lazy<$inner> {
            #[doc = $doc]
            pub fn $ctor(
                out_channels: usize,
                kernel_size: &[usize],
                options: ConvTransposeOptions,
            ) -> $alias {
                let o = &options;
                let placeholder = conv_repr(
                    0,
                    out_channels,
                    &full(kernel_size, $dims),
                    &full(&o.stride, $dims),
                    &full(&o.padding, $dims),
                    &full(&o.dilation, $dims),
                    &full(&o.output_padding, $dims),
                    o.groups,
                    o.bias,
                    &o.padding_mode,
                );
                let kernel = kernel_size.to_vec();
                Lazy::new(
                    stringify!($alias),
                    placeholder,
                    |x, class| in_channels(x, class, $dims),
                    Box::new(move |c| {
                        $inner::with_options(c, out_channels, &kernel, options.clone())
                    }),
                )
            }
        }
    };
}

lazy_conv_transpose!(
    LazyConvTranspose1d,
    ConvTranspose1d,
    conv_transpose1d,
    1,
    "torch's `nn.LazyConvTranspose1d(out_channels, kernel_size, stride=1, padding=0, \
     output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros')`."
);
lazy_conv_transpose!(
    LazyConvTranspose2d,
    ConvTranspose2d,
    conv_transpose2d,
    2,
    "torch's `nn.LazyConvTranspose2d(out_channels, kernel_size, …)`."
);
lazy_conv_transpose!(
    LazyConvTranspose3d,
    ConvTranspose3d,
    conv_transpose3d,
    3,
    "torch's `nn.LazyConvTranspose3d(out_channels, kernel_size, …)`."
);

/// torch's `_LazyNormBase`: `num_features = input.shape[1]` (for every input, batched or not).
fn second_dim(input: &Tensor, _class: &'static str) -> Result<usize> {
    match input.shape().get(1) {
        Some(&n) => Ok(n),
        None => Err(BorchError::Index("tuple index out of range".into())),
    }
}

macro_rules! lazy_norm {
    ($alias:ident, $inner:ident, $doc:literal) => {
        #[doc = $doc]
        pub type $alias = Lazy<$inner>;

        impl Lazy<$inner> {
            /// `(eps, momentum, affine, track_running_stats, *, bias)`; `momentum` `None` is the
            /// cumulative average.
            pub fn norm(
                eps: f64,
                momentum: Option<f64>,
                affine: bool,
                track_running_stats: bool,
                bias: bool,
            ) -> Result<$alias> {
                // A 0-feature layer shows torch's repr before the first forward (its init
                // draws nothing: ones, zeros and the running statistics).
                let shown =
                    $inner::with_options(0, eps, momentum, affine, track_running_stats, bias)?;
                Ok(Lazy::new(
                    stringify!($alias),
                    shown.extra_repr(),
                    second_dim,
                    Box::new(move |c| {
                        $inner::with_options(c, eps, momentum, affine, track_running_stats, bias)
                    }),
                ))
            }
        }
    };
}

lazy_norm!(
    LazyBatchNorm1d,
    BatchNorm1d,
    "torch's `nn.LazyBatchNorm1d(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, \
     *, bias=True)`; becomes a `BatchNorm1d`."
);
lazy_norm!(
    LazyBatchNorm2d,
    BatchNorm2d,
    "torch's `nn.LazyBatchNorm2d(…)`; becomes a `BatchNorm2d`."
);
lazy_norm!(
    LazyBatchNorm3d,
    BatchNorm3d,
    "torch's `nn.LazyBatchNorm3d(…)`; becomes a `BatchNorm3d`."
);
lazy_norm!(
    LazyInstanceNorm1d,
    InstanceNorm1d,
    "torch's `nn.LazyInstanceNorm1d(eps=1e-05, momentum=0.1, affine=True, \
     track_running_stats=True, *, bias=True)` (torch's defaults, unlike InstanceNorm1d's); \
     becomes an `InstanceNorm1d`."
);
lazy_norm!(
    LazyInstanceNorm2d,
    InstanceNorm2d,
    "torch's `nn.LazyInstanceNorm2d(…)`; becomes an `InstanceNorm2d`."
);
lazy_norm!(
    LazyInstanceNorm3d,
    InstanceNorm3d,
    "torch's `nn.LazyInstanceNorm3d(…)`; becomes an `InstanceNorm3d`."
);
