//! Products and norms composed from recorded ops (so autograd needs no new derivative):
//! `baddbmm`, `addbmm`, `cross` / `linalg.cross`, `cdist`, `linalg.vector_norm`,
//! `linalg.matrix_norm` ('fro', ±inf, ±1), `linalg.norm`. Singular-value norms ('nuc', ±2) are
//! refused: borch has no SVD.

use crate::dtype::DType;
use crate::error::{BorchError, Result, not_impl, runtime};
use crate::layout::{broadcast_shapes, fmt_list, wrap_dim};
use crate::tensor::Tensor;

fn isz(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

/// `beta * input + alpha * product`, where beta = 0 ignores `input` (NaN included), as torch.
fn scaled_sum(input: &Tensor, product: Tensor, beta: f64, alpha: f64, op: &str) -> Result<Tensor> {
    let out = broadcast_shapes(input.shape(), product.shape())?;
    if out != product.shape() {
        return runtime(format!(
            "The expanded size of the tensor ({}) must match the existing size ({}) at \
             non-singleton dimension 0.  Target sizes: {}.  Tensor sizes: {} ({op})",
            product.shape().first().copied().unwrap_or(0),
            input.shape().first().copied().unwrap_or(0),
            fmt_list(product.shape()),
            fmt_list(input.shape())
        ));
    }
    let scaled = if alpha == 1.0 {
        product
    } else {
        product.mul(alpha)?
    };
    if beta == 0.0 {
        // `input` is ignored (a NaN in it too) but still gets a (zero) gradient, as in torch.
        let all = crate::ops::creation::full(scaled.shape(), true, None)?;
        return crate::where_cond(
            &all,
            crate::scalar::Operand::Tensor(scaled),
            crate::scalar::Operand::Tensor(input.clone()),
        );
    }
    let base = if beta == 1.0 {
        input.clone()
    } else {
        input.mul(beta)?
    };
    base.add(&scaled)
}

/// torch's checks of `baddbmm`'s and `addbmm`'s batches.
fn check_batches(batch1: &Tensor, batch2: &Tensor) -> Result<()> {
    if batch1.dim() != 3 {
        return runtime("batch1 must be a 3D tensor");
    }
    if batch2.dim() != 3 {
        return runtime("batch2 must be a 3D tensor");
    }
    let (b, _, k) = (batch1.shape()[0], batch1.shape()[1], batch1.shape()[2]);
    if batch2.shape()[0] != b || batch2.shape()[1] != k {
        return runtime(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: \
             [{}, {}].",
            batch2.shape()[0],
            batch2.shape()[1]
        ));
    }
    Ok(())
}

impl Tensor {
    /// torch's `baddbmm(batch1, batch2, beta, alpha)`: `beta * self + alpha * (batch1 @ batch2)`.
    pub fn baddbmm(
        &self,
        batch1: &Tensor,
        batch2: &Tensor,
        beta: f64,
        alpha: f64,
    ) -> Result<Tensor> {
        check_batches(batch1, batch2)?;
        scaled_sum(self, batch1.bmm(batch2)?, beta, alpha, "baddbmm")
    }

    /// torch's `addbmm(batch1, batch2, beta, alpha)`: `beta * self + alpha * Σ_b batch1[b] @ batch2[b]`.
    pub fn addbmm(
        &self,
        batch1: &Tensor,
        batch2: &Tensor,
        beta: f64,
        alpha: f64,
    ) -> Result<Tensor> {
        check_batches(batch1, batch2)?;
        let summed = batch1.bmm(batch2)?.sum(Some(&[0]), false)?;
        scaled_sum(self, summed, beta, alpha, "addbmm")
    }

