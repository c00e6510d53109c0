//! The models of `torchvision.models` as a catalog the bindings forward to: each model by its
//! torchvision name, with its signature written as the op catalog writes one (torchvision's
//! keyword arguments and defaults, `**kwargs` spelled out as `ResNet`'s) and one builder.
//! [`build_model`] binds with the core's binder (torch's TypeErrors) and builds, so borch-ts's
//! `vision.models.resnet18({ numClasses: 10 })`, borch_webgpu's `vision.models.resnet18(
//! num_classes=10)` and native callers all construct through this one definition.
//!
//! torchvision's model builders take keywords only (`resnet18(*, weights=None, progress=True,
//! **kwargs)`): a positional argument is torch's TypeError. `weights` must be None (borch-vision
//! downloads nothing: a pretrained weights name is refused, naming it); `norm_layer` must be None
//! (always `BatchNorm2d`); `progress` only concerns downloads and is accepted.

use std::sync::OnceLock;

use borch_nn::Module;
use borch_nn::api::modules::ModuleClass;
use borch_tensor::api::{self, Args, Value};
use borch_tensor::{BorchError, Result};

use super::{
    ResNetOptions, VisionTransformer, VitConfig, cifar_resnet18_with, digits_cnn, digits_mlp,
    resnet18_with, resnet34_with, resnet50_with,
};

/// The module named in errors (`module 'torchvision.models' has no attribute 'X'`).
pub const MODULE: &str = "torchvision.models";

/// torchvision's ResNet builders' keywords: `weights`, `progress`, then `ResNet`'s.
const RESNET: &str = "weights: Str = None, progress: Bool = True, num_classes: Int = 1000, \
     zero_init_residual: Bool = False, groups: Int = 1, width_per_group: Int = 64, \
     replace_stride_with_dilation: Ints = None, norm_layer: Str = None";

/// timm's `create_model(name, pretrained=False, **kwargs)` keywords that borch's ViTs take.
const VIT: &str = "pretrained: Bool = False, num_classes: Int = 1000, img_size: Int = 224, \
     in_chans: Int = 3, drop_rate: Float = 0.0, pos_drop_rate: Float = 0.0, \
     proj_drop_rate: Float = 0.0, attn_drop_rate: Float = 0.0";

/// borch's CIFAR ResNet-18 (`width`: the stem's channels and layer1's planes).
const CIFAR: &str = "num_classes: Int = 10, width: Int = 64, zero_init_residual: Bool = False";

/// borch's digits MLP (`Flatten, Linear(64, hidden), ReLU, Linear(hidden, num_classes)`).
const DIGITS_MLP: &str = "hidden: Int = 64, num_classes: Int = 10";

/// borch's digits CNN (two 3×3 convs with BatchNorm, a max pool, a linear layer).
const DIGITS_CNN: &str = "num_classes: Int = 10";

/// One model: `borch_nn`'s catalog row, built by `build`.
fn model(
    name: &'static str,
    signature: &'static str,
    build: fn(&Args) -> Result<Box<dyn Module>>,
) -> ModuleClass {
    borch_nn::api::modules::class(name, signature, build)
}

/// Every model, built once: `resnet18`, `resnet34`, `resnet50`, `cifar_resnet18`, borch's
/// `digits_mlp` and `digits_cnn` (the model catalogue's entries), and timm's
/// `vit_tiny_patch16_224`, `vit_small_patch16_224`, `vit_base_patch16_224` (timm's names and
/// keywords: torchvision's own `vit_b_16` has other keys).
pub fn models() -> &'static [ModuleClass] {
    static MODELS: OnceLock<Vec<ModuleClass>> = OnceLock::new();
    MODELS.get_or_init(|| {
        vec![
            model("resnet18", RESNET, |a| {
                boxed(resnet18_with(resnet_options(
                    a,
                    "ResNet18_Weights",
                    &["IMAGENET1K_V1"],
                )?)?)
            }),
            model("resnet34", RESNET, |a| {
                boxed(resnet34_with(resnet_options(
                    a,
                    "ResNet34_Weights",
                    &["IMAGENET1K_V1"],
                )?)?)
            }),
            model("resnet50", RESNET, |a| {
                let weights = ["IMAGENET1K_V1", "IMAGENET1K_V2"];
                boxed(resnet50_with(resnet_options(
                    a,
                    "ResNet50_Weights",
                    &weights,
                )?)?)
            }),
            model("cifar_resnet18", CIFAR, |a| {
                let width = a.usize(1)?;
                if width == 0 {
                    return Err(BorchError::Value(
                        "cifar_resnet18(): width must be a positive int".into(),
                    ));
                }
                boxed(cifar_resnet18_with(ResNetOptions {
                    num_classes: a.usize(0)?,
                    width,
                    zero_init_residual: a.bool(2)?,
                    ..ResNetOptions::default()
                })?)
            }),
            model("digits_mlp", DIGITS_MLP, |a| {
                boxed(digits_mlp(a.usize(0)?, a.usize(1)?)?)
            }),
            model("digits_cnn", DIGITS_CNN, |a| {
                boxed(digits_cnn(a.usize(0)?)?)
            }),
            model("vit_tiny_patch16_224", VIT, |a| vit(a, VitConfig::tiny())),
            model("vit_small_patch16_224", VIT, |a| vit(a, VitConfig::small())),
            model("vit_base_patch16_224", VIT, |a| vit(a, VitConfig::base())),
        ]
    })
}

fn boxed<M: Module + 'static>(m: M) -> Result<Box<dyn Module>> {
    Ok(Box::new(m))
}

