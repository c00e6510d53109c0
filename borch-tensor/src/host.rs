//! Moving data between the host and tensors.

use crate::dtype::DType;
use crate::error::{BorchError, Result, runtime};
use crate::layout::Layout;
use crate::scalar::{Scalar, i32_of};
use crate::tensor::{Storage, Tensor, device};

/// A host element type that tensors can be made from and read into.
pub trait Element: Copy + std::fmt::Debug + 'static {
    /// The dtype of a tensor made from this type.
    const DTYPE: DType;
    /// The value as a scalar.
    fn to_scalar(self) -> Scalar;
    /// The value of a scalar read back (float to int truncates; nonzero is true).
    fn from_scalar(s: Scalar) -> Self;
}

impl Element for f32 {
    const DTYPE: DType = DType::Float32;
    fn to_scalar(self) -> Scalar {
        Scalar::Float(f64::from(self))
    }
    fn from_scalar(s: Scalar) -> f32 {
        s.to_f64() as f32
    }
}
impl Element for f64 {
    const DTYPE: DType = DType::Float32;
    fn to_scalar(self) -> Scalar {
        Scalar::Float(self)
    }
    fn from_scalar(s: Scalar) -> f64 {
        s.to_f64()
    }
}
impl Element for i64 {
    const DTYPE: DType = DType::Int64;
    fn to_scalar(self) -> Scalar {
        Scalar::Int(self)
    }
    fn from_scalar(s: Scalar) -> i64 {
        match s {
            Scalar::Int(v) => v,
            other => other.to_f64() as i64,
        }
    }
}
impl Element for i32 {
    const DTYPE: DType = DType::Int64;
    fn to_scalar(self) -> Scalar {
        Scalar::Int(i64::from(self))
    }
    fn from_scalar(s: Scalar) -> i32 {
        i64::from_scalar(s) as i32
    }
}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_scalar(self) -> Scalar {
        Scalar::Bool(self)
    }
    fn from_scalar(s: Scalar) -> bool {
        s.to_f64() != 0.0
    }
}

/// Nested arrays, slices and vectors of elements, with their shape.
pub trait NdData {
    /// The element type.
    type Elem: Element;
    /// The shape (a ragged nesting is refused by `push_to`).
    fn shape(&self) -> Vec<usize>;
    /// Append the elements in row-major order.
    fn push_to(&self, out: &mut Vec<Self::Elem>) -> Result<()>;
}

macro_rules! nd_leaf {
    ($($t:ty),*) => {$(
        impl NdData for $t {
            type Elem = $t;
            fn shape(&self) -> Vec<usize> { Vec::new() }
            fn push_to(&self, out: &mut Vec<$t>) -> Result<()> { out.push(*self); Ok(()) }
        }
    )*};
}
nd_leaf!(f32, f64, i64, i32, bool);

fn push_rows<T: NdData>(rows: &[T], out: &mut Vec<T::Elem>) -> Result<()> {
    let first = rows.first().map(NdData::shape);
    for row in rows {
        if Some(row.shape()) != first {
            return Err(BorchError::Value(format!(
                "expected sequence of length {} at dim 1 (got {})",
                first.as_ref().and_then(|s| s.first()).copied().unwrap_or(0),
                row.shape().first().copied().unwrap_or(0)
            )));
        }
        row.push_to(out)?;
    }
    Ok(())
}

fn rows_shape<T: NdData>(rows: &[T]) -> Vec<usize> {
    let mut s = vec![rows.len()];
    if let Some(first) = rows.first() {
        s.extend(first.shape());
    }
    s
}

impl<T: NdData> NdData for Vec<T> {
    type Elem = T::Elem;
    fn shape(&self) -> Vec<usize> {
        rows_shape(self)
    }
    fn push_to(&self, out: &mut Vec<T::Elem>) -> Result<()> {
        push_rows(self, out)
    }
}
impl<T: NdData> NdData for &[T] {
    type Elem = T::Elem;
    fn shape(&self) -> Vec<usize> {
        rows_shape(self)
    }
    fn push_to(&self, out: &mut Vec<T::Elem>) -> Result<()> {
        push_rows(self, out)
    }
}
impl<T: NdData, const N: usize> NdData for [T; N] {
    type Elem = T::Elem;
    fn shape(&self) -> Vec<usize> {
        rows_shape(self)
    }
    fn push_to(&self, out: &mut Vec<T::Elem>) -> Result<()> {
        push_rows(self, out)
    }
}

/// Host values of any dtype, flat, in row-major order.
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    /// float32 values.
    F32(Vec<f32>),
    /// int64 values.
    I64(Vec<i64>),
    /// bool values.
    Bool(Vec<bool>),
}

