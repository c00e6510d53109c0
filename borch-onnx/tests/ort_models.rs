//! Export the MLP, the CNN, the CIFAR ResNet-18 and torchvision's resnet18 (unfused and fused)
//! and the padding/resampling model and a small timm ViT (two blocks of attention), traced at
//! batch 2, check
//! the model's structure here, and write each model with inputs and borch's outputs at batch 2
//! and 3 to `target/onnx-models/` for ONNX Runtime (`tests/onnx/ort.mjs`) and the ONNX checker
//! (`scripts/onnx_check.py`), which `scripts/test` runs next.

mod common;

use std::path::PathBuf;

use borch_onnx::onnx_pb::ModelProto;
use borch_onnx::onnx_pb::tensor_shape_proto::dimension::Value as Dim;
use borch_onnx::onnx_pb::type_proto::Value as Ty;
use borch_onnx::{ExportOptions, export_blocking};
use borch_tensor::Result;
use prost::Message;

fn out_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/onnx-models");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json_tensor(t: &borch_tensor::Tensor) -> Result<serde_json::Value> {
    let data: Vec<f32> = t.to_vec_blocking()?;
    Ok(serde_json::json!({ "shape": t.shape(), "data": data }))
}

#[test]
fn models_export_with_module_paths_and_dynamic_batch() -> Result<()> {
    let dir = out_dir();
    for (name, build, shape, fused) in common::cases() {
        let m = common::prepared(build, &shape, fused)?;
        let x2 = common::input(&shape, 2)?;
        let bytes = export_blocking(m.as_ref(), &[&x2], &ExportOptions::default())?;
        // The same trace twice gives the same bytes.
        assert_eq!(
            bytes,
            export_blocking(m.as_ref(), &[&x2], &ExportOptions::default())?,
            "{name}"
        );
        let model = ModelProto::decode(bytes.as_slice()).expect("prost decodes what it wrote");
        assert_eq!(model.ir_version, Some(8), "{name}");
        assert_eq!(model.opset_import[0].version, Some(17), "{name}");
        let g = model.graph.as_ref().unwrap();
        let input_dim0 = match &g.input[0].r#type.as_ref().unwrap().value {
            Some(Ty::TensorType(t)) => t.shape.as_ref().unwrap().dim[0].value.clone(),
            _ => None,
        };
        assert_eq!(input_dim0, Some(Dim::DimParam("batch".into())), "{name}");
        let inits: Vec<&str> = g
            .initializer
            .iter()
            .filter_map(|t| t.name.as_deref())
            .collect();
        let nodes: Vec<&str> = g.node.iter().filter_map(|n| n.name.as_deref()).collect();
        let ops: Vec<&str> = g.node.iter().filter_map(|n| n.op_type.as_deref()).collect();
        match name {
            "mlp" => {
                assert!(
                    inits.contains(&"0.weight") && inits.contains(&"5.weight"),
                    "{inits:?}"
                );
                assert!(nodes.contains(&"/0/Gemm"), "{nodes:?}");
                assert!(
                    ops.contains(&"LayerNormalization") && ops.contains(&"Erf"),
                    "{ops:?}"
                );
            }
            "cnn" => {
                assert!(inits.contains(&"1.running_mean"), "{inits:?}");
                assert!(
                    nodes.contains(&"/4/Conv") && nodes.contains(&"/1/BatchNormalization"),
                    "{nodes:?}"
                );
                for op in [
                    "MaxPool",
                    "ConvTranspose",
                    "AveragePool",
                    "GlobalAveragePool",
                    "Softmax",
                ] {
                    assert!(ops.contains(&op), "{name}: no {op} in {ops:?}");
                }
            }
            "resnet18_cifar_w8" => {
                assert!(nodes.contains(&"/layer1/0/conv1/Conv"), "{nodes:?}");
                assert!(
                    nodes.contains(&"/layer2/0/downsample/1/BatchNormalization"),
                    "{nodes:?}"
                );
                assert_eq!(ops.iter().filter(|o| **o == "Conv").count(), 20, "{ops:?}");
            }
            "resnet18_cifar_w8_fused" | "cnn_fused" => {
                // Fused modules are written as the unfused ONNX ops: no BatchNormalization left
                // (it is folded into the convolution), Conv + Add + Relu per fused tail.
                assert!(!ops.contains(&"BatchNormalization"), "{ops:?}");
                assert!(ops.contains(&"Conv") && ops.contains(&"Relu"), "{ops:?}");
            }
            "pad_resize" => {
                assert_eq!(ops.iter().filter(|o| **o == "Pad").count(), 4, "{ops:?}");
                assert_eq!(ops.iter().filter(|o| **o == "Resize").count(), 7, "{ops:?}");
                assert!(!ops.contains(&"Gather"), "{ops:?}");
            }
            "resnet18" => {
                assert!(nodes.contains(&"/layer4/1/conv2/Conv"), "{nodes:?}");
                assert!(inits.contains(&"fc.weight"), "{inits:?}");
                assert_eq!(ops.iter().filter(|o| **o == "Conv").count(), 20, "{ops:?}");
            }
            "resnet18_fused" => {
                assert!(!ops.contains(&"BatchNormalization"), "{ops:?}");
                assert_eq!(ops.iter().filter(|o| **o == "Conv").count(), 20, "{ops:?}");
            }
            "vit_small_cfg" => {
                // Two blocks of attention as opset 17 writes it (no Attention op): per block two
                // MatMuls and one Softmax, LayerNormalization before each half, the class
                // token's Concat.
                assert_eq!(
                    ops.iter().filter(|o| **o == "Softmax").count(),
                    2,
                    "{ops:?}"
                );
                assert_eq!(
                    ops.iter().filter(|o| **o == "LayerNormalization").count(),
                    5,
                    "{ops:?}"
                );
                assert!(ops.contains(&"Concat") && ops.contains(&"Conv"), "{ops:?}");
                assert!(
                    inits.contains(&"cls_token") && inits.contains(&"pos_embed"),
                    "{inits:?}"
                );
                assert!(inits.contains(&"blocks.1.attn.qkv.weight"), "{inits:?}");
            }
            _ => unreachable!(),
        }
        let x3 = common::input(&shape, 3)?;
        let mut cases = Vec::new();
        for x in [&x2, &x3] {
            let y = borch_autograd::no_grad(|| m.forward(x))?;
            cases.push(serde_json::json!({ "input": json_tensor(x)?, "output": json_tensor(&y)? }));
        }
        std::fs::write(dir.join(format!("{name}.onnx")), &bytes).unwrap();
        let expected = serde_json::json!({ "model": format!("{name}.onnx"), "cases": cases });
        std::fs::write(dir.join(format!("{name}.json")), expected.to_string()).unwrap();
    }
    Ok(())
}
