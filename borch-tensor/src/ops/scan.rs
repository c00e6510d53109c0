//! cumsum and cumprod along one dim; ints and bools accumulate to int64, as torch.

use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::scan::{ScanSpec, scan};
use crate::layout::wrap_dim;
use crate::tensor::Tensor;

impl Tensor {
    /// torch's `cumsum(dim)`.
    pub fn cumsum(&self, dim: isize) -> Result<Tensor> {
        self.scan_with(dim, "0", "a + b")
    }

    /// torch's `cumprod(dim)`.
    pub fn cumprod(&self, dim: isize) -> Result<Tensor> {
        self.scan_with(dim, "1", "a * b")
    }

    fn scan_with(&self, dim: isize, identity: &str, combine: &str) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim())?;
        let (compute, identity) = if self.dtype() == DType::Float32 {
            (DType::Float32, format!("{identity}.0"))
        } else {
            (DType::Int64, identity.to_string())
        };
        let spec = ScanSpec {
            compute,
            identity: &identity,
            combine,
        };
        scan(&spec, self, d)
    }
}
