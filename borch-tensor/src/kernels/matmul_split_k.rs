//! Split-K for products whose output is a few tiles but whose K is long (a weight gradient
//! `x^T @ dy` over 16,384 positions is a 384 x 1,152 output: 108 tiles of 64 x 64, each folding
//! 16,384 steps, on a GPU with 132 multiprocessors). K is cut into `S` slices seen as a batch of
//! `S` products, written as `[S, M, N]` partial sums, then summed over the slices.

use super::matmul::{Gemm, gemm_direct};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// Workgroups (64 x 64 output tiles) a product should give before it is not split.
const FILL: usize = 264;
/// The shortest slice of K worth a pass of its own.
const MIN_SLICE: usize = 512;
const MAX_SLICES: usize = 32;
/// K at least this many times the output's longer side.
const LONG_K: usize = 4;

/// The number of K slices for `g`, or `None` to run it whole: only plain float32 products of
/// one matrix pair (no `c`, no ReLU, no forced tile) with a long K, on a hardware adapter.
pub(crate) fn slices(g: &Gemm<'_>) -> Option<usize> {
    let (a, b) = (g.a, g.b);
    let plain = g.c.is_none() && !g.relu && g.tile.is_none() && g.alpha != 0.0;
    if !plain || a.dtype() != DType::Float32 || a.dim() != 2 || b.dim() != 2 {
        return None;
    }
    if a.device().adapter_info().is_software {
        return None;
    }
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    // Only where K dominates (weight gradients): square products keep their one pass.
    if k < LONG_K * m.max(n) {
        return None;
    }
    let tiles = m.div_ceil(64) * n.div_ceil(64);
    let mut s = 1;
    while tiles * s < FILL && s < MAX_SLICES && k % (2 * s) == 0 && k / (2 * s) >= MIN_SLICE {
        s *= 2;
    }
    (s > 1).then_some(s)
}

/// `[P, K]`-like operand `t` (`along` = the dim of K) as `slices` matrices over consecutive
/// slices of K: a view, `[slices, ...]` with the slice dim first.
fn sliced(t: &Tensor, along: usize, slices: usize) -> Tensor {
    let l = t.layout();
    let k = l.shape[along] / slices;
    let mut shape = vec![slices];
    let mut strides = vec![l.strides[along] * k as isize];
    for d in 0..2 {
        shape.push(if d == along { k } else { l.shape[d] });
        strides.push(l.strides[d]);
    }
    t.with_layout(Layout {
        shape,
        strides,
        offset: l.offset,
    })
}

/// `g` as `slices` products over slices of K, summed.
pub(crate) fn gemm_split_k(g: &Gemm<'_>, slices: usize) -> Result<Tensor> {
    let (a, b) = (sliced(g.a, 1, slices), sliced(g.b, 0, slices));
    let partial = gemm_direct(&Gemm {
        a: &a,
        b: &b,
        c: None,
        alpha: g.alpha,
        tile: None,
        relu: false,
    })?;
    partial.sum(Some(&[0]), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split product equals the whole one (the direct kernel is what the goldens check) on
    /// any adapter, transposed operands and K not a power of two included.
    #[test]
    fn split_k_equals_the_direct_product() -> Result<()> {
        crate::manual_seed(3);
        for (m, k, n, transposed) in [(8, 64, 12, false), (5, 96, 7, true), (70, 512, 3, false)] {
            let a = if transposed {
                crate::randn(&[k, m], None)?.t()?
            } else {
                crate::randn(&[m, k], None)?
            };
            let b = crate::randn(&[k, n], None)?;
            let g = Gemm {
                a: &a,
                b: &b,
                c: None,
                alpha: 0.5,
                tile: None,
                relu: false,
            };
            let direct = gemm_direct(&g)?.to_vec_blocking::<f32>()?;
            for slices in [2, 4, 8] {
                if k % slices != 0 {
                    continue;
                }
                let split = gemm_split_k(&g, slices)?;
                assert_eq!(split.shape(), &[m, n]);
                let got = split.to_vec_blocking::<f32>()?;
                let worst = direct
                    .iter()
                    .zip(&got)
                    .map(|(x, y)| (x - y).abs() / (1.0 + x.abs()))
                    .fold(0f32, f32::max);
                assert!(worst < 1e-5, "{m}x{k}x{n} in {slices} slices: {worst}");
            }
        }
        Ok(())
    }
}
