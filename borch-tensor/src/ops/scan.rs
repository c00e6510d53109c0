//! cumsum and cumprod along one dim; ints and bools accumulate to int64, as torch.

use crate::autograd::{AlongOp, Op, record};
use crate::error::Result;
use crate::kernels::scan::scan;
use crate::layout::wrap_dim;
use crate::ops::reduce_specs::scan_spec;
use crate::scalar::Operand;
use crate::tensor::Tensor;

impl Tensor {
    /// torch's `cumsum(dim)`.
    pub fn cumsum(&self, dim: isize) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim())?;
        let out = scan(&scan_spec(self.dtype(), false), self, d)?;
        Ok(record(
            Op::Along {
                op: AlongOp::Cumsum,
                dim: d,
            },
            &[Operand::Tensor(self.clone())],
            out,
        ))
    }

    /// torch's `cumprod(dim)`.
    pub fn cumprod(&self, dim: isize) -> Result<Tensor> {
        let d = wrap_dim(dim, self.dim())?;
        let out = scan(&scan_spec(self.dtype(), true), self, d)?;
        Ok(record(
            Op::Along {
                op: AlongOp::Cumprod,
                dim: d,
            },
            &[Operand::Tensor(self.clone())],
            out,
        ))
    }
}
