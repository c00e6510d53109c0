//! torch's CPU sampling algorithms, producing host values in torch's iteration order.

use super::cephes;
use super::generator::GeneratorState;

/// torch's `uniform_real_distribution<float>`: 24 random bits scaled into [0, 1), then mapped to
/// `[from, to)` in f32.
fn uniform_f32(g: &mut GeneratorState, from: f32, to: f32) -> f32 {
    let x = (g.random() & 0xff_ffff) as f32 * (1.0 / (1u32 << 24) as f32);
    x.mul_add(to - from, from)
}

/// torch's `uniform_real_distribution<double>`: 53 bits of a 64-bit draw.
fn uniform_f64(g: &mut GeneratorState, from: f64, to: f64) -> f64 {
    let x = (g.random64() & ((1u64 << 53) - 1)) as f64 * (1.0 / (1u64 << 53) as f64);
    x.mul_add(to - from, from)
}

/// `uniform_(from, to)` on f32 elements; a value rounded up to `to` becomes `from`.
pub fn uniform(g: &mut GeneratorState, n: usize, from: f64, to: f64) -> Vec<f32> {
    let (from, to) = (from as f32, to as f32);
    (0..n)
        .map(|_| {
            let v = uniform_f32(g, from, to);
            if v == to { from } else { v }
        })
        .collect()
}

/// torch's scalar `normal_distribution<double>`: Box–Muller on two 53-bit uniforms, the sine
/// half kept in the generator for the next call.
fn normal_f64(g: &mut GeneratorState, mean: f64, std: f64) -> f64 {
    let ret = match g.next_double_normal.take() {
        Some(cached) => cached,
        None => {
            let u1 = uniform_f64(g, 0.0, 1.0);
            let u2 = uniform_f64(g, 0.0, 1.0);
            let r = (-2.0 * (-u2).ln_1p()).sqrt();
            let theta = 2.0 * std::f64::consts::PI * u1;
            g.next_double_normal = Some(r * theta.sin());
            r * theta.cos()
        }
    };
    ret.mul_add(std, mean)
}

/// Box–Muller over 16 uniforms in place, as torch's AVX2 `normal_fill_16`: lane j pairs
/// element j (radius) with element j + 8 (angle).
fn normal_fill_16(data: &mut [f32], mean: f32, std: f32) {
    let two_pi = (2.0 * std::f64::consts::PI) as f32;
    for j in 0..8 {
        let u1 = 1.0 - data[j];
        let u2 = data[j + 8];
        let radius = (-2.0 * cephes::log(u1)).sqrt();
        let (sin, cos) = cephes::sincos(two_pi * u2);
        data[j] = (radius * cos).mul_add(std, mean);
        data[j + 8] = (radius * sin).mul_add(std, mean);
    }
}

/// `normal_(mean, std)` on `n` f32 elements. `contiguous` picks torch's path: a contiguous tensor
/// of at least 16 elements is filled with uniforms and transformed 16 at a time (a ragged tail
/// redraws its last 16); anything else draws one scalar normal per element.
pub fn normal(g: &mut GeneratorState, n: usize, mean: f64, std: f64, contiguous: bool) -> Vec<f32> {
    if n < 16 || !contiguous {
        return (0..n).map(|_| normal_f64(g, mean, std) as f32).collect();
    }
    let (mean, std) = (mean as f32, std as f32);
    let mut data: Vec<f32> = (0..n).map(|_| uniform_f32(g, 0.0, 1.0)).collect();
    for block in data.chunks_exact_mut(16) {
        normal_fill_16(block, mean, std);
    }
    if !n.is_multiple_of(16) {
        let tail = &mut data[n - 16..];
        for v in tail.iter_mut() {
            *v = uniform_f32(g, 0.0, 1.0);
        }
        normal_fill_16(tail, mean, std);
    }
    data
}

/// `random_(from, to)`: `range = to - from`; ranges of 2^28 or more draw 64 bits, as torch does
/// to limit the modulo bias.
pub fn random_from_to(g: &mut GeneratorState, n: usize, range: u64, base: i64) -> Vec<i64> {
    (0..n)
        .map(|_| {
            let v = if range >= 1 << 28 {
                g.random64() % range
            } else {
                u64::from(g.random()) % range
            };
            (v as i64).wrapping_add(base)
        })
        .collect()
}

