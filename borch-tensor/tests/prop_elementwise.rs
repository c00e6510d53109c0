//! Property tests: random shapes, broadcasts and strided views through elementwise ops, checked
//! against a plain-Rust reference on the CPU.

use borch_tensor::Tensor;
use proptest::prelude::*;

/// A CPU view: row-major base data seen through shape, strides and offset.
#[derive(Debug, Clone)]
struct Cpu {
    data: Vec<f32>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: isize,
}

impl Cpu {
    fn new(data: Vec<f32>, shape: Vec<usize>) -> Cpu {
        let mut strides = vec![0isize; shape.len()];
        let mut acc = 1isize;
        for i in (0..shape.len()).rev() {
            strides[i] = acc;
            acc *= shape[i] as isize;
        }
        Cpu {
            data,
            shape,
            strides,
            offset: 0,
        }
    }
    fn at(&self, index: &[usize]) -> f32 {
        let rank = self.shape.len();
        let skip = index.len() - rank;
        let mut o = self.offset;
        for d in 0..rank {
            let i = if self.shape[d] == 1 {
                0
            } else {
                index[skip + d]
            };
            o += i as isize * self.strides[d];
        }
        self.data[o as usize]
    }
}

#[derive(Debug, Clone)]
enum View {
    None,
    Transpose,
    Step,
}

/// Apply the same view to the CPU copy and to the borch tensor.
fn view(cpu: &Cpu, t: &Tensor, v: &View) -> (Cpu, Tensor) {
    let r = cpu.shape.len();
    match v {
        View::Transpose if r >= 2 => {
            let mut c = cpu.clone();
            c.shape.swap(r - 2, r - 1);
            c.strides.swap(r - 2, r - 1);
            (c, t.transpose(-2, -1).unwrap())
        }
        View::Step if r >= 1 => {
            let mut c = cpu.clone();
            let n = c.shape[r - 1];
            c.shape[r - 1] = n.div_ceil(2);
            c.strides[r - 1] *= 2;
            (c, t.slice(-1, None, None, 2).unwrap())
        }
        _ => (cpu.clone(), t.clone()),
    }
}

fn base_shape(logical: &[usize], v: &View) -> Vec<usize> {
    let mut s = logical.to_vec();
    let r = s.len();
    match v {
        View::Transpose if r >= 2 => s.swap(r - 2, r - 1),
        View::Step if r >= 1 => s[r - 1] *= 2,
        _ => {}
    }
    s
}

fn make(logical: &[usize], v: &View, seed: u64) -> (Cpu, Tensor) {
    let shape = base_shape(logical, v);
    let n: usize = shape.iter().product();
    let data: Vec<f32> = (0..n)
        .map(|i| (((i as u64 * 2654435761 + seed * 97) % 1000) as f32) / 250.0 - 2.0)
        .collect();
    let t = Tensor::from_slice(&data, &shape).unwrap();
    let cpu = Cpu::new(data, shape);
    let (c, t) = view(&cpu, &t, v);
    assert_eq!(c.shape.as_slice(), t.shape());
    (c, t)
}

fn broadcast(a: &[usize], b: &[usize]) -> Vec<usize> {
    let r = a.len().max(b.len());
    (0..r)
        .map(|i| {
            let da = if i + a.len() >= r {
                a[i + a.len() - r]
            } else {
                1
            };
            let db = if i + b.len() >= r {
                b[i + b.len() - r]
            } else {
                1
            };
            if da == 1 { db } else { da }
        })
        .collect()
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

fn close(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-4 + 1e-4 * b.abs()
}

/// Shapes `(a, b)` that broadcast: b drops leading dims of a and sets some dims to 1.
fn shapes() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    prop::collection::vec(1usize..5, 0..4)
        .prop_flat_map(|a| {
            let r = a.len();
            (Just(a), 0..=r, prop::collection::vec(any::<bool>(), r))
        })
        .prop_map(|(a, drop, ones)| {
            let b: Vec<usize> = a[drop..]
                .iter()
                .zip(&ones[drop..])
                .map(|(&d, &one)| if one { 1 } else { d })
                .collect();
            (a, b)
        })
}

fn view_strategy() -> impl Strategy<Value = View> {
    prop_oneof![Just(View::None), Just(View::Transpose), Just(View::Step)]
}

type Binary = (
    &'static str,
    fn(&Tensor, &Tensor) -> Tensor,
    fn(f32, f32) -> f32,
);

const BINARY: [Binary; 5] = [
    ("add", |a, b| a.add(b).unwrap(), |x, y| x + y),
    ("mul", |a, b| a.mul(b).unwrap(), |x, y| x * y),
    ("sub", |a, b| a.sub(b).unwrap(), |x, y| x - y),
    ("maximum", |a, b| a.maximum(b).unwrap(), f32::max),
    ("atan2", |a, b| a.atan2(b).unwrap(), f32::atan2),
];

type Unary = (&'static str, fn(&Tensor) -> Tensor, fn(f32) -> f32);

const UNARY: [Unary; 4] = [
    ("exp", |a| a.exp().unwrap(), f32::exp),
    ("neg", |a| a.neg().unwrap(), |x| -x),
    ("tanh", |a| a.tanh().unwrap(), f32::tanh),
    ("square", |a| a.square().unwrap(), |x| x * x),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn binary_ops_broadcast_over_views(
        (sa, sb) in shapes(), va in view_strategy(), vb in view_strategy(),
        swap in any::<bool>(), which in 0usize..5, seed in 0u64..1000,
    ) {
        let (sa, sb) = if swap { (sb, sa) } else { (sa, sb) };
        let (ca, ta) = make(&sa, &va, seed);
        let (cb, tb) = make(&sb, &vb, seed + 1);
        let (name, op, reference) = BINARY[which];
        let got = op(&ta, &tb);
        let shape = broadcast(&sa, &sb);
        prop_assert_eq!(got.shape(), shape.as_slice());
        let values = got.to_vec_blocking::<f32>().unwrap();
        for (k, idx) in indices(&shape).iter().enumerate() {
            let want = reference(ca.at(idx), cb.at(idx));
            prop_assert!(close(values[k], want), "{} at {:?}: {} vs {}", name, idx, values[k], want);
        }
    }

    #[test]
    fn unary_ops_over_views(
        (sa, _) in shapes(), va in view_strategy(), which in 0usize..4, seed in 0u64..1000,
    ) {
        let (ca, ta) = make(&sa, &va, seed);
        let (name, op, reference) = UNARY[which];
        let got = op(&ta);
        prop_assert_eq!(got.shape(), sa.as_slice());
        let values = got.to_vec_blocking::<f32>().unwrap();
        for (k, idx) in indices(&sa).iter().enumerate() {
            let want = reference(ca.at(idx));
            prop_assert!(close(values[k], want), "{} at {:?}: {} vs {}", name, idx, values[k], want);
        }
    }
}