    /// torch's `linalg.cross(other, dim=-1)`: the cross product of 3-vectors along `dim`
    /// (inputs broadcast).
    pub fn linalg_cross(&self, other: &Tensor, dim: isize) -> Result<Tensor> {
        if self.dim() != other.dim() {
            return runtime("linalg.cross: inputs must have the same number of dimensions.");
        }
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let d = wrap_dim(dim, shape.len())?;
        if self.shape()[d] != 3 || other.shape()[d] != 3 {
            return runtime(format!(
                "linalg.cross: inputs dimension {dim} must have length 3. Got {} and {}",
                self.shape()[d],
                other.shape()[d]
            ));
        }
        let (a, b) = (self.expand(&isz(&shape))?, other.expand(&isz(&shape))?);
        let d = d as isize;
        let (a1, a2) = (a.roll(&[-1], &[d])?, a.roll(&[-2], &[d])?);
        let (b1, b2) = (b.roll(&[-1], &[d])?, b.roll(&[-2], &[d])?);
        a1.mul(&b2)?.sub(&a2.mul(&b1)?)
    }

    /// torch's `cross(other, dim=None)`: `dim=None` takes the first dim of size 3.
    pub fn cross(&self, other: &Tensor, dim: Option<isize>) -> Result<Tensor> {
        let dim = match dim {
            Some(d) => d,
            None => {
                let shape = broadcast_shapes(self.shape(), other.shape())?;
                match shape.iter().position(|&s| s == 3) {
                    Some(d) => d as isize,
                    None => return runtime("no dimension of size 3 in input"),
                }
            }
        };
        self.linalg_cross(other, dim)
    }

    /// torch's `cdist(x1, x2, p)`: the p-norm distance between each row of `x1` and each row of
    /// `x2` (batch dims broadcast).
    pub fn cdist(&self, x2: &Tensor, p: f64) -> Result<Tensor> {
        if self.dim() < 2 {
            return runtime(format!(
                "cdist only supports at least 2D tensors, X1 got: {}D",
                self.dim()
            ));
        }
        if x2.dim() < 2 {
            return runtime(format!(
                "cdist only supports at least 2D tensors, X2 got: {}D",
                x2.dim()
            ));
        }
        if self.shape()[self.dim() - 1] != x2.shape()[x2.dim() - 1] {
            return runtime(format!(
                "X1 and X2 must have the same number of columns. X1: {} X2: {}",
                self.shape()[self.dim() - 1],
                x2.shape()[x2.dim() - 1]
            ));
        }
        if p < 0.0 {
            return runtime("cdist only supports non-negative p values");
        }
        if self.dtype() != DType::Float32 || x2.dtype() != DType::Float32 {
            return runtime(format!(
                "cdist only supports floating-point dtypes, X1 got: {}",
                self.dtype().scalar_type_name()
            ));
        }
        let diff = self.unsqueeze(-2)?.sub(&x2.unsqueeze(-3)?)?;
        diff.norm(p, Some(&[-1]), false)
    }

    /// torch's `linalg.vector_norm(ord, dim, keepdim)`.
    pub fn linalg_vector_norm(
        &self,
        ord: f64,
        dim: Option<&[isize]>,
        keepdim: bool,
    ) -> Result<Tensor> {
        self.norm(ord, dim, keepdim)
    }

