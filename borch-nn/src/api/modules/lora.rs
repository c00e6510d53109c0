//! LoRALinear and LoRAConv2d: loralib's `lora.Linear` and `lora.Conv2d` (loralib 0.1.2's
//! argument names, order and defaults; torch has no LoRA). What loralib takes and borch does not
//! is refused, never ignored: `fan_in_fan_out=True`, and a Conv2d's `lora_dropout` (loralib
//! makes the dropout but its forward never applies it).

use borch_tensor::api::Args;
use borch_tensor::{BorchError, Result};

use super::{ModuleClass, boxed, class, factory};
use crate::{ConvOptions, LoRAConv2d, LoRALinear};

fn refuse(what: &str) -> Result<()> {
    Err(BorchError::NotImplemented(what.into()))
}

fn linear(a: &Args) -> Result<Box<dyn crate::module::Module>> {
    factory(a, 8)?;
    if a.bool(5)? {
        refuse(
            "LoRALinear(fan_in_fan_out=True): borch's LoRALinear stores weight as nn.Linear \
             does, (out_features, in_features); transpose a (fan_in, fan_out) weight before \
             loading it",
        )?;
    }
    let (r, alpha, dropout) = (a.usize(2)?, a.f64(3)?, a.f64(4)?);
    let m = LoRALinear::new(
        a.usize(0)?,
        a.usize(1)?,
        r,
        alpha,
        dropout,
        a.bool(6)?,
        a.bool(7)?,
    )?;
    boxed(m)
}

fn conv2d(a: &Args) -> Result<Box<dyn crate::module::Module>> {
    factory(a, 13)?;
    if a.f64(5)? != 0.0 {
        refuse(
            "LoRAConv2d(lora_dropout=...): loralib 0.1.2 makes the dropout but its Conv2d \
             forward never applies it; borch takes lora_dropout=0.0 only",
        )?;
    }
    let o = ConvOptions::default()
        .stride(&a.sizes(7)?)
        .padding(a.padding(8)?)
        .dilation(&a.sizes(9)?)
        .groups(a.usize(10)?)
        .bias(a.bool(11)?)
        .padding_mode(a.str(12)?);
    let m = LoRAConv2d::new(
        a.usize(0)?,
        a.usize(1)?,
        a.usize(2)?,
        a.usize(3)?,
        a.f64(4)?,
        a.bool(6)?,
        o,
    )?;
    boxed(m)
}

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("LoRALinear", "in_features: Int, out_features: Int, r: Int = 0, lora_alpha: Float = 1, \
                             lora_dropout: Float = 0.0, fan_in_fan_out: Bool = False, merge_weights: Bool = True, \
                             bias: Bool = True, device: Str = None, dtype: DType = None", linear),
        class("LoRAConv2d", "in_channels: Int, out_channels: Int, kernel_size: Int, r: Int = 0, lora_alpha: Float = 1, \
                             lora_dropout: Float = 0.0, merge_weights: Bool = True, stride: Ints = 1, \
                             padding: Padding = 0, dilation: Ints = 1, groups: Int = 1, bias: Bool = True, \
                             padding_mode: Str = 'zeros', device: Str = None, dtype: DType = None", conv2d),
    ]
}