impl HostData {
    /// The dtype of the values.
    pub fn dtype(&self) -> DType {
        match self {
            HostData::F32(_) => DType::Float32,
            HostData::I64(_) => DType::Int64,
            HostData::Bool(_) => DType::Bool,
        }
    }
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            HostData::F32(v) => v.len(),
            HostData::I64(v) => v.len(),
            HostData::Bool(v) => v.len(),
        }
    }
    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Every value as f64 (bools as 0/1).
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            HostData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            HostData::I64(v) => v.iter().map(|&x| x as f64).collect(),
            HostData::Bool(v) => v.iter().map(|&x| f64::from(u8::from(x))).collect(),
        }
    }
    fn words(&self) -> Result<Vec<u32>> {
        Ok(match self {
            HostData::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
            HostData::I64(v) => v
                .iter()
                .map(|&x| i32_of(x).map(|w| w as u32))
                .collect::<Result<_>>()?,
            HostData::Bool(v) => v.iter().map(|&b| u32::from(b)).collect(),
        })
    }
    fn from_words(dtype: DType, words: &[u32]) -> HostData {
        match dtype {
            DType::Float32 => HostData::F32(words.iter().map(|&w| f32::from_bits(w)).collect()),
            DType::Int64 => HostData::I64(words.iter().map(|&w| i64::from(w as i32)).collect()),
            DType::Bool => HostData::Bool(words.iter().map(|&w| w != 0).collect()),
        }
    }
    fn scalar_at(&self, i: usize) -> Scalar {
        match self {
            HostData::F32(v) => Scalar::Float(f64::from(v[i])),
            HostData::I64(v) => Scalar::Int(v[i]),
            HostData::Bool(v) => Scalar::Bool(v[i]),
        }
    }
}

impl Tensor {
    /// torch.tensor(data): the dtype follows the elements (f32/f64 → float32, i32/i64 → int64).
    pub fn new<D: NdData>(data: D) -> Result<Tensor> {
        let shape = data.shape();
        let mut flat = Vec::new();
        data.push_to(&mut flat)?;
        Tensor::from_slice(&flat, &shape)
    }

    /// A tensor of `shape` holding `values` in row-major order.
    pub fn from_slice<T: Element>(values: &[T], shape: &[usize]) -> Result<Tensor> {
        let data = match T::DTYPE {
            DType::Float32 => HostData::F32(
                values
                    .iter()
                    .map(|v| f32::from_scalar(v.to_scalar()))
                    .collect(),
            ),
            DType::Int64 => HostData::I64(
                values
                    .iter()
                    .map(|v| i64::from_scalar(v.to_scalar()))
                    .collect(),
            ),
            DType::Bool => HostData::Bool(
                values
                    .iter()
                    .map(|v| bool::from_scalar(v.to_scalar()))
                    .collect(),
            ),
        };
        Tensor::from_host(&data, shape)
    }

    /// A tensor of `shape` from host data of any dtype.
    pub fn from_host(data: &HostData, shape: &[usize]) -> Result<Tensor> {
        let device = device()?;
        let n = crate::size::alloc_numel(&device, shape)?;
        if n != data.len() {
            return runtime(format!(
                "shape '{}' is invalid for input of size {}",
                crate::layout::fmt_list(shape),
                data.len()
            ));
        }
        let words = data.words()?;
        let bytes: Vec<u8> = if words.is_empty() {
            vec![0; 4]
        } else {
            words.iter().flat_map(|w| w.to_le_bytes()).collect()
        };
        let buffer = device.upload(&bytes)?;
        Ok(Tensor::from_parts(
            Storage::new(buffer, device),
            Layout::contiguous(shape),
            data.dtype(),
        ))
    }

    /// Read every element back, in row-major order (waits for the GPU).
    pub async fn to_host(&self) -> Result<HostData> {
        use crate::kernels::check;
        self.buffer()?;
        if self.numel() == 0 {
            check::take_error(self.device()).await?;
            return Ok(HostData::from_words(self.dtype(), &[]));
        }
        let t = self.contiguous()?;
        let offset = crate::size::bytes_of(t.storage_offset());
        let len = crate::size::bytes_of(t.numel());
        let buffer = t.buffer()?;
        // A pending index-error flag is read in the same submit as the data.
        let bytes = match check::take_pending(t.device()) {
            None => t.device().read(&buffer, offset, len).await?,
            Some(pending) => {
                let flag_buffer = pending.flag.buffer()?;
                let mut out = t
                    .device()
                    .read_many(&[(&buffer, offset, len), (&flag_buffer, 0, check::FLAG_BYTES)])
                    .await?;
                let flag_bytes = out.pop().unwrap_or_default();
                check::error_from(&pending, &flag_bytes)?;
                out.pop().unwrap_or_default()
            }
        };
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(HostData::from_words(self.dtype(), &words))
    }

    /// The elements converted to `T` (torch's `tolist()` flattened).
    pub async fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let host = self.to_host().await?;
        Ok((0..host.len())
            .map(|i| T::from_scalar(host.scalar_at(i)))
            .collect())
    }

    /// The one element of a one-element tensor (torch's `item()`).
    pub async fn item(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            return runtime(format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                self.numel()
            ));
        }
        Ok(self.to_host().await?.scalar_at(0))
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Tensor {
    /// Blocking `to_host` for native callers.
    pub fn to_host_blocking(&self) -> Result<HostData> {
        pollster::block_on(self.to_host())
    }
    /// Blocking `to_vec` for native callers.
    pub fn to_vec_blocking<T: Element>(&self) -> Result<Vec<T>> {
        pollster::block_on(self.to_vec())
    }
    /// Blocking `item` for native callers.
    pub fn item_blocking(&self) -> Result<Scalar> {
        pollster::block_on(self.item())
    }
}
