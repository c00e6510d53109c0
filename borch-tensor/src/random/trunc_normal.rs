//! `torch.nn.init.trunc_normal_` as torch computes it on the CPU: `uniform_(2l - 1, 2u - 1)`
//! with `l`, `u` the normal CDF at the bounds (in double, as Python's `math.erf`), then
//! `erfinv_`, `mul_(std * sqrt(2))`, `add_(mean)` and `clamp_(a, b)` in float32. torch's
//! float `erfinv` is `calc_erfinv` (ATen's Math.h): a rational first guess and two Newton steps,
//! its polynomials contracted into fused multiply-adds as torch's AVX2 build compiles them.

use super::{GeneratorState, sample};

const A: [f32; 4] = [0.886_226_9, -1.645_349_6, 0.914_624_9, -0.140_543_33];
const B: [f32; 4] = [-2.118_377_7, 1.442_710_5, -0.329_097_5, 0.012_229_801];
const C: [f32; 4] = [-1.970_840_5, -1.624_906_5, 3.429_567_8, 1.641_345_3];
const D: [f32; 2] = [3.543_889_2, 1.637_067_8];

/// torch's `calc_erfinv(float)`.
pub fn erfinv(y: f32) -> f32 {
    let y_abs = y.abs();
    if y_abs > 1.0 {
        return f32::NAN;
    }
    if y_abs == 1.0 {
        return f32::INFINITY.copysign(y);
    }
    let mut x = if y_abs <= 0.7 {
        let z = y * y;
        let num = A[3].mul_add(z, A[2]).mul_add(z, A[1]).mul_add(z, A[0]);
        let dem = B[3]
            .mul_add(z, B[2])
            .mul_add(z, B[1])
            .mul_add(z, B[0])
            .mul_add(z, 1.0);
        y * num / dem
    } else {
        let z = (-((1.0 - y_abs) / 2.0).ln()).sqrt();
        let num = C[3].mul_add(z, C[2]).mul_add(z, C[1]).mul_add(z, C[0]);
        let dem = D[1].mul_add(z, D[0]).mul_add(z, 1.0);
        num.copysign(y) / dem
    };
    let two_over_sqrt_pi = 2.0f32 / (std::f64::consts::PI.sqrt() as f32);
    for _ in 0..2 {
        x -= (libm::erff(x) - y) / (two_over_sqrt_pi * (-x * x).exp());
    }
    x
}

/// The standard normal CDF in double (Python's `(1 + math.erf(x / math.sqrt(2))) / 2`).
fn norm_cdf(x: f64) -> f64 {
    (1.0 + libm::erf(x / std::f64::consts::SQRT_2)) / 2.0
}

/// The `uniform_(from, to)` bounds `trunc_normal_(mean, std, a, b)` draws between.
pub fn uniform_bounds(mean: f64, std: f64, a: f64, b: f64) -> (f64, f64) {
    let l = norm_cdf((a - mean) / std);
    let u = norm_cdf((b - mean) / std);
    (2.0 * l - 1.0, 2.0 * u - 1.0)
}

/// `n` values of `trunc_normal_(mean, std, a, b)` in fill order (bounds already checked).
pub fn trunc_normal(
    g: &mut GeneratorState,
    n: usize,
    mean: f64,
    std: f64,
    a: f64,
    b: f64,
) -> Vec<f32> {
    let (from, to) = uniform_bounds(mean, std, a, b);
    let scale = (std * std::f64::consts::SQRT_2) as f32;
    let (mean, a, b) = (mean as f32, a as f32, b as f32);
    sample::uniform(g, n, from, to)
        .into_iter()
        .map(|v| (erfinv(v) * scale + mean).max(a).min(b))
        .collect()
}
