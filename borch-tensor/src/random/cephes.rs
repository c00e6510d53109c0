//! Single-precision log and sincos as torch's AVX2 `normal_` kernel computes them: the Cephes
//! polynomials of Pommier's `avx_mathfun`, evaluated here lane by lane with the same f32
//! operations in the same order, so the results agree bit for bit on every target (no libm).
//! GCC contracts the kernel's multiply-adds into FMAs, so the same pairs are `mul_add` here.
// The constants keep Cephes' digits, so they round to f32 exactly as the C arrays do.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

/// A double literal rounded to f32 once (as `float c[] = {0.70710678...}` does).
const fn c(v: f64) -> f32 {
    v as f32
}

const SQRT_HALF: f32 = c(0.707106781186547524);
const LOG_P: [f32; 9] = [
    c(7.0376836292E-2),
    c(-1.1514610310E-1),
    c(1.1676998740E-1),
    c(-1.2420140846E-1),
    c(1.4249322787E-1),
    c(-1.6668057665E-1),
    c(2.0000714765E-1),
    c(-2.4999993993E-1),
    c(3.3333331174E-1),
];
const LOG_Q1: f32 = c(-2.12194440e-4);
const LOG_Q2: f32 = c(0.693359375);

/// Natural log of `x > 0` (NaN for `x <= 0`, denormals flushed to the smallest normal).
pub fn log(x: f32) -> f32 {
    let invalid = x <= 0.0;
    let x = x.max(f32::MIN_POSITIVE);
    let bits = x.to_bits();
    // Split x = m * 2^e with m in [0.5, 1).
    let mut e = ((bits >> 23) as i32 - 0x7f) as f32 + 1.0;
    let mut m = f32::from_bits((bits & !0x7f80_0000) | 0.5f32.to_bits());
    let small = m < SQRT_HALF;
    let extra = if small { m } else { 0.0 };
    m -= 1.0;
    e -= if small { 1.0 } else { 0.0 };
    m += extra;
    let z = m * m;
    let mut y = LOG_P[0];
    for &p in &LOG_P[1..] {
        y = y.mul_add(m, p);
    }
    y = (y * m).mul_add(z, e * LOG_Q1);
    y -= z * 0.5;
    let r = e.mul_add(LOG_Q2, m + y);
    if invalid { f32::NAN } else { r }
}

const FOUR_OVER_PI: f32 = c(1.27323954473516);
const MINUS_DP: [f32; 3] = [
    c(-0.78515625),
    c(-2.4187564849853515625e-4),
    c(-3.77489497744594108e-8),
];
const SIN_P: [f32; 3] = [c(-1.9515295891E-4), c(8.3321608736E-3), c(-1.6666654611E-1)];
const COS_P: [f32; 3] = [
    c(2.443315711809948E-005),
    c(-1.388731625493765E-003),
    c(4.166664568298827E-002),
];
const SIGN: u32 = 0x8000_0000;

/// `(sin x, cos x)` for moderate `x` (the AVX2 kernel only sees `0 <= x < 2π`).
pub fn sincos(x: f32) -> (f32, f32) {
    let sign_in = x.to_bits() & SIGN;
    let mut x = x.abs();
    // The octant, rounded up to even, selects the polynomial and the signs.
    let j = (((x * FOUR_OVER_PI) as i32).wrapping_add(1)) & !1;
    let y = j as f32;
    let sin_sign = sign_in ^ (((j & 4) as u32) << 29);
    let cos_sign = ((!(j.wrapping_sub(2)) & 4) as u32) << 29;
    let use_sin_poly = j & 2 == 0;
    // Extended-precision reduction x - y * π/4 in three parts.
    for d in MINUS_DP {
        x = y.mul_add(d, x);
    }
    let z = x * x;
    let cos_head = COS_P[0].mul_add(z, COS_P[1]).mul_add(z, COS_P[2]) * z;
    let cos_poly = cos_head.mul_add(z, -(z * 0.5)) + 1.0;
    let sin_head = SIN_P[0].mul_add(z, SIN_P[1]).mul_add(z, SIN_P[2]) * z;
    let sin_poly = sin_head.mul_add(x, x);
    // The kernel blends the two polynomials with bit masks; adding +0.0 keeps its signed zeros.
    let (s, c) = if use_sin_poly {
        (0.0 + sin_poly, cos_poly + 0.0)
    } else {
        (cos_poly + 0.0, 0.0 + sin_poly)
    };
    (
        f32::from_bits(s.to_bits() ^ sin_sign),
        f32::from_bits(c.to_bits() ^ cos_sign),
    )
}
