//! WGSL shared by generated kernels: the flat thread index and numeric helpers that WGSL lacks
//! or defines differently from torch (NaN tests by bit pattern, so no compiler can fold them;
//! NaN and infinity made at run time, as Tint refuses them in constant expressions).

/// `flat_index` (the flat thread index of a 1-D dispatch) and `sp` (parameter `i` as i32).
pub const INDEX: &str = r#"
fn flat_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}
fn sp(i: u32) -> i32 { return bitcast<i32>(p[i]); }
"#;

/// Numeric helpers: NaN and infinity tests and constants, and torch's definitions of the math
/// functions WGSL lacks or defines differently.
pub const MATH: &str = r#"
const PI: f32 = 3.14159265358979323846;
fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn is_inf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }
// Through a var: a constant bitcast to NaN or infinity is a shader-creation error in Tint
// (Chromium's WebGPU: "value nan cannot be represented as 'f32'"); a var is never const-folded.
fn f_nan() -> f32 { var bits = 0x7fc00000u; return bitcast<f32>(bits); }
fn f_inf() -> f32 { var bits = 0x7f800000u; return bitcast<f32>(bits); }
// exp and log with torch's special values spelled out: WGSL leaves a builtin's result on NaN,
// infinity or outside its domain indeterminate, and SwiftShader (Chromium's software WebGPU)
// returns +inf for exp(NaN) and finite values for log(0), log(-1) and log(NaN).
fn nan_or(x: f32, r: f32) -> f32 { return select(r, x, is_nan(x)); }
fn exp_(x: f32) -> f32 { return nan_or(x, exp(x)); }
fn exp2_(x: f32) -> f32 { return nan_or(x, exp2(x)); }
fn log_(x: f32) -> f32 {
    if (is_nan(x) || x < 0.0) { return f_nan(); }
    if (x == 0.0) { return -f_inf(); }
    if (is_inf(x)) { return x; }
    return log(x);
}
fn log2_(x: f32) -> f32 {
    if (is_nan(x) || x < 0.0) { return f_nan(); }
    if (x == 0.0) { return -f_inf(); }
    if (is_inf(x)) { return x; }
    return log2(x);
}
fn asinh_(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) { return x; }
    return asinh(x);
}
fn acosh_(x: f32) -> f32 {
    if (is_nan(x) || x < 1.0) { return f_nan(); }
    if (is_inf(x)) { return x; }
    return acosh(x);
}
fn atanh_(x: f32) -> f32 {
    if (is_nan(x) || abs(x) > 1.0) { return f_nan(); }
    if (abs(x) == 1.0) { return select(-f_inf(), f_inf(), x > 0.0); }
    return atanh(x);
}
// sin, cos and tan to f32 accuracy: WGSL allows sin and cos an absolute error of 2^-11, which
// SwiftShader uses (torch's tan gradient 1 + tan^2 then misses by 1e-4). The argument is reduced
// by k * pi/2 (pi/2 in three parts, exact products for |k| < 2^16) and the quarter is Cephes'
// sinf/cosf polynomials; beyond |x| = 1e5 the builtins.
fn trig_sin_r(r: f32) -> f32 {
    let z = r * r;
    return ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
}
fn trig_cos_r(r: f32) -> f32 {
    let z = r * r;
    return ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
}
fn trig_quarter(x: f32) -> vec2<f32> {
    let k = round(x * 0.63661977236758134);
    let r = ((x - k * 1.5703125) - k * 4.837512969970703125e-4) - k * 7.54978995489188216e-8;
    return vec2<f32>(r, k);
}
fn sin_(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) { return f_nan(); }
    if (abs(x) > 1e5) { return sin(x); }
    let rk = trig_quarter(x);
    let q = i32(rk.y) & 3;
    let v = select(trig_sin_r(rk.x), trig_cos_r(rk.x), (q & 1) == 1);
    return select(v, -v, q >= 2);
}
fn cos_(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) { return f_nan(); }
    if (abs(x) > 1e5) { return cos(x); }
    let rk = trig_quarter(x);
    let q = i32(rk.y) & 3;
    let v = select(trig_cos_r(rk.x), trig_sin_r(rk.x), (q & 1) == 1);
    return select(v, -v, q == 1 || q == 2);
}
fn tan_(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) { return f_nan(); }
    if (abs(x) > 1e5) { return tan(x); }
    return sin_(x) / cos_(x);
}
fn erf_(x: f32) -> f32 {
    // Abramowitz & Stegun 7.1.26 refined with one Newton step on erf's derivative would cost
    // more; this form has absolute error below 1.5e-7.
    let ax = abs(x);
    let t = 1.0 / (1.0 + 0.3275911 * ax);
    let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-ax * ax);
    return select(y, -y, x < 0.0);
}
fn erfc_(x: f32) -> f32 {
    let ax = abs(x);
    let t = 1.0 / (1.0 + 0.3275911 * ax);
    let tail = (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-ax * ax);
    return select(tail, 2.0 - tail, x < 0.0);
}
fn tanh_(x: f32) -> f32 {
    if (abs(x) < 0.0004) { return x; }
    let e = exp(-2.0 * abs(x));
    let r = (1.0 - e) / (1.0 + e);
    return select(r, -r, x < 0.0);
}
fn sigmoid_(x: f32) -> f32 {
    if (x >= 0.0) { return 1.0 / (1.0 + exp(-x)); }
    let e = exp(x);
    return e / (1.0 + e);
}
fn log1p_(x: f32) -> f32 {
    if (x < -1.0 || is_nan(x)) { return f_nan(); }
    if (x == -1.0) { return -f_inf(); }
    let u = 1.0 + x;
    if (u == 1.0) { return x; }
    if (is_inf(u)) { return u; }
    return log(u) * (x / (u - 1.0));
}
fn expm1_(x: f32) -> f32 {
    if (abs(x) < 1e-5) { return x + 0.5 * x * x; }
    let u = exp_(x);
    if (is_inf(u) || is_nan(u)) { return u; }
    if (u == 0.0) { return -1.0; }
    return (u - 1.0) * (x / log(u));
}
fn softplus_(x: f32, beta: f32, threshold: f32) -> f32 {
    if (x * beta > threshold) { return x; }
    return log1p_(exp_(x * beta)) / beta;
}
fn pow_f(x: f32, y: f32) -> f32 {
    if (y == 0.0 || x == 1.0) { return 1.0; }
    if (is_nan(x) || is_nan(y)) { return f_nan(); }
    let ay = abs(y);
    let y_int = trunc(y) == y;
    let y_odd = y_int && ay < 16777216.0 && (i32(ay) & 1) == 1;
    if (is_inf(x)) {
        if (x > 0.0) { return select(f_inf(), 0.0, y < 0.0); }
        if (y < 0.0) { return select(0.0, -0.0, y_odd); }
        return select(f_inf(), -f_inf(), y_odd);
    }
    if (x == 0.0) {
        if (y > 0.0) { return select(0.0, x, y_odd); }
        return select(f_inf(), 1.0 / x, y_odd);
    }
    if (is_inf(y)) {
        let ax = abs(x);
        if (ax == 1.0) { return 1.0; }
        if ((ax > 1.0) == (y > 0.0)) { return f_inf(); }
        return 0.0;
    }
    if (x < 0.0) {
        if (!y_int) { return f_nan(); }
        if (y == 2.0) { return x * x; }
        let m = pow(-x, y);
        return select(m, -m, y_odd);
    }
    if (y == 2.0) { return x * x; }
    if (y == 0.5) { return sqrt(x); }
    if (y == 1.0) { return x; }
    if (y == -1.0) { return 1.0 / x; }
    return pow(x, y);
}
fn pow_i(x: i32, y: i32) -> i32 {
    if (y < 0) {
        if (x == 1) { return 1; }
        if (x == -1) { return select(1, -1, (y & 1) == 1); }
        return 0;
    }
    var r = 1;
    var b = x;
    var e = y;
    loop {
        if (e == 0) { break; }
        if ((e & 1) == 1) { r = r * b; }
        b = b * b;
        e = e >> 1u;
    }
    return r;
}
fn fmod_f(a: f32, b: f32) -> f32 {
    if (b == 0.0 || is_inf(a) || is_nan(a) || is_nan(b)) { return f_nan(); }
    if (is_inf(b)) { return a; }
    let r = a - trunc(a / b) * b;
    // keep the sign of the dividend and stay within |b|
    if (abs(r) >= abs(b)) { return a - (trunc(a / b) + sign(a / b)) * b; }
    return r;
}
fn remainder_f(a: f32, b: f32) -> f32 {
    if (is_inf(b) && !is_inf(a) && !is_nan(a)) {
        if (a == 0.0 || (a < 0.0) == (b < 0.0)) { return a; }
        return b;
    }
    var m = fmod_f(a, b);
    if (m != 0.0 && ((b < 0.0) != (m < 0.0))) { m = m + b; }
    return m;
}
fn floordiv_i(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let q = a / b;
    return select(q, q - 1, (a % b != 0) && ((a < 0) != (b < 0)));
}
fn remainder_i(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let r = a % b;
    return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));
}
fn fmod_i(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    return a % b;
}
fn truthy(x: f32) -> bool { return is_nan(x) || x != 0.0; }
fn eq_f(a: f32, b: f32) -> bool { return !is_nan(a) && !is_nan(b) && a == b; }
fn lt_f(a: f32, b: f32) -> bool { return !is_nan(a) && !is_nan(b) && a < b; }
fn le_f(a: f32, b: f32) -> bool { return !is_nan(a) && !is_nan(b) && a <= b; }
fn atan_(x: f32) -> f32 { if (is_nan(x)) { return x; } return atan(x); }
fn atan2_(y: f32, x: f32) -> f32 {
    if (is_nan(x) || is_nan(y)) { return f_nan(); }
    let neg_x = (bitcast<u32>(x) >> 31u) == 1u;
    let ys = select(1.0, -1.0, (bitcast<u32>(y) >> 31u) == 1u);
    if (y == 0.0) { return select(y, ys * PI, neg_x); }
    if (x == 0.0) { return ys * PI * 0.5; }
    if (is_inf(x)) {
        if (is_inf(y)) { return ys * select(PI * 0.25, PI * 0.75, neg_x); }
        return select(ys * 0.0, ys * PI, neg_x);
    }
    if (is_inf(y)) { return ys * PI * 0.5; }
    let r = atan(y / x);
    if (x > 0.0) { return r; }
    return r + ys * PI;
}
fn asin_(x: f32) -> f32 {
    if (is_nan(x) || abs(x) > 1.0) { return f_nan(); }
    return atan2_(x, sqrt((1.0 - x) * (1.0 + x)));
}
fn acos_(x: f32) -> f32 {
    if (is_nan(x) || abs(x) > 1.0) { return f_nan(); }
    return atan2_(sqrt((1.0 - x) * (1.0 + x)), x);
}
fn max_f(a: f32, b: f32) -> f32 { if (is_nan(a) || is_nan(b)) { return f_nan(); } return max(a, b); }
fn min_f(a: f32, b: f32) -> f32 { if (is_nan(a) || is_nan(b)) { return f_nan(); } return min(a, b); }
fn clamp_f(x: f32, lo: f32, hi: f32) -> f32 {
    if (is_nan(x) || is_nan(lo) || is_nan(hi)) { return f_nan(); }
    return min(max(x, lo), hi);
}
fn sign_f(x: f32) -> f32 {
    if (is_nan(x)) { return 0.0; }
    return select(select(0.0, -1.0, x < 0.0), 1.0, x > 0.0);
}
fn round_even(x: f32) -> f32 {
    if (abs(x) >= 8388608.0) { return x; }
    let r = floor(x + 0.5);
    if (r - x == 0.5) { return 2.0 * floor(r * 0.5); }
    return r;
}
fn div_trunc_f(a: f32, b: f32) -> f32 { return trunc(a / b); }
fn div_floor_f(a: f32, b: f32) -> f32 {
    if (b == 0.0) { return a / b; }
    let m = fmod_f(a, b);
    var d = (a - m) / b;
    if (m != 0.0 && ((b < 0.0) != (m < 0.0))) { d = d - 1.0; }
    if (d == 0.0) { return select(0.0, -0.0, (a / b) < 0.0); }
    var f = floor(d);
    if (d - f > 0.5) { f = f + 1.0; }
    return f;
}
fn gelu_(x: f32) -> f32 { return 0.5 * x * (1.0 + erf_(x * 0.70710678118654752)); }
fn gelu_tanh_(x: f32) -> f32 {
    return 0.5 * x * (1.0 + tanh_(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
fn lerp_(a: f32, b: f32, w: f32) -> f32 {
    return select(b - (b - a) * (1.0 - w), a + w * (b - a), abs(w) < 0.5);
}
fn nan_to_num_(x: f32, nan: f32, posinf: f32, neginf: f32) -> f32 {
    if (is_nan(x)) { return nan; }
    if (is_inf(x)) { return select(neginf, posinf, x > 0.0); }
    return x;
}
"#;
