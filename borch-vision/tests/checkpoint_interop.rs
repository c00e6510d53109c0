//! torchvision's resnet18 saved by torch (`tests/checkpoints/fixtures_torch.py make`:
//! `safetensors.torch.save_file(resnet18(num_classes=10).state_dict())`, weights rounded to two
//! values per tensor so the file compresses, kept gzipped) loads strictly into borch's resnet18
//! and gives torch's logits.

use std::io::Read;

use borch_nn::Module;
use borch_nn::serialization::{load, load_file};
use borch_vision::models::{ResNetOptions, resnet18_with};

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/checkpoints/fixtures"
    ))
    .join(name)
}

#[test]
fn torchvision_resnet18_file_gives_torchs_logits() {
    let mut model = resnet18_with(ResNetOptions {
        num_classes: 10,
        ..ResNetOptions::default()
    })
    .unwrap();
    let gz = std::fs::File::open(fixture("resnet18.safetensors.gz")).unwrap();
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut bytes)
        .unwrap();
    let sd = load(&bytes).unwrap();
    assert_eq!(
        sd.get("bn1.num_batches_tracked").unwrap().dtype(),
        borch_tensor::DType::Int64
    );
    let keys = model.load_state_dict(&sd, true).unwrap();
    assert!(keys.missing_keys.is_empty() && keys.unexpected_keys.is_empty());
    model.eval();
    let io = load_file(fixture("resnet18_io.safetensors")).unwrap();
    let logits = borch_autograd::no_grad(|| model.forward(io.get("input").unwrap())).unwrap();
    let want = io.get("logits").unwrap();
    assert_eq!(logits.shape(), want.shape());
    let got: Vec<f32> = logits.to_vec_blocking().unwrap();
    let want: Vec<f32> = want.to_vec_blocking().unwrap();
    let err = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    eprintln!("resnet18 from torch: max |borch - torch| logits = {err:e}");
    assert!(err <= 1e-5, "max |borch - torch| = {err}");
}
