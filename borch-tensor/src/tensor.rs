use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use borch_device::{Device, PooledBuffer, default_device};

use crate::autograd::AutogradMeta;
use crate::dtype::DType;
use crate::error::{BorchError, Result, runtime};
use crate::layout::Layout;

/// A buffer on the device, shared by a tensor and its views. A scope may release the buffer
/// before the last handle goes (see `scope`).
pub(crate) struct Storage {
    pub buffer: Mutex<Option<PooledBuffer>>,
    pub device: Device,
    /// The scope that releases it, or none, or never (`scope.rs`).
    pub owner: AtomicU64,
    /// torch's version counter: bumped by every in-place write, shared by views.
    pub version: AtomicU64,
}

/// A tensor: shared storage seen through a layout, with a dtype. Cloning is cheap (an `Arc`), and
/// clones and views share the storage as in torch.
#[derive(Clone)]
pub struct Tensor {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub id: u64,
    pub storage: Arc<Storage>,
    pub layout: Layout,
    pub dtype: DType,
    pub autograd: Mutex<AutogradMeta>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Tensor {
    pub(crate) fn from_parts(storage: Arc<Storage>, layout: Layout, dtype: DType) -> Tensor {
        Tensor {
            inner: Arc::new(Inner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                storage,
                layout,
                dtype,
                autograd: Mutex::default(),
            }),
        }
    }

    /// A new tensor of `shape` with unspecified contents, for kernels to fill.
    pub(crate) fn uninit(device: &Device, shape: &[usize], dtype: DType) -> Result<Tensor> {
        let n = crate::size::alloc_numel(device, shape)?;
        let buffer = device.alloc(crate::size::bytes_of(n.max(1)))?;
        Ok(Tensor::from_parts(
            Storage::new(buffer, device.clone()),
            Layout::contiguous(shape),
            dtype,
        ))
    }

    /// A view of the same storage with another layout.
    pub(crate) fn with_layout(&self, layout: Layout) -> Tensor {
        Tensor::from_parts(self.inner.storage.clone(), layout, self.inner.dtype)
    }

    /// A unique id of this tensor object (views get their own).
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    /// torch's `shape`: the size of each dim.
    pub fn shape(&self) -> &[usize] {
        &self.inner.layout.shape
    }

    /// torch's `size()`.
    pub fn size(&self) -> Vec<usize> {
        self.inner.layout.shape.clone()
    }

    /// torch's `size(dim)`, with negative dims.
    pub fn size_at(&self, dim: isize) -> Result<usize> {
        crate::layout::no_dims_check(self.dim(), dim)?;
        Ok(self.shape()[crate::layout::wrap_dim(dim, self.dim())?])
    }

    /// torch's `stride()`: elements between neighbours along each dim.
    pub fn stride(&self) -> Vec<isize> {
        self.inner.layout.strides.clone()
    }

    /// torch's `storage_offset()`: where the first element sits in the storage, in elements.
    pub fn storage_offset(&self) -> usize {
        self.inner.layout.offset
    }

    /// torch's `dtype`.
    pub fn dtype(&self) -> DType {
        self.inner.dtype
    }

    /// Number of dims (torch's `dim()` / `ndim`).
    pub fn dim(&self) -> usize {
        self.inner.layout.rank()
    }

    /// torch's `numel()`: the number of elements.
    pub fn numel(&self) -> usize {
        self.inner.layout.numel()
    }

    /// torch's `is_contiguous()`.
    pub fn is_contiguous(&self) -> bool {
        self.inner.layout.is_contiguous()
    }

    /// The shape, strides and offset.
    pub fn layout(&self) -> &Layout {
        &self.inner.layout
    }

    /// The device holding the storage.
    pub fn device(&self) -> &Device {
        &self.inner.storage.device
    }

    /// Whether two tensors share one storage (a view and its base do).
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.inner.storage, &other.inner.storage)
    }

    pub(crate) fn autograd(&self) -> MutexGuard<'_, AutogradMeta> {
        self.inner
            .autograd
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn check_same_device_as(&self, device: &Device) -> Result<()> {
        if !self.device().same(device) {
            return runtime(
                "Expected all tensors to be on the same device, but found at least two devices",
            );
        }
        Ok(())
    }
}

/// The device new tensors are created on.
pub(crate) fn device() -> Result<Device> {
    default_device().map_err(BorchError::from)
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tensor(shape={:?}, dtype={}, strides={:?}, offset={})",
            self.shape(),
            self.dtype(),
            self.inner.layout.strides,
            self.inner.layout.offset
        )
    }
}