/// The model called `name`, if the catalog has it.
pub fn find(name: &str) -> Option<&'static ModuleClass> {
    models().iter().find(|m| m.name == name)
}

/// Every model name, in catalog order.
pub fn names() -> Vec<&'static str> {
    models().iter().map(|m| m.name).collect()
}

/// torchvision's `models.<name>(**keywords)`: keywords bound to the model's signature (torch's
/// TypeErrors), then the model built. torchvision's builders take no positional argument.
pub fn build_model(
    name: &str,
    positional: Vec<Value>,
    keywords: Vec<(String, Value)>,
) -> Result<Box<dyn Module>> {
    let Some(m) = find(name) else {
        return Err(BorchError::Type(format!(
            "module '{MODULE}' has no attribute '{name}'"
        )));
    };
    if !positional.is_empty() {
        return Err(BorchError::Type(format!(
            "{name}() takes 0 positional arguments but {} {} given",
            positional.len(),
            if positional.len() == 1 { "was" } else { "were" }
        )));
    }
    let args = api::bind(&m.entry, positional, keywords)?;
    (m.build)(&args)
}

/// `weights` (argument 0) must be None: the weights torchvision would download are refused by
/// name.
fn no_weights(a: &Args, enum_name: &str, available: &[&str]) -> Result<()> {
    let given = match a.get(0) {
        Value::None => return Ok(()),
        Value::Str(s) => format!("'{s}'"),
        other => other.type_name().to_string(),
    };
    let list: Vec<String> = available
        .iter()
        .map(|w| format!("{enum_name}.{w}"))
        .collect();
    Err(BorchError::NotImplemented(format!(
        "{}(weights={given}): borch-vision has no pretrained weights ({} and DEFAULT are \
         downloaded by torchvision; borch downloads nothing): pass weights=None and load a state \
         dict with load_state_dict",
        a.name(),
        list.join(", ")
    )))
}

/// `replace_stride_with_dilation` (argument 6): None or three flags (bools, or ints as Python
/// truth values), with torchvision's ValueError otherwise.
fn dilation_flags(a: &Args) -> Result<[bool; 3]> {
    let items = match a.get(6) {
        Value::None => return Ok([false; 3]),
        Value::List(items) => items,
        other => {
            return Err(BorchError::Type(format!(
                "{}(): argument 'replace_stride_with_dilation' must be a list of 3 bools, not {}",
                a.name(),
                other.type_name()
            )));
        }
    };
    let flag = |v: &Value| match v {
        Value::Bool(b) => Ok(*b),
        Value::Int(i) => Ok(*i != 0),
        other => Err(BorchError::Type(format!(
            "{}(): replace_stride_with_dilation items must be bools, not {}",
            a.name(),
            other.type_name()
        ))),
    };
    let flags = items.iter().map(flag).collect::<Result<Vec<bool>>>()?;
    match flags.as_slice() {
        [x, y, z] => Ok([*x, *y, *z]),
        _ => {
            let shown: Vec<&str> = flags
                .iter()
                .map(|&b| if b { "True" } else { "False" })
                .collect();
            Err(BorchError::Value(format!(
                "replace_stride_with_dilation should be None or a 3-element tuple, got [{}]",
                shown.join(", ")
            )))
        }
    }
}

/// torchvision's ResNet builder keywords as [`ResNetOptions`].
fn resnet_options(a: &Args, weights_enum: &str, weights: &[&str]) -> Result<ResNetOptions> {
    no_weights(a, weights_enum, weights)?;
    a.bool(1)?;
    if !a.get(7).is_none() {
        return Err(BorchError::NotImplemented(format!(
            "{}(norm_layer=...): borch-vision's ResNet always uses nn.BatchNorm2d; a custom \
             norm_layer is not supported",
            a.name()
        )));
    }
    Ok(ResNetOptions {
        num_classes: a.usize(2)?,
        zero_init_residual: a.bool(3)?,
        groups: a.usize(4)?,
        width_per_group: a.usize(5)?,
        replace_stride_with_dilation: dilation_flags(a)?,
        width: 64,
    })
}

/// timm's ViT keywords over `base`; `pretrained=True` is refused (borch downloads nothing).
fn vit(a: &Args, base: VitConfig) -> Result<Box<dyn Module>> {
    if a.bool(0)? {
        return Err(BorchError::NotImplemented(format!(
            "{}(pretrained=True): borch-vision has no pretrained weights (timm downloads them; \
             borch downloads nothing): pass pretrained=False and load a state dict with \
             load_state_dict",
            a.name()
        )));
    }
    let rate = |i: usize| -> Result<f64> {
        let p = a.f64(i)?;
        if (0.0..=1.0).contains(&p) {
            Ok(p)
        } else {
            Err(BorchError::Value(format!(
                "dropout probability has to be between 0 and 1, but got {p}"
            )))
        }
    };
    boxed(VisionTransformer::new(VitConfig {
        num_classes: a.usize(1)?,
        img_size: a.usize(2)?,
        in_chans: a.usize(3)?,
        drop_rate: rate(4)?,
        pos_drop_rate: rate(5)?,
        proj_drop_rate: rate(6)?,
        attn_drop_rate: rate(7)?,
        ..base
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_has_a_unique_name_and_a_parsed_signature() {
        let mut names = names();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
        for m in models() {
            let expected = m
                .signature
                .split(',')
                .filter(|p| !p.trim().is_empty())
                .count();
            assert_eq!(m.params().len(), expected, "{m:?}");
        }
    }
}
