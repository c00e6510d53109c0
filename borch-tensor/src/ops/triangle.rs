//! `tril` and `triu`: the lower or upper triangle of the last two dims, the rest zeroed.

use crate::autograd::{Op, ShapeOp, record};
use crate::error::{Result, runtime};
use crate::kernels::tri::tri;
use crate::scalar::Operand;
use crate::tensor::Tensor;

impl Tensor {
    /// torch's `tril(diagonal)`: elements on and below the `diagonal`-th diagonal of each matrix
    /// (the last two dims) kept, the others zero. `diagonal > 0` keeps more, `< 0` fewer.
    pub fn tril(&self, diagonal: isize) -> Result<Tensor> {
        self.triangle(diagonal, true, "tril")
    }

    /// torch's `triu(diagonal)`: elements on and above the `diagonal`-th diagonal kept.
    pub fn triu(&self, diagonal: isize) -> Result<Tensor> {
        self.triangle(diagonal, false, "triu")
    }

    fn triangle(&self, diagonal: isize, lower: bool, name: &str) -> Result<Tensor> {
        if self.dim() < 2 {
            return runtime(format!(
                "{name}: input tensor must have at least 2 dimensions"
            ));
        }
        let out = tri(&self.detach().contiguous()?, diagonal, lower)?;
        let op = if lower {
            ShapeOp::Tril { diagonal }
        } else {
            ShapeOp::Triu { diagonal }
        };
        Ok(record(Op::Shape(op), &[Operand::Tensor(self.clone())], out))
    }
}
