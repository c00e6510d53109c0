//! Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle,
//! ChannelShuffle, Fold and Unfold.

use borch_tensor::api::{Args, Value};
use borch_tensor::{BorchError, Result};

use super::{ModuleClass, boxed, class};
use crate::{ChannelShuffle, Fold, PixelShuffle, PixelUnshuffle, Unfold, Upsample};

/// `scale_factor`: None, a number, or a list of numbers.
fn scale_factor(a: &Args, i: usize) -> Result<Option<Vec<f64>>> {
    let num = |v: &Value| match v {
        Value::Int(x) => Ok(*x as f64),
        Value::Float(x) => Ok(*x),
        other => Err(BorchError::Type(format!(
            "{}(): argument 'scale_factor' must be float or tuple of floats, not {}",
            a.name(),
            other.type_name()
        ))),
    };
    match a.get(i) {
        Value::None => Ok(None),
        Value::List(items) => items.iter().map(num).collect::<Result<Vec<_>>>().map(Some),
        v => num(v).map(|x| Some(vec![x])),
    }
}

fn opt_bool(a: &Args, i: usize) -> Result<Option<bool>> {
    match a.get(i) {
        Value::None => Ok(None),
        _ => a.bool(i).map(Some),
    }
}

const SIZES: &str = "size: Ints = None, scale_factor: Float = None";

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("Upsample", "size: Ints = None, scale_factor: Float = None, mode: Str = 'nearest', \
                          align_corners: Bool = None, recompute_scale_factor: Bool = None",
            |a| {
                let (size, scale) = (a.opt_sizes(0)?, scale_factor(a, 1)?);
                boxed(Upsample::new(size.as_deref(), scale.as_deref(), a.str(2)?, opt_bool(a, 3)?,
                    opt_bool(a, 4)?))
            }),
        class("UpsamplingNearest2d", SIZES, |a| {
            let (size, scale) = (a.opt_sizes(0)?, scale_factor(a, 1)?);
            boxed(Upsample::nearest_2d(size.as_deref(), scale.as_deref()))
        }),
        class("UpsamplingBilinear2d", SIZES, |a| {
            let (size, scale) = (a.opt_sizes(0)?, scale_factor(a, 1)?);
            boxed(Upsample::bilinear_2d(size.as_deref(), scale.as_deref()))
        }),
        class("PixelShuffle", "upscale_factor: Int", |a| boxed(PixelShuffle::new(a.usize(0)?))),
        class("PixelUnshuffle", "downscale_factor: Int", |a| boxed(PixelUnshuffle::new(a.usize(0)?))),
        class("ChannelShuffle", "groups: Int", |a| boxed(ChannelShuffle::new(a.usize(0)?))),
        class("Fold", "output_size: Ints, kernel_size: Ints, dilation: Ints = 1, padding: Ints = 0, \
                      stride: Ints = 1",
            |a| boxed(Fold::new(&a.sizes(0)?, &a.sizes(1)?, &a.sizes(2)?, &a.sizes(3)?, &a.sizes(4)?)?)),
        class("Unfold", "kernel_size: Ints, dilation: Ints = 1, padding: Ints = 0, stride: Ints = 1",
            |a| boxed(Unfold::new(&a.sizes(0)?, &a.sizes(1)?, &a.sizes(2)?, &a.sizes(3)?)?)),
    ]
}
