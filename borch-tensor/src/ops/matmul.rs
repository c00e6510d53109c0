//! The matmul family: mm, bmm, matmul, addmm, mv, dot and outer, with torch's shape rules and
//! error messages (torch 2.15's wording). All products run the one tiled kernel in
//! kernels/matmul.rs; f32 and int64 (i32 storage, wrapping like any int64 op in borch) are
//! supported, bool is refused as torch refuses it.

use crate::autograd::{MatmulOp, Op, record};
use crate::dtype::DType;
use crate::error::{Result, not_impl, runtime};
pub use crate::kernels::matmul::MatmulTile;

/// The tile borch picks for `batch` products of `m x k` by `k x n` on `device` (for reports).
#[doc(hidden)]
pub fn default_tile(
    device: &crate::Device,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
) -> MatmulTile {
    crate::kernels::matmul::default_tile(device.adapter_info().is_software, batch, m, k, n)
}
use crate::kernels::matmul::{Gemm, gemm};
use crate::layout::broadcast_shapes;
use crate::ops::creation::zeros;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// torch's C++ type name, as in "expected m1 and m2 to have the same dtype, but got: float !=
/// long int".
fn cpp_name(d: DType) -> &'static str {
    match d {
        DType::Float32 => "float",
        DType::Int64 => "long int",
        DType::Bool => "bool",
    }
}

fn not_for_bool<T>(kernel: &str) -> Result<T> {
    not_impl(format!("\"{kernel}\" not implemented for 'Bool'"))
}

/// The product of `a` (`[batch..., M, K]`) and `b` (`[batch..., K, N]`), batch dims already
/// equal (views with stride 0 where broadcast). Bool gives zeros when nothing is summed (as
/// torch returns early there) and torch's NotImplementedError otherwise.
fn product(a: &Tensor, b: &Tensor, bool_kernel: &str, tile: Option<MatmulTile>) -> Result<Tensor> {
    let r = a.dim() - 2;
    if a.dtype() == DType::Bool {
        let mut shape = a.shape()[..r + 1].to_vec();
        shape.push(b.shape()[r + 1]);
        if shape.contains(&0) || a.shape()[r + 1] == 0 {
            return zeros(&shape, DType::Bool);
        }
        return not_for_bool(bool_kernel);
    }
    gemm(&Gemm {
        a,
        b,
        c: None,
        alpha: 1.0,
        tile,
        relu: false,
    })
}

/// `product`, recorded for autograd as `op` (Mm for matrices, Bmm for any batch dims).
fn recorded(
    a: &Tensor,
    b: &Tensor,
    op: MatmulOp,
    bool_kernel: &str,
    tile: Option<MatmulTile>,
) -> Result<Tensor> {
    let out = product(a, b, bool_kernel, tile)?;
    Ok(record(
        Op::Matmul(op),
        &[Operand::Tensor(a.clone()), Operand::Tensor(b.clone())],
        out,
    ))
}

fn check_mm(a: &Tensor, b: &Tensor, op: &str) -> Result<()> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa[1] != sb[0] {
        return runtime(format!(
            "{op}: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            sa[0], sa[1], sb[0], sb[1]
        ));
    }
    Ok(())
}

fn check_matrix(t: &Tensor, op: &str, name: &str) -> Result<()> {
    if t.dim() != 2 {
        return runtime(format!(
            "{op}: {name} must be a matrix, got {}-D tensor",
            t.dim()
        ));
    }
    Ok(())
}

impl Tensor {
    /// torch's `mm(mat2)`: the product of two matrices.
    pub fn mm(&self, mat2: &Tensor) -> Result<Tensor> {
        self.mm_with_tile(mat2, None)
    }

    /// `mm` with a chosen kernel tile instead of borch's pick (for benchmarks and tests).
    #[doc(hidden)]
    pub fn mm_with_tile(&self, mat2: &Tensor, tile: Option<MatmulTile>) -> Result<Tensor> {
        check_matrix(self, "mm", "self")?;
        check_matrix(mat2, "mm", "mat2")?;
        check_mm(self, mat2, "mm")?;
        if self.dtype() != mat2.dtype() {
            return runtime(format!(
                "expected m1 and m2 to have the same dtype, but got: {} != {}",
                cpp_name(self.dtype()),
                cpp_name(mat2.dtype())
            ));
        }
        recorded(self, mat2, MatmulOp::Mm, "addmm_impl_cpu_", tile)
    }

    /// torch's `bmm(mat2)`: batches of matrix products, `[B, n, m] @ [B, m, p]`.
    pub fn bmm(&self, mat2: &Tensor) -> Result<Tensor> {
        self.bmm_with_tile(mat2, None)
    }

