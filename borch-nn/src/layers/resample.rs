//! Upsample (and UpsamplingNearest2d / UpsamplingBilinear2d), PixelShuffle, PixelUnshuffle,
//! ChannelShuffle, Fold and Unfold.

use borch_tensor::{Result, Tensor};

use crate::functional as F;
use crate::module::Module;
use crate::repr::{py_float, py_tuple};
use crate::{display_as_repr, training_flag};

/// One int as Python prints it when it was given as an int, else a tuple.
fn int_or_tuple(v: &[usize]) -> String {
    match v {
        [one] => one.to_string(),
        _ => py_tuple(v),
    }
}

fn float_or_tuple(v: &[f64]) -> String {
    match v {
        [one] => py_float(*one),
        _ => {
            let parts: Vec<String> = v.iter().map(|&x| py_float(x)).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// torch's `nn.Upsample(size=None, scale_factor=None, mode='nearest', align_corners=None,
/// recompute_scale_factor=None)` (also `UpsamplingNearest2d` and `UpsamplingBilinear2d`, which
/// fix the mode). `size` and `scale_factor` hold one value (for every spatial dim) or one per dim.
pub struct Upsample {
    /// torch's `size`: the neighbouring channels normalized over.
    pub size: Option<Vec<usize>>,
    /// torch's `scale_factor`, one per spatial dim.
    pub scale_factor: Option<Vec<f64>>,
    /// torch's `mode`.
    pub mode: String,
    /// torch's `align_corners`.
    pub align_corners: Option<bool>,
    /// torch's `recompute_scale_factor`.
    pub recompute_scale_factor: Option<bool>,
    class: &'static str,
    training: bool,
}

impl Upsample {
    /// `Upsample(size, scale_factor, mode, align_corners, recompute_scale_factor)`.
    pub fn new(
        size: Option<&[usize]>,
        scale_factor: Option<&[f64]>,
        mode: &str,
        align_corners: Option<bool>,
        recompute_scale_factor: Option<bool>,
    ) -> Upsample {
        Upsample {
            size: size.map(<[usize]>::to_vec),
            // torch keeps `float(scale_factor) if scale_factor else None`.
            scale_factor: scale_factor
                .filter(|s| s.iter().any(|&x| x != 0.0))
                .map(<[f64]>::to_vec),
            mode: mode.into(),
            align_corners,
            recompute_scale_factor,
            class: "Upsample",
            training: true,
        }
    }

    /// torch's `nn.UpsamplingNearest2d(size=None, scale_factor=None)`.
    pub fn nearest_2d(size: Option<&[usize]>, scale_factor: Option<&[f64]>) -> Upsample {
        Upsample {
            class: "UpsamplingNearest2d",
            ..Upsample::new(size, scale_factor, "nearest", None, None)
        }
    }

    /// torch's `nn.UpsamplingBilinear2d(size=None, scale_factor=None)`: align_corners=True.
    pub fn bilinear_2d(size: Option<&[usize]>, scale_factor: Option<&[f64]>) -> Upsample {
        Upsample {
            class: "UpsamplingBilinear2d",
            ..Upsample::new(size, scale_factor, "bilinear", Some(true), None)
        }
    }
}

impl Module for Upsample {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::interpolate(
            input,
            self.size.as_deref(),
            self.scale_factor.as_deref(),
            &self.mode,
            self.align_corners,
            self.recompute_scale_factor,
            false,
        )
    }
    fn name(&self) -> String {
        self.class.into()
    }
    fn extra_repr(&self) -> String {
        let info = match (&self.scale_factor, &self.size) {
            (Some(s), _) => format!("scale_factor={}", float_or_tuple(s)),
            (None, Some(s)) => format!("size={}", int_or_tuple(s)),
            (None, None) => "size=None".into(),
        };
        format!("{info}, mode='{}'", self.mode)
    }
    training_flag!();
}

macro_rules! factor_layer {
    ($name:ident, $field:ident, $f:path, $doc:literal) => {
        #[doc = $doc]
        pub struct $name {
            #[doc = concat!("torch's `", stringify!($field), "`.")]
            pub $field: usize,
            training: bool,
        }

        impl $name {
            #[doc = concat!("torch's constructor with `", stringify!($field), "`.")]
            pub fn new($field: usize) -> $name {
                $name {
                    $field,
                    training: true,
                }
            }
        }

        impl Module for $name {
            fn forward(&self, input: &Tensor) -> Result<Tensor> {
                $f(input, self.$field)
            }
            fn name(&self) -> String {
                stringify!($name).into()
            }
            fn extra_repr(&self) -> String {
                format!("{}={}", stringify!($field), self.$field)
            }
            training_flag!();
        }

        display_as_repr!($name);
    };
}

factor_layer!(
    PixelShuffle,
    upscale_factor,
    F::pixel_shuffle,
    "torch's `nn.PixelShuffle(upscale_factor)`."
);
factor_layer!(
    PixelUnshuffle,
    downscale_factor,
    F::pixel_unshuffle,
    "torch's `nn.PixelUnshuffle(downscale_factor)`."
);
factor_layer!(
    ChannelShuffle,
    groups,
    F::channel_shuffle,
    "torch's `nn.ChannelShuffle(groups)`."
);

/// torch's `nn.Unfold(kernel_size, dilation=1, padding=0, stride=1)`.
pub struct Unfold {
    /// torch's `kernel_size`, one per spatial dim.
    pub kernel_size: Vec<usize>,
    /// torch's `dilation`, one per spatial dim.
    pub dilation: Vec<usize>,
    /// torch's `padding`.
    pub padding: Vec<usize>,
    /// torch's `stride`, one per spatial dim.
    pub stride: Vec<usize>,
    blocks: F::Blocks,
    training: bool,
}

impl Unfold {
    /// Each size is one int (both dims) or two.
    pub fn new(
        kernel_size: &[usize],
        dilation: &[usize],
        padding: &[usize],
        stride: &[usize],
    ) -> Result<Unfold> {
        Ok(Unfold {
            blocks: F::Blocks::new(kernel_size, dilation, padding, stride)?,
            kernel_size: kernel_size.to_vec(),
            dilation: dilation.to_vec(),
            padding: padding.to_vec(),
            stride: stride.to_vec(),
            training: true,
        })
    }

    fn sizes_repr(&self) -> String {
        format!(
            "kernel_size={}, dilation={}, padding={}, stride={}",
            int_or_tuple(&self.kernel_size),
            int_or_tuple(&self.dilation),
            int_or_tuple(&self.padding),
            int_or_tuple(&self.stride)
        )
    }
}

impl Module for Unfold {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::unfold(input, &self.blocks)
    }
    fn name(&self) -> String {
        "Unfold".into()
    }
    fn extra_repr(&self) -> String {
        self.sizes_repr()
    }
    training_flag!();
}

/// torch's `nn.Fold(output_size, kernel_size, dilation=1, padding=0, stride=1)`.
pub struct Fold {
    /// torch's `output_size`.
    pub output_size: Vec<usize>,
    unfold: Unfold,
    training: bool,
}

impl Fold {
    /// Each size is one int (both dims) or two.
    pub fn new(
        output_size: &[usize],
        kernel_size: &[usize],
        dilation: &[usize],
        padding: &[usize],
        stride: &[usize],
    ) -> Result<Fold> {
        Ok(Fold {
            output_size: output_size.to_vec(),
            unfold: Unfold::new(kernel_size, dilation, padding, stride)?,
            training: true,
        })
    }
}

impl Module for Fold {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        F::fold(input, &self.output_size, &self.unfold.blocks)
    }
    fn name(&self) -> String {
        "Fold".into()
    }
    fn extra_repr(&self) -> String {
        format!(
            "output_size={}, {}",
            int_or_tuple(&self.output_size),
            self.unfold.sizes_repr()
        )
    }
    training_flag!();
}

display_as_repr!(Upsample, Unfold, Fold);