/// torch's CPU `randperm(n)`: swap each slot with a later one (Fisher–Yates on 32-bit draws) for
/// `n` below `u32::MAX / 20`, the inside-out variant on 64-bit draws above.
pub fn randperm(g: &mut GeneratorState, n: usize) -> Vec<i64> {
    if (n as u64) < u64::from(u32::MAX / 20) {
        let mut r: Vec<i64> = (0..n as i64).collect();
        for i in 0..n.saturating_sub(1) {
            let z = (u64::from(g.random()) % (n - i) as u64) as usize;
            r.swap(i, i + z);
        }
        r
    } else {
        let mut r = vec![0i64; n];
        for i in 0..n {
            let z = (g.random64() % (i as u64 + 1)) as usize;
            r[i] = r[z];
            r[z] = i as i64;
        }
        r
    }
}

/// `bernoulli_(p)` with a scalar `p`: a 53-bit uniform below `p` (torch's portable kernel).
pub fn bernoulli(g: &mut GeneratorState, n: usize, p: f64) -> Vec<bool> {
    (0..n).map(|_| uniform_f64(g, 0.0, 1.0) < p).collect()
}

/// torch's `exponential_(lambd=1)` on the CPU: `-log1p(-u)` of a 53-bit uniform double, for any
/// float dtype.
fn exponential_f64(g: &mut GeneratorState) -> f64 {
    -(-uniform_f64(g, 0.0, 1.0)).ln_1p()
}

/// The float types `multinomial` computes in: torch keeps the input's dtype.
pub(crate) trait Prob:
    Copy + PartialOrd + std::ops::Add<Output = Self> + std::ops::Div<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn of(v: f64) -> Self;
    fn finite(self) -> bool;
    fn widen(self) -> f64;
}

impl Prob for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn widen(self) -> f64 {
        f64::from(self)
    }
}

impl Prob for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn of(v: f64) -> f64 {
        v
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn widen(self) -> f64 {
        self
    }
}

/// torch's CPU `multinomial(weights, n, replacement)` for one distribution (its checks included;
/// `n` and `n <= len` without replacement are checked by the caller).
///
/// With replacement and `n > 1`: the normalised cumulative sum (in the input's dtype, the last
/// bucket forced to 1), one 53-bit uniform double per sample, a binary search. Otherwise (no
/// replacement, or one sample) torch's Gumbel trick: `q = exponential_()` per category,
/// `w / q`, and the `n` largest in descending order (argmax for one sample). Equal keys (zero
/// weights left once the positive ones are drawn) come in index order here; torch's order is its
/// sort's.
pub(crate) fn multinomial<T: Prob>(
    g: &mut GeneratorState,
    weights: &[T],
    n: usize,
    replacement: bool,
) -> Result<Vec<i64>, &'static str> {
    if !replacement || n == 1 {
        if weights.iter().any(|&w| !(w.finite() && w >= T::ZERO)) {
            return Err("probability tensor contains either `inf`, `nan` or element < 0");
        }
        let sum = weights.iter().fold(T::ZERO, |s, &w| s + w);
        if sum == T::ZERO {
            return Err("invalid multinomial distribution (sum of probabilities <= 0)");
        }
        let keys: Vec<T> = weights
            .iter()
            .map(|&w| w / T::of(exponential_f64(g)))
            .collect();
        let mut order: Vec<usize> = (0..weights.len()).collect();
        // Descending by key, a NaN first as torch's comparator puts it; stable, so ties keep index order.
        order.sort_by(|&a, &b| {
            let (x, y) = (keys[a].widen(), keys[b].widen());
            y.partial_cmp(&x)
                .unwrap_or_else(|| x.is_nan().cmp(&y.is_nan()).reverse())
        });
        return Ok(order[..n].iter().map(|&i| i as i64).collect());
    }
    let mut cum = Vec::with_capacity(weights.len());
    let mut sum = T::ZERO;
    for &w in weights {
        if w.widen().is_nan() || w < T::ZERO {
            return Err("invalid multinomial distribution (encountering probability entry < 0)");
        }
        if !w.finite() {
            return Err(
                "invalid multinomial distribution (encountering probability entry = infinity or NaN)",
            );
        }
        sum = sum + w;
        cum.push(sum);
    }
    if sum.widen().is_nan() || sum <= T::ZERO {
        return Err("invalid multinomial distribution (sum of probabilities <= 0)");
    }
    for c in cum.iter_mut() {
        *c = *c / sum;
    }
    if let Some(last) = cum.last_mut() {
        *last = T::ONE;
    }
    Ok((0..n)
        .map(|_| {
            let u = uniform_f64(g, 0.0, 1.0);
            let (mut left, mut right) = (0, cum.len());
            while right > left {
                let mid = left + (right - left) / 2;
                if cum[mid].widen() < u {
                    left = mid + 1;
                } else {
                    right = mid;
                }
            }
            left as i64
        })
        .collect())
}
