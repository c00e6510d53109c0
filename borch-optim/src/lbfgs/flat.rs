//! Flat host vectors as torch's LBFGS keeps them (float32), with torch's float32 results.

/// A float32 tensor's value as the f64 torch's Python sees.
pub fn r32(x: f64) -> f64 {
    f64::from(x as f32)
}

/// `a.dot(b)`: a float32 scalar.
pub fn dot(a: &[f32], b: &[f32]) -> f64 {
    r32(a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum())
}

/// `a.abs().max()`.
pub fn abs_max(a: &[f32]) -> f64 {
    a.iter().fold(0.0f64, |m, x| m.max(f64::from(x.abs())))
}

/// `a.abs().sum()`: a float32 scalar.
pub fn abs_sum(a: &[f32]) -> f64 {
    r32(a.iter().map(|x| f64::from(x.abs())).sum())
}

/// `a.add_(b, alpha=alpha)`, float32 as torch computes it.
pub fn add_scaled(a: &mut [f32], b: &[f32], alpha: f64) {
    let alpha = alpha as f32;
    for (x, y) in a.iter_mut().zip(b) {
        *x += alpha * y;
    }
}

/// `a.mul(s)`.
pub fn scaled(a: &[f32], s: f64) -> Vec<f32> {
    let s = s as f32;
    a.iter().map(|x| x * s).collect()
}

/// `a.sub(b)`.
pub fn sub(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

/// `a.neg()`.
pub fn neg(a: &[f32]) -> Vec<f32> {
    a.iter().map(|x| -x).collect()
}
