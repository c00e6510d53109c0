//! A benchmark model's weights for a peer's ONNX file: `export_weights` writes every
//! `state_dict` entry (float32, in order) and a check input to `PATH.bin` (little-endian f32),
//! and to `PATH` a JSON manifest (`tensors`: `[name, shape, offset in floats]`; `check`: the
//! input's offset and shape and borch's eval logits on it), plus the caller's fields. The scripts
//! `make_bench_resnet18_onnx.py` and `make_bench_vit_onnx.py` load the weights into torch's
//! network (strict), check its logits against borch's, then export the ONNX file.

use borch_autograd::no_grad;
use borch_nn::Module;
use borch_tensor::{BorchError, DType, Result, Tensor};
use serde_json::{Value, json};

/// Writes `path` and `path.bin` for `model` (already in eval mode) with the check input `x`;
/// `fields` (an object) is merged into the manifest.
pub(crate) fn export_weights(
    path: &str,
    model: &dyn Module,
    x: &Tensor,
    fields: Value,
) -> Result<()> {
    let io = |e: std::io::Error| BorchError::Value(format!("{path}: {e}"));
    let mut data: Vec<f32> = Vec::new();
    let mut tensors = Vec::new();
    for (name, t) in model.state_dict().iter() {
        let values = if t.dtype() == DType::Float32 {
            t.to_vec_blocking::<f32>()?
        } else {
            t.to_dtype(DType::Float32)?.to_vec_blocking::<f32>()?
        };
        tensors.push(json!([name, t.shape(), data.len()]));
        data.extend(values);
    }
    let logits = no_grad(|| model.forward(x))?.to_vec_blocking::<f32>()?;
    let input_offset = data.len();
    data.extend(x.to_vec_blocking::<f32>()?);
    let mut manifest = json!({
        "tensors": tensors,
        "check": {"input_offset": input_offset, "input_shape": x.shape(), "logits": logits},
    });
    for (k, v) in fields.as_object().into_iter().flatten() {
        manifest[k] = v.clone();
    }
    let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(format!("{path}.bin"), bytes).map_err(io)?;
    std::fs::write(path, manifest.to_string()).map_err(io)?;
    println!(
        "wrote {path} and {path}.bin ({} tensors, {} floats)",
        tensors.len(),
        data.len()
    );
    Ok(())
}
