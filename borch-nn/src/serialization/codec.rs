//! safetensors bytes <-> host tensors, through the `safetensors` crate. The crate checks the
//! header length against the file, UTF-8, the JSON, that offsets tile the data exactly (no gap,
//! overlap or byte past the end) and that each byte count matches its dtype and shape; this file
//! adds what it lets through: duplicate keys (serde keeps the last one silently), dtypes borch
//! does not have, int64 values outside i32 and bool bytes other than 0/1. Only host memory is
//! touched here, and never more than the file's own length, so it can be fuzzed without a GPU.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use borch_tensor::{BorchError, HostData, Result};
use safetensors::{Dtype, SafeTensors, View};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

/// One value of a file: a tensor of one of borch's dtypes, or raw bytes (torch's uint8, used for
/// the RNG state `torch.get_rng_state()` returns).
#[derive(Debug, Clone, PartialEq)]
pub enum FileData {
    /// A tensor's values.
    Tensor(HostData),
    /// Raw bytes (a uint8 tensor).
    Bytes(Vec<u8>),
}

/// One named entry of a file, in the file's order (by data offset).
#[derive(Debug, Clone, PartialEq)]
pub struct FileEntry {
    /// The entry's name (a state dict key).
    pub name: String,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its values.
    pub data: FileData,
}

/// A whole file: its entries and its `__metadata__` strings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileContents {
    /// The entries, in the file's order.
    pub entries: Vec<FileEntry>,
    /// The `__metadata__` strings.
    pub metadata: BTreeMap<String, String>,
}

fn file_error(msg: impl std::fmt::Display) -> BorchError {
    BorchError::Runtime(format!("Error while deserializing safetensors: {msg}"))
}

struct Raw<'a> {
    dtype: Dtype,
    shape: &'a [usize],
    bytes: Vec<u8>,
}

impl View for &Raw<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

/// The bytes of a safetensors file holding `contents` (torch's dtypes: float32 as F32, int64
/// widened to I64, bool as BOOL bytes, raw bytes as U8).
pub fn encode(contents: &FileContents) -> Result<Vec<u8>> {
    let mut seen = HashSet::new();
    let mut raws = Vec::with_capacity(contents.entries.len());
    for e in &contents.entries {
        if !seen.insert(e.name.as_str()) {
            return Err(BorchError::Value(format!(
                "duplicate key '{}' in a file to save",
                e.name
            )));
        }
        let numel: usize = e.shape.iter().product();
        let (dtype, bytes, len) = match &e.data {
            FileData::Tensor(HostData::F32(v)) => (
                Dtype::F32,
                v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                v.len(),
            ),
            FileData::Tensor(HostData::I64(v)) => (
                Dtype::I64,
                v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                v.len(),
            ),
            FileData::Tensor(HostData::Bool(v)) => (
                Dtype::BOOL,
                v.iter().map(|&b| u8::from(b)).collect(),
                v.len(),
            ),
            FileData::Bytes(b) => (Dtype::U8, b.clone(), b.len()),
        };
        if len != numel {
            return Err(BorchError::Value(format!(
                "entry '{}' has {len} values for shape {:?}",
                e.name, e.shape
            )));
        }
        raws.push((
            e.name.as_str(),
            Raw {
                dtype,
                shape: &e.shape,
                bytes,
            },
        ));
    }
    let metadata: Option<HashMap<String, String>> =
        (!contents.metadata.is_empty()).then(|| contents.metadata.clone().into_iter().collect());
    safetensors::serialize(raws.iter().map(|(n, r)| (*n, r)), metadata)
        .map_err(|e| BorchError::Runtime(format!("Error while serializing safetensors: {e}")))
}

/// Refuses a header object with a repeated key (JSON allows it; torch's loader keeps one).
struct NoDuplicateKeys;

impl<'de> Visitor<'de> for NoDuplicateKeys {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<IgnoredAny>()?;
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!("duplicate key '{key}'")));
            }
        }
        Ok(())
    }
}

fn check_duplicate_keys(bytes: &[u8], header_len: usize) -> Result<()> {
    // `read_metadata` has already checked that the header lies inside the file and is UTF-8.
    let header = &bytes[8..8 + header_len];
    let mut de = serde_json::Deserializer::from_slice(header);
    de.deserialize_map(NoDuplicateKeys).map_err(file_error)
}

fn words<const W: usize>(data: &[u8]) -> impl Iterator<Item = [u8; W]> + '_ {
    data.chunks_exact(W).map(|c| {
        let mut w = [0u8; W];
        w.copy_from_slice(c);
        w
    })
}

fn host_data(name: &str, dtype: Dtype, data: &[u8]) -> Result<FileData> {
    Ok(match dtype {
        Dtype::F32 => FileData::Tensor(HostData::F32(
            words::<4>(data).map(f32::from_le_bytes).collect(),
        )),
        Dtype::I64 => {
            let v: Vec<i64> = words::<8>(data).map(i64::from_le_bytes).collect();
            if let Some(x) = v.iter().find(|&&x| i32::try_from(x).is_err()) {
                return Err(file_error(format!(
                    "int64 tensor '{name}' holds {x}, outside the int32 range borch stores int64 \
                     in (see docs/dtypes.md)"
                )));
            }
            FileData::Tensor(HostData::I64(v))
        }
        Dtype::BOOL => {
            if let Some(b) = data.iter().find(|&&b| b > 1) {
                return Err(file_error(format!(
                    "bool tensor '{name}' holds the byte {b}"
                )));
            }
            FileData::Tensor(HostData::Bool(data.iter().map(|&b| b == 1).collect()))
        }
        Dtype::U8 => FileData::Bytes(data.to_vec()),
        other => {
            return Err(BorchError::NotImplemented(format!(
                "tensor '{name}' has dtype {other:?}, which borch does not have (float32, int64 \
                 and bool only; see docs/dtypes.md)"
            )));
        }
    })
}

/// The contents of a safetensors file (torch's `safetensors.torch.load`), refusing a malformed
/// file with an error; host memory only.
pub fn decode(bytes: &[u8]) -> Result<FileContents> {
    let (header_len, meta) = SafeTensors::read_metadata(bytes).map_err(file_error)?;
    check_duplicate_keys(bytes, header_len)?;
    let file = SafeTensors::deserialize(bytes).map_err(file_error)?;
    let mut entries = Vec::with_capacity(file.len());
    for name in meta.offset_keys() {
        let view = file.tensor(&name).map_err(file_error)?;
        let data = host_data(&name, view.dtype(), view.data())?;
        entries.push(FileEntry {
            shape: view.shape().to_vec(),
            name,
            data,
        });
    }
    let metadata = meta
        .metadata()
        .as_ref()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    Ok(FileContents { entries, metadata })
}
