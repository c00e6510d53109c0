//! The dtype conversions torch users type: `.float()`, `.long()`, `.bool()`, `.to(dtype)`, and
//! `.int()` / `.double()`, refused because borch has no int32 or float64 (docs/dtypes.md). Each
//! forwards to [`Tensor::to_dtype`], the one conversion.

use crate::error::{Result, not_impl};
use crate::{DType, Tensor};

impl Tensor {
    /// torch's `to(dtype)`: `self` when the dtype already matches, else a converted copy.
    pub fn to(&self, dtype: DType) -> Result<Tensor> {
        self.to_dtype(dtype)
    }

    /// torch's `float()`: float32 (int64 and bool values become the same numbers, true is 1.0).
    pub fn float(&self) -> Result<Tensor> {
        self.to_dtype(DType::Float32)
    }

    /// torch's `long()`: int64; floats truncate toward zero (-2.7 is -2), true is 1.
    pub fn long(&self) -> Result<Tensor> {
        self.to_dtype(DType::Int64)
    }

    /// torch's `bool()`: nonzero is true (NaN too), zero and -0.0 are false.
    pub fn bool(&self) -> Result<Tensor> {
        self.to_dtype(DType::Bool)
    }

    /// torch's `int()` (int32), refused: borch has no int32 dtype; `long()` gives int64.
    pub fn int(&self) -> Result<Tensor> {
        not_impl(format!(
            "int(): borch has no int32 dtype (its dtypes are {}); use long() for int64, which \
             borch stores in 32 bits",
            DType::LIST
        ))
    }

    /// torch's `double()` (float64), refused: WGSL has no 64-bit floats; `float()` gives float32.
    pub fn double(&self) -> Result<Tensor> {
        not_impl(format!(
            "double(): borch has no float64 dtype because WGSL has no 64-bit floats (its dtypes \
             are {}); use float() for float32",
            DType::LIST
        ))
    }
}
