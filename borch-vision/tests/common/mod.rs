//! Shared helpers of the torchvision fixture tests: the cases file and error names.
#![allow(dead_code)]

use borch_tensor::BorchError;
use serde_json::Value;

/// The cases `tests/vision/fixtures_torchvision.py` wrote, one JSON object a line.
pub fn cases() -> Vec<Value> {
    let text = include_str!("../../../tests/vision/cases.json");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("case"))
        .collect()
}

/// The repo's `tests/vision/files/` folder.
pub fn files() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vision/files")
}

/// `"ValueError: message"`, as the script records Python exceptions.
pub fn py_error(e: &BorchError) -> String {
    let kind = match e {
        BorchError::Value(_) => "ValueError",
        BorchError::Type(_) => "TypeError",
        BorchError::Index(_) => "IndexError",
        BorchError::NotImplemented(_) => "NotImplementedError",
        _ => "RuntimeError",
    };
    format!("{kind}: {e}")
}

/// The adapter line for a test's measured figure.
pub fn adapter() -> String {
    let d = borch_tensor::default_device().expect("device");
    let i = d.adapter_info();
    format!(
        "{} / {} ({}, {}{})",
        i.vendor,
        i.device,
        i.backend,
        i.architecture,
        if i.is_software { ", software" } else { "" }
    )
}