    /// `bmm` with a chosen kernel tile instead of borch's pick (for benchmarks and tests).
    #[doc(hidden)]
    pub fn bmm_with_tile(&self, mat2: &Tensor, tile: Option<MatmulTile>) -> Result<Tensor> {
        if self.dim() != 3 {
            return runtime("batch1 must be a 3D tensor");
        }
        if mat2.dim() != 3 {
            return runtime("batch2 must be a 3D tensor");
        }
        let (sa, sb) = (self.shape(), mat2.shape());
        if sb[0] != sa[0] || sb[1] != sa[2] {
            return runtime(format!(
                "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but \
                 got: [{}, {}].",
                sa[0], sa[2], sb[0], sb[1]
            ));
        }
        if self.dtype() != mat2.dtype() {
            return runtime(format!(
                "expected scalar type {} but found {}",
                self.dtype().scalar_type_name(),
                mat2.dtype().scalar_type_name()
            ));
        }
        recorded(self, mat2, MatmulOp::Bmm, "bmm", tile)
    }

    /// torch's `mv(vec)`: matrix times vector.
    pub fn mv(&self, vec: &Tensor) -> Result<Tensor> {
        if self.dim() != 2 || vec.dim() != 1 {
            return runtime(format!(
                "vector + matrix @ vector expected, got 1, {}, {}",
                self.dim(),
                vec.dim()
            ));
        }
        let (m, k) = (self.shape()[0], self.shape()[1]);
        if vec.shape()[0] != k {
            return runtime(format!(
                "size mismatch, got input ({m}), mat ({m}x{k}), vec ({})",
                vec.shape()[0]
            ));
        }
        if self.dtype() != vec.dtype() {
            let v = vec.dtype().scalar_type_name();
            return runtime(format!(
                "addmv input tensors must have the same dtype, but got {v}, {}, and {v}",
                self.dtype().scalar_type_name()
            ));
        }
        recorded(
            self,
            &vec.unsqueeze(1)?,
            MatmulOp::Mm,
            "addmv_impl_cpu",
            None,
        )?
        .squeeze_dims(&[1])
    }

    /// torch's `dot(other)`: the inner product of two 1-D tensors (a 0-d result).
    pub fn dot(&self, other: &Tensor) -> Result<Tensor> {
        if self.dim() != 1 || other.dim() != 1 {
            return runtime(format!(
                "1D tensors expected, but got {}D and {}D tensors",
                self.dim(),
                other.dim()
            ));
        }
        if self.dtype() != other.dtype() {
            return runtime(format!(
                "dot : expected both vectors to have same dtype, but found {} and {}",
                self.dtype().scalar_type_name(),
                other.dtype().scalar_type_name()
            ));
        }
        let (n, m) = (self.shape()[0], other.shape()[0]);
        if n != m {
            return runtime(format!(
                "inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same \
                 number of elements, but got {n} and {m} elements respectively"
            ));
        }
        if self.dtype() == DType::Bool {
            return not_for_bool("dot");
        }
        recorded(
            &self.unsqueeze(0)?,
            &other.unsqueeze(1)?,
            MatmulOp::Mm,
            "dot",
            None,
        )?
        .reshape(&[])
    }

    /// torch's `outer(vec2)`: `self[i] * vec2[j]`, with type promotion as for `mul`.
    pub fn outer(&self, vec2: &Tensor) -> Result<Tensor> {
        for (t, name) in [(self, "self"), (vec2, "vec2")] {
            if t.dim() != 1 {
                return runtime(format!(
                    "outer: Expected 1-D argument {name}, but got {}-D",
                    t.dim()
                ));
            }
        }
        self.unsqueeze(1)?.mul(vec2)
    }

    /// torch's `addmm(mat1, mat2, beta=, alpha=)` on `self` (the `input`):
    /// `beta * self + alpha * (mat1 @ mat2)`, `self` broadcast to the product's shape. With
    /// `beta == 0` the input is ignored (NaN included); int64 truncates `beta` and `alpha`.
    pub fn addmm(&self, mat1: &Tensor, mat2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        if mat1.dtype() != mat2.dtype() {
            return runtime(format!(
                "mat1 and mat2 must have the same dtype, but got {} and {}",
                mat1.dtype().scalar_type_name(),
                mat2.dtype().scalar_type_name()
            ));
        }
        if self.dtype() != mat2.dtype() {
            return runtime(format!(
                "self and mat2 must have the same dtype, but got {} and {}",
                self.dtype().scalar_type_name(),
                mat2.dtype().scalar_type_name()
            ));
        }
        check_matrix(mat1, "addmm", "self")?;
        check_matrix(mat2, "addmm", "mat2")?;
        check_mm(mat1, mat2, "addmm")?;
        let shape = [mat1.shape()[0] as isize, mat2.shape()[1] as isize];
        let input = self.expand(&shape)?;
        if self.dtype() == DType::Bool {
            return not_for_bool("addmm_impl_cpu_");
        }
        let (beta, alpha) = if self.dtype() == DType::Int64 {
            (beta.trunc(), alpha.trunc())
        } else {
            (beta, alpha)
        };
        let out = gemm(&Gemm {
            a: mat1,
            b: mat2,
            c: (beta != 0.0).then_some((&input, beta)),
            alpha,
            tile: None,
            relu: false,
        })?;
        Ok(record(
            Op::Matmul(MatmulOp::Addmm { beta, alpha }),
            &[
                Operand::Tensor(input),
                Operand::Tensor(mat1.clone()),
                Operand::Tensor(mat2.clone()),
            ],
            out,
        ))
    }

