//! The order in which torch's TensorIterator visits the elements of an output it fills: dims
//! sorted by stride, smallest innermost. Random values land in that order, so a transposed
//! tensor receives them in memory order, as in torch.

use crate::layout::Layout;

/// Row-major flat indices of `layout`'s elements, in TensorIterator's visiting order.
pub fn iteration_order(layout: &Layout) -> Vec<usize> {
    let n = layout.numel();
    if layout.is_contiguous() {
        return (0..n).collect();
    }
    let rank = layout.rank();
    // `perm[0]` is the innermost dim; start from row-major (last dim innermost) and insertion-
    // sort by stride, leaving stride-0 pairs where they are and breaking stride ties by size.
    let mut perm: Vec<usize> = (0..rank).rev().collect();
    let should_swap = |d0: usize, d1: usize| -> i32 {
        let (s0, s1) = (layout.strides[d0], layout.strides[d1]);
        if s0 == 0 || s1 == 0 {
            0
        } else if s0 < s1 {
            -1
        } else if s0 > s1 || layout.shape[d0] > layout.shape[d1] {
            1
        } else {
            0
        }
    };
    for i in 1..rank {
        let mut d1 = i;
        for d0 in (0..i).rev() {
            match should_swap(perm[d0], perm[d1]) {
                c if c > 0 => {
                    perm.swap(d0, d1);
                    d1 = d0;
                }
                c if c < 0 => break,
                _ => {}
            }
        }
    }
    let row_major = crate::layout::contiguous_strides(&layout.shape);
    let mut out = Vec::with_capacity(n);
    let mut counter = vec![0usize; rank];
    for _ in 0..n {
        out.push(
            counter
                .iter()
                .zip(&perm)
                .map(|(&c, &d)| c * row_major[d] as usize)
                .sum(),
        );
        for (c, &d) in counter.iter_mut().zip(&perm) {
            *c += 1;
            if *c < layout.shape[d] {
                break;
            }
            *c = 0;
        }
    }
    out
}
