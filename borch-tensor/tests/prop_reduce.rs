//! Property tests: reductions, softmax and scans over random shapes, dims, keepdim and strided
//! views (reversed, stepped, expanded), checked against a plain-Rust reference on the CPU.

use borch_tensor::Tensor;
use proptest::prelude::*;

/// A CPU view: row-major base data seen through shape, strides and offset.
#[derive(Debug, Clone)]
struct Cpu {
    data: Vec<f32>,
    shape: Vec<usize>,
    strides: Vec<isize>,
}

impl Cpu {
    fn at(&self, index: &[usize]) -> f64 {
        let o: isize = index
            .iter()
            .zip(&self.strides)
            .map(|(&i, &s)| i as isize * s)
            .sum();
        f64::from(self.data[o as usize])
    }
}

#[derive(Debug, Clone, Copy)]
enum View {
    None,
    Reversed,
    Step,
    Expand,
}

fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc *= shape[i] as isize;
    }
    strides
}

/// A tensor of logical `shape` seen through view `v`, and its CPU twin.
fn make(shape: &[usize], v: View, seed: u64) -> (Cpu, Tensor) {
    let r = shape.len();
    let mut base = shape.to_vec();
    match v {
        View::Reversed => base.reverse(),
        View::Step if r >= 1 => base[r - 1] *= 2,
        View::Expand if r >= 1 => base[0] = 1,
        _ => {}
    }
    let n: usize = base.iter().product();
    let data: Vec<f32> = (0..n)
        .map(|i| (((i as u64 * 2654435761 + seed * 97) % 1000) as f32) / 250.0 - 2.0)
        .collect();
    let t = Tensor::from_slice(&data, &base).unwrap();
    let mut strides = contiguous_strides(&base);
    let t = match v {
        View::Reversed => {
            strides.reverse();
            let dims: Vec<isize> = (0..r as isize).rev().collect();
            t.permute(&dims).unwrap()
        }
        View::Step if r >= 1 => {
            strides[r - 1] *= 2;
            t.slice(-1, None, None, 2).unwrap()
        }
        View::Expand if r >= 1 => {
            strides[0] = 0;
            let sizes: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
            t.expand(&sizes).unwrap()
        }
        _ => t,
    };
    assert_eq!(t.shape(), shape);
    let cpu = Cpu {
        data,
        shape: shape.to_vec(),
        strides,
    };
    (cpu, t)
}

fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    (0..n)
        .map(|mut k| {
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = k % shape[d];
                k /= shape[d];
            }
            idx
        })
        .collect()
}

/// For each output (kept dims in row-major order), its elements in row-major order of the
/// reduced dims.
fn rows(c: &Cpu, flags: &[bool]) -> Vec<Vec<f64>> {
    let kept: Vec<usize> = (0..flags.len()).filter(|&d| !flags[d]).collect();
    let red: Vec<usize> = (0..flags.len()).filter(|&d| flags[d]).collect();
    let kshape: Vec<usize> = kept.iter().map(|&d| c.shape[d]).collect();
    let rshape: Vec<usize> = red.iter().map(|&d| c.shape[d]).collect();
    indices(&kshape)
        .iter()
        .map(|ki| {
            indices(&rshape)
                .iter()
                .map(|ri| {
                    let mut idx = vec![0; flags.len()];
                    for (j, &d) in kept.iter().enumerate() {
                        idx[d] = ki[j];
                    }
                    for (j, &d) in red.iter().enumerate() {
                        idx[d] = ri[j];
                    }
                    c.at(&idx)
                })
                .collect()
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-4 + 1e-4 * b.abs()
}

fn argmax(row: &[f64]) -> f64 {
    let mut best = 0;
    for (i, &x) in row.iter().enumerate() {
        if x > row[best] {
            best = i;
        }
    }
    best as f64
}

type Reduction = (
    &'static str,
    fn(&Tensor, &[isize], bool) -> Tensor,
    fn(&[f64]) -> f64,
);

const REDUCTIONS: [Reduction; 8] = [
    (
        "sum",
        |t, d, k| t.sum(Some(d), k).unwrap(),
        |r| r.iter().sum(),
    ),
    (
        "mean",
        |t, d, k| t.mean(Some(d), k).unwrap(),
        |r| r.iter().sum::<f64>() / r.len() as f64,
    ),
    (
        "amax",
        |t, d, k| t.amax(Some(d), k).unwrap(),
        |r| r.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    ),
    (
        "var",
        |t, d, k| t.var(Some(d), 1.0, k).unwrap(),
        |r| {
            let m = r.iter().sum::<f64>() / r.len() as f64;
            let ss: f64 = r.iter().map(|x| (x - m) * (x - m)).sum();
            if r.len() > 1 {
                ss / (r.len() - 1) as f64
            } else if ss == 0.0 {
                f64::NAN
            } else {
                f64::INFINITY
            }
        },
    ),
    (
        "logsumexp",
        |t, d, k| t.logsumexp(d, k).unwrap(),
        |r| {
            let m = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            r.iter().map(|x| (x - m).exp()).sum::<f64>().ln() + m
        },
    ),
    (
        "norm",
        |t, d, k| t.norm(2.0, Some(d), k).unwrap(),
        |r| r.iter().map(|x| x * x).sum::<f64>().sqrt(),
    ),
    (
        "norm1",
        |t, d, k| t.norm(1.0, Some(d), k).unwrap(),
        |r| r.iter().map(|x| x.abs()).sum(),
    ),
    (
        "any",
        |t, d, k| t.gt(1.0).unwrap().any(Some(d), k).unwrap(),
        |r| f64::from(u8::from(r.iter().any(|&x| x > 1.0))),
    ),
];

fn shape_strategy() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        prop::collection::vec(1usize..6, 1..4),
        prop::collection::vec(1usize..120, 1..3),
    ]
}