    /// torch's `linalg.matrix_norm(ord, dim, keepdim)` for ord 'fro', inf, -inf, 1, -1.
    pub fn linalg_matrix_norm(
        &self,
        ord: MatrixOrd,
        dim: [isize; 2],
        keepdim: bool,
    ) -> Result<Tensor> {
        if self.dim() < 2 {
            return runtime(
                "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.",
            );
        }
        if self.dtype() != DType::Float32 {
            return runtime(format!(
                "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {}",
                self.dtype().scalar_type_name()
            ));
        }
        let (d0, d1) = (wrap_dim(dim[0], self.dim())?, wrap_dim(dim[1], self.dim())?);
        if d0 == d1 {
            return runtime(format!(
                "linalg.matrix_norm: dims must be different. Got ({}, {})",
                dim[0], dim[1]
            ));
        }
        let (r, c) = (d0 as isize, d1 as isize);
        let abs_sum_then = |sum_dim: isize, red_dim: isize, max: bool| -> Result<Tensor> {
            let s = self.abs()?.sum(Some(&[sum_dim]), true)?;
            let m = if max {
                s.amax(Some(&[red_dim]), true)?
            } else {
                s.amin(Some(&[red_dim]), true)?
            };
            if keepdim {
                Ok(m)
            } else {
                m.squeeze_dims(&[r, c])
            }
        };
        match ord {
            MatrixOrd::Fro => self.norm(2.0, Some(&[r, c]), keepdim),
            MatrixOrd::Num(o) if o == f64::INFINITY => abs_sum_then(c, r, true),
            MatrixOrd::Num(o) if o == f64::NEG_INFINITY => abs_sum_then(c, r, false),
            MatrixOrd::Num(1.0) => abs_sum_then(r, c, true),
            MatrixOrd::Num(-1.0) => abs_sum_then(r, c, false),
            MatrixOrd::Nuc | MatrixOrd::Num(_) => not_impl(format!(
                "linalg.matrix_norm with ord={}: it needs the singular values (an SVD), which \
                 borch does not compute; 'fro', inf, -inf, 1 and -1 are supported",
                ord.name()
            )),
        }
    }

    /// torch's `linalg.norm(ord, dim, keepdim)`: a vector norm, or a matrix norm for a 2-D
    /// input (or two dims) with ord given.
    pub fn linalg_norm(
        &self,
        ord: Option<MatrixOrd>,
        dim: Option<&[isize]>,
        keepdim: bool,
    ) -> Result<Tensor> {
        let matrix = match dim {
            Some(ds) => ds.len() == 2,
            None => ord.is_some() && self.dim() == 2,
        };
        match (ord, matrix) {
            (None, _) => match dim {
                Some(ds) if ds.len() == 2 => {
                    self.linalg_matrix_norm(MatrixOrd::Fro, [ds[0], ds[1]], keepdim)
                }
                _ => self.norm(2.0, dim, keepdim),
            },
            (Some(o), true) => {
                let ds = dim.map(|d| [d[0], d[1]]).unwrap_or([-2, -1]);
                self.linalg_matrix_norm(o, ds, keepdim)
            }
            (Some(MatrixOrd::Num(p)), false) => {
                if dim.is_none() && self.dim() > 2 {
                    return runtime(format!(
                        "linalg.norm: If dim is not specified but ord is, the input must be 1D or \
                         2D. Got {}D.",
                        self.dim()
                    ));
                }
                self.norm(p, dim, keepdim)
            }
            (Some(o), false) => runtime(format!(
                "linalg.vector_norm: ord {} requires a matrix: pass a 2-D input or two dims",
                o.name()
            )),
        }
    }
}

/// torch's `ord` of a matrix norm: 'fro', 'nuc' or a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MatrixOrd {
    /// `'fro'`: the Frobenius norm.
    Fro,
    /// `'nuc'`: the nuclear norm.
    Nuc,
    /// A number: 1, -1, 2, -2, inf or -inf.
    Num(f64),
}

impl MatrixOrd {
    /// `'fro'` or `'nuc'`; anything else is torch's error.
    pub fn parse(s: &str) -> Result<MatrixOrd> {
        match s {
            "fro" => Ok(MatrixOrd::Fro),
            "nuc" => Ok(MatrixOrd::Nuc),
            other => Err(BorchError::Runtime(format!(
                "linalg.matrix_norm: Order {other} not supported."
            ))),
        }
    }

    fn name(&self) -> String {
        match self {
            MatrixOrd::Fro => "'fro'".into(),
            MatrixOrd::Nuc => "'nuc'".into(),
            MatrixOrd::Num(v) if v.is_infinite() => {
                if *v > 0.0 {
                    "inf".into()
                } else {
                    "-inf".into()
                }
            }
            MatrixOrd::Num(v) => format!("{v}"),
        }
    }
}
