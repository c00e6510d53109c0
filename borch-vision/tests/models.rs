//! The model catalog's arguments and errors (torchvision's messages), forward shapes, and the hooks a fusion pass uses (`set_child`,
//! `set_residual_tail`).

use borch_nn::{BatchNorm2d, Identity, Module, training_flag};
use borch_tensor::api::Value;
use borch_tensor::{BorchError, ErrorKind, Result, Tensor, manual_seed, randn};
use borch_vision::models::catalog::{build_model, names};
use borch_vision::models::{BasicBlock, ResNet, ResNetOptions, cifar_resnet18_with};

fn kw(items: &[(&str, Value)]) -> Vec<(String, Value)> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn error(name: &str, positional: Vec<Value>, keywords: &[(&str, Value)]) -> BorchError {
    match build_model(name, positional, kw(keywords)) {
        Ok(_) => panic!("{name}: expected an error"),
        Err(e) => e,
    }
}

#[test]
fn the_catalog_has_torchvisions_borchs_and_timms_names() {
    assert_eq!(
        names(),
        [
            "resnet18",
            "resnet34",
            "resnet50",
            "cifar_resnet18",
            "digits_mlp",
            "digits_cnn",
            "vit_tiny_patch16_224",
            "vit_small_patch16_224",
            "vit_base_patch16_224"
        ]
    );
}

#[test]
fn arguments_are_refused_as_torchvision_refuses_them() {
    let e = error("resnet18", vec![Value::Int(10)], &[]);
    assert_eq!(e.kind(), ErrorKind::Type);
    assert!(
        e.to_string()
            .contains("resnet18() takes 0 positional arguments but 1 was given")
    );
    let e = error(
        "resnet18",
        vec![],
        &[("weights", Value::Str("IMAGENET1K_V1".into()))],
    );
    assert_eq!(e.kind(), ErrorKind::NotImplemented);
    assert!(
        e.to_string().contains("ResNet18_Weights.IMAGENET1K_V1"),
        "{e}"
    );
    let e = error(
        "resnet50",
        vec![],
        &[("weights", Value::Str("DEFAULT".into()))],
    );
    assert!(
        e.to_string().contains("ResNet50_Weights.IMAGENET1K_V2"),
        "{e}"
    );
    let e = error(
        "resnet18",
        vec![],
        &[("norm_layer", Value::Other("function".into()))],
    );
    assert_eq!(e.kind(), ErrorKind::NotImplemented);
    assert!(e.to_string().contains("norm_layer"), "{e}");
    let e = error("resnet18", vec![], &[("pretrained", Value::Bool(true))]);
    assert_eq!(e.kind(), ErrorKind::Type);
    let e = error("resnet19", vec![], &[]);
    assert!(
        e.to_string()
            .contains("module 'torchvision.models' has no attribute 'resnet19'")
    );
    let dilation = |flags: &[bool]| Value::List(flags.iter().map(|&b| Value::Bool(b)).collect());
    let e = error(
        "resnet18",
        vec![],
        &[("replace_stride_with_dilation", dilation(&[false, true]))],
    );
    assert_eq!(e.kind(), ErrorKind::Value);
    assert!(e.to_string().contains(
        "replace_stride_with_dilation should be None or a 3-element tuple, got [False, True]"
    ));
}

#[test]
fn block_checks_are_torchvisions() {
    let e = error("resnet18", vec![], &[("groups", Value::Int(2))]);
    assert_eq!(e.kind(), ErrorKind::Value);
    assert!(
        e.to_string()
            .contains("BasicBlock only supports groups=1 and base_width=64")
    );
    let flags = Value::List(vec![
        Value::Bool(false),
        Value::Bool(false),
        Value::Bool(true),
    ]);
    let e = error(
        "resnet34",
        vec![],
        &[("replace_stride_with_dilation", flags)],
    );
    assert_eq!(e.kind(), ErrorKind::NotImplemented);
    assert!(
        e.to_string()
            .contains("Dilation > 1 not supported in BasicBlock")
    );
}

#[test]
fn forward_shapes_and_printed_form() -> Result<()> {
    manual_seed(0);
    let m = build_model("resnet18", vec![], kw(&[("num_classes", Value::Int(5))]))?;
    // Train mode: layer4's 1×1 planes need two samples per BatchNorm channel (torch's check).
    let x = randn(&[2, 3, 32, 32], None)?;
    assert_eq!(m.forward(&x)?.shape(), &[2, 5]);
    let c = build_model("cifar_resnet18", vec![], kw(&[("width", Value::Int(8))]))?;
    let x = randn(&[2, 3, 32, 32], None)?;
    assert_eq!(c.forward(&x)?.shape(), &[2, 10]);
    let text = c.repr();
    assert!(
        text.contains(
            "  (conv1): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)"
        ),
        "{text}"
    );
    assert!(text.contains("  (maxpool): Identity()"), "{text}");
    Ok(())
}

/// `relu(bn(conv(x)) + identity)` as one module taking `(x, identity)`: what a fused
/// ConvAddReLU2d computes, made here from the block's own conv2 and bn2.
struct Tail {
    conv: Box<dyn Module>,
    bn: Box<dyn Module>,
    training: bool,
}

impl Module for Tail {
    fn forward(&self, _: &Tensor) -> Result<Tensor> {
        Err(BorchError::Type("Tail takes (x, identity)".into()))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        self.bn
            .forward(&self.conv.forward(inputs[0])?)?
            .add(inputs[1])?
            .relu()
    }
    fn name(&self) -> String {
        "Tail".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        vec![
            ("0".into(), self.conv.as_ref()),
            ("1".into(), self.bn.as_ref()),
        ]
    }
    training_flag!();
}

#[test]
fn a_blocks_tail_can_be_handed_to_a_fused_module() -> Result<()> {
    manual_seed(0);
    let mut model: ResNet = cifar_resnet18_with(ResNetOptions {
        num_classes: 10,
        width: 8,
        ..ResNetOptions::default()
    })?;
    model.eval();
    let x = randn(&[2, 3, 32, 32], None)?;
    let before = model.forward(&x)?.to_vec_blocking::<f32>()?;
    for layer in model.layers_mut() {
        for i in 0..layer.len() {
            let block = layer.get_mut(i).unwrap();
            let block = block.as_any_mut().downcast_mut::<BasicBlock>().unwrap();
            let conv = block.set_child("conv2", Box::new(Identity::new()))?;
            let bn = block.set_child("bn2", Box::new(Identity::new()))?;
            assert!(bn.as_any().downcast_ref::<BatchNorm2d>().is_some());
            block.set_residual_tail(Box::new(Tail {
                conv,
                bn,
                training: false,
            }));
            assert!(block.residual_fused());
        }
    }
    let after = model.forward(&x)?.to_vec_blocking::<f32>()?;
    assert_eq!(before, after);
    let keys: Vec<String> = model
        .state_dict()
        .iter()
        .map(|(k, _)| k.to_string())
        .collect();
    assert!(
        keys.contains(&"layer1.0.conv2.0.weight".to_string()),
        "{keys:?}"
    );
    let block = model.layer1.get_mut(0).unwrap();
    let block = block.as_any_mut().downcast_mut::<BasicBlock>().unwrap();
    assert_eq!(
        block
            .set_child("conv9", Box::new(Identity::new()))
            .err()
            .unwrap()
            .kind(),
        ErrorKind::Key
    );
    Ok(())
}