    /// torch's `matmul(other)` (`@`): dot, mv, mm or a batched product with the leading dims
    /// broadcast, by the ranks of the operands as torch decides (1-D operands get a dim added
    /// and removed again).
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        let (d1, d2) = (self.dim(), other.dim());
        if d1 == 0 || d2 == 0 {
            return runtime(format!(
                "both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
            ));
        }
        match (d1, d2) {
            (1, 1) => return self.dot(other),
            (2, 1) => return self.mv(other),
            (1, 2) => return self.unsqueeze(0)?.mm(other)?.squeeze_dims(&[0]),
            (2, 2) => return self.mm(other),
            _ => {}
        }
        if should_fold(self, other) {
            return fold(self, other);
        }
        self.matmul_batched(other)
    }

    /// torch's general case: broadcast the batch dims and run one batched product, reading
    /// the broadcast operands through stride-0 views (no copies).
    fn matmul_batched(&self, other: &Tensor) -> Result<Tensor> {
        let (d1, d2) = (self.dim(), other.dim());
        let (s1, s2) = (self.shape(), other.shape());
        let n = if d1 > 1 { s1[d1 - 2] } else { 1 };
        let m1 = s1[d1 - 1];
        let (m2, p) = if d2 > 1 {
            (s2[d2 - 2], s2[d2 - 1])
        } else {
            (s2[0], 1)
        };
        let batch = broadcast_shapes(&s1[..d1.saturating_sub(2)], &s2[..d2.saturating_sub(2)])?;
        let total: usize = batch.iter().product();
        if m1 != m2 {
            return runtime(format!(
                "Expected size for first two dimensions of batch2 tensor to be: [{total}, {m1}] \
                 but got: [{total}, {m2}]."
            ));
        }
        if self.dtype() != other.dtype() {
            return runtime(format!(
                "expected scalar type {} but found {}",
                self.dtype().scalar_type_name(),
                other.dtype().scalar_type_name()
            ));
        }
        let a = if d1 == 1 {
            self.unsqueeze(0)?
        } else {
            self.clone()
        };
        let b = if d2 == 1 {
            other.unsqueeze(1)?
        } else {
            other.clone()
        };
        let mut shape_a = batch.clone();
        shape_a.extend([n, m1]);
        let mut shape_b = batch.clone();
        shape_b.extend([m2, p]);
        let out = recorded(
            &a.broadcast_to(&shape_a)?,
            &b.broadcast_to(&shape_b)?,
            MatmulOp::Bmm,
            "bmm",
            None,
        )?;
        let mut shape = batch;
        if d1 > 1 {
            shape.push(n);
        }
        if d2 > 1 {
            shape.push(p);
        }
        out.view_as_shape(&shape)
    }
}

/// torch's `should_fold`: the larger operand (rank >= 3, the other rank <= 2) folds into a
/// matrix without a copy, so one mm or mv does the work.
fn should_fold(t1: &Tensor, t2: &Tensor) -> bool {
    let larger1 = t1.dim() >= t2.dim();
    let (big, small_dim) = if larger1 {
        (t1.clone(), t2.dim())
    } else {
        match t2.transpose(-2, -1) {
            Ok(t) => (t, t1.dim()),
            Err(_) => return false,
        }
    };
    let dim = big.dim();
    if !(dim >= 3 && small_dim <= 2) || t1.dim() == 2 {
        return false;
    }
    if big.numel() == 0 {
        return true;
    }
    let (shape, strides) = (big.shape(), big.layout().strides.clone());
    (0..dim - 2).all(|i| strides[i] == strides[i + 1] * shape[i + 1] as isize)
}

/// The folded product: `[..., n, k] @ [k(, p)]` as one mm (or mv) on `[prod(...) * n, k]`.
fn fold(t1: &Tensor, t2: &Tensor) -> Result<Tensor> {
    let transpose = t2.dim() > t1.dim();
    let (big, small) = if transpose {
        (t2.transpose(-2, -1)?, t1.clone())
    } else {
        (t1.clone(), t2.clone())
    };
    let sizes = big.shape();
    let mut shape: Vec<usize> = sizes[..sizes.len() - 1].to_vec();
    let rows: usize = shape.iter().product();
    let folded = big.reshape(&[rows as isize, sizes[sizes.len() - 1] as isize])?;
    if small.dim() == 2 {
        shape.push(small.shape()[1]);
        let out = folded.mm(&small)?.view_as_shape(&shape)?;
        return if transpose {
            out.transpose(-2, -1)?.contiguous()
        } else {
            Ok(out)
        };
    }
    folded.mv(&small)?.view_as_shape(&shape)
}