fn view_strategy() -> impl Strategy<Value = View> {
    prop_oneof![
        Just(View::None),
        Just(View::Reversed),
        Just(View::Step),
        Just(View::Expand)
    ]
}

/// A non-empty subset of dims, each written positive or negative.
fn dims_of(rank: usize, pick: &[bool], negative: &[bool]) -> (Vec<bool>, Vec<isize>) {
    let mut flags: Vec<bool> = (0..rank).map(|d| pick[d]).collect();
    if !flags.iter().any(|&f| f) {
        flags[rank - 1] = true;
    }
    let dims = (0..rank)
        .filter(|&d| flags[d])
        .map(|d| {
            if negative[d] {
                d as isize - rank as isize
            } else {
                d as isize
            }
        })
        .collect();
    (flags, dims)
}

fn out_shape(shape: &[usize], flags: &[bool], keepdim: bool) -> Vec<usize> {
    shape
        .iter()
        .zip(flags)
        .filter_map(|(&n, &r)| match (r, keepdim) {
            (false, _) => Some(n),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn reductions_over_views(
        shape in shape_strategy(), v in view_strategy(), which in 0usize..8,
        pick in prop::collection::vec(any::<bool>(), 4),
        negative in prop::collection::vec(any::<bool>(), 4),
        keepdim in any::<bool>(), seed in 0u64..1000,
    ) {
        let (c, t) = make(&shape, v, seed);
        let (flags, dims) = dims_of(shape.len(), &pick, &negative);
        let (name, op, reference) = REDUCTIONS[which];
        let got = op(&t, &dims, keepdim);
        let want_shape = out_shape(&shape, &flags, keepdim);
        prop_assert_eq!(got.shape(), want_shape.as_slice());
        let values = got.to_vec_blocking::<f64>().unwrap();
        for (k, row) in rows(&c, &flags).iter().enumerate() {
            let want = reference(row);
            prop_assert!(close(values[k], want), "{} row {}: {} vs {}", name, k, values[k], want);
        }
    }

    #[test]
    fn max_dim_and_argmax_over_views(
        shape in shape_strategy(), v in view_strategy(), dim in 0usize..3, all in any::<bool>(),
        keepdim in any::<bool>(), seed in 0u64..1000,
    ) {
        let (c, t) = make(&shape, v, seed);
        let d = dim % shape.len();
        let mut flags = vec![all; shape.len()];
        flags[d] = true;
        let want: Vec<f64> = rows(&c, &flags).iter().map(|r| argmax(r)).collect();
        if all {
            let got = t.argmax(None, keepdim).unwrap().to_vec_blocking::<f64>().unwrap();
            prop_assert_eq!(got, want);
        } else {
            let (values, idx) = t.max_dim(d as isize, keepdim).unwrap();
            prop_assert_eq!(idx.to_vec_blocking::<f64>().unwrap(), want);
            let maxes: Vec<f64> = rows(&c, &flags)
                .iter()
                .map(|r| r.iter().copied().fold(f64::NEG_INFINITY, f64::max))
                .collect();
            prop_assert_eq!(values.to_vec_blocking::<f64>().unwrap(), maxes);
        }
    }

    #[test]
    fn softmax_and_cumsum_over_views(
        shape in shape_strategy(), v in view_strategy(), dim in 0usize..3, scan in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let (c, t) = make(&shape, v, seed);
        let d = dim % shape.len();
        let got = if scan { t.cumsum(d as isize) } else { t.softmax(d as isize) }.unwrap();
        prop_assert_eq!(got.shape(), shape.as_slice());
        let values = got.to_vec_blocking::<f64>().unwrap();
        for (k, idx) in indices(&shape).iter().enumerate() {
            let along = |i: usize| {
                let mut j = idx.clone();
                j[d] = i;
                c.at(&j)
            };
            let want = if scan {
                (0..=idx[d]).map(along).sum::<f64>()
            } else {
                let row: Vec<f64> = (0..shape[d]).map(along).collect();
                let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                (c.at(idx) - m).exp() / row.iter().map(|x| (x - m).exp()).sum::<f64>()
            };
            prop_assert!(close(values[k], want), "{} at {:?}: {} vs {}",
                if scan { "cumsum" } else { "softmax" }, idx, values[k], want);
        }
    }
}
