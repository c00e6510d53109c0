//! torch's `safetensors.torch.save` / `load` for borch tensors: read back from the GPU, written
//! by the codec; decoded on the host, uploaded.

use std::collections::BTreeMap;

use borch_tensor::{BorchError, Result, Tensor};

use super::codec::{self, FileContents, FileData, FileEntry};
use crate::state_dict::StateDict;

/// A file entry holding `t` (waits for the GPU's copy).
pub async fn entry_of(name: &str, t: &Tensor) -> Result<FileEntry> {
    Ok(FileEntry {
        name: name.to_string(),
        shape: t.shape().to_vec(),
        data: FileData::Tensor(t.to_host().await?),
    })
}

/// The tensor of a file entry (uploaded); raw bytes (uint8) are refused.
pub fn tensor_of(e: &FileEntry) -> Result<Tensor> {
    match &e.data {
        FileData::Tensor(host) => Tensor::from_host(host, &e.shape),
        FileData::Bytes(_) => Err(BorchError::NotImplemented(format!(
            "tensor '{}' has dtype uint8, which borch does not have (float32, int64 and bool \
             only; see docs/dtypes.md)",
            e.name
        ))),
    }
}

/// torch's `safetensors.torch.save(tensors, metadata)`: the bytes of a file holding `tensors`.
pub async fn save(tensors: &StateDict, metadata: &BTreeMap<String, String>) -> Result<Vec<u8>> {
    let mut entries = Vec::with_capacity(tensors.len());
    for (name, t) in tensors.iter() {
        entries.push(entry_of(name, t).await?);
    }
    codec::encode(&FileContents {
        entries,
        metadata: metadata.clone(),
    })
}

/// torch's `safetensors.torch.load(data)`: the tensors of a file, in the file's order.
pub fn load(bytes: &[u8]) -> Result<StateDict> {
    load_with_metadata(bytes).map(|(sd, _)| sd)
}

/// `load`, with the file's `__metadata__`.
pub fn load_with_metadata(bytes: &[u8]) -> Result<(StateDict, BTreeMap<String, String>)> {
    let contents = codec::decode(bytes)?;
    let mut sd = StateDict::new();
    for e in &contents.entries {
        sd.insert(e.name.clone(), tensor_of(e)?);
    }
    Ok((sd, contents.metadata))
}

/// torch's `safetensors.torch.save_file` (native only; a browser keeps the bytes itself).
#[cfg(not(target_arch = "wasm32"))]
pub fn save_file(
    tensors: &StateDict,
    path: impl AsRef<std::path::Path>,
    metadata: &BTreeMap<String, String>,
) -> Result<()> {
    let bytes = pollster::block_on(save(tensors, metadata))?;
    std::fs::write(path.as_ref(), bytes).map_err(|e| io_error("write", path.as_ref(), e))
}

/// torch's `safetensors.torch.load_file` (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn load_file(path: impl AsRef<std::path::Path>) -> Result<StateDict> {
    let bytes = std::fs::read(path.as_ref()).map_err(|e| io_error("read", path.as_ref(), e))?;
    load(&bytes)
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn io_error(action: &str, path: &std::path::Path, e: std::io::Error) -> BorchError {
    BorchError::Runtime(format!(
        "could not {action} the file {}: {e}",
        path.display()
    ))
}
