//! torch's `_cubic_interpolate` and `_strong_wolfe` line search (torch/optim/lbfgs.py), over the
//! host copies of the flat gradient that LBFGS keeps.

use borch_tensor::Result;

use super::flat::{abs_max, dot};

/// torch's `_cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds)`.
pub fn cubic_interpolate(
    (x1, f1, g1): (f64, f64, f64),
    (x2, f2, g2): (f64, f64, f64),
    bounds: Option<(f64, f64)>,
) -> f64 {
    let (xmin_bound, xmax_bound) = match bounds {
        Some(b) => b,
        None if x1 <= x2 => (x1, x2),
        None => (x2, x1),
    };
    let d1 = g1 + g2 - 3.0 * (f1 - f2) / (x1 - x2);
    let d2_square = d1 * d1 - g1 * g2;
    if d2_square >= 0.0 {
        let d2 = d2_square.sqrt();
        let min_pos = if x1 <= x2 {
            x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2.0 * d2))
        } else {
            x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2.0 * d2))
        };
        min_pos.max(xmin_bound).min(xmax_bound)
    } else {
        (xmin_bound + xmax_bound) / 2.0
    }
}

/// A point of the line search: step, loss, flat gradient, directional derivative.
#[derive(Clone)]
struct Point {
    t: f64,
    f: f64,
    g: Vec<f32>,
    gtd: f64,
}

/// What the search found: loss, flat gradient, step, evaluations used.
pub struct Found {
    pub f: f64,
    pub g: Vec<f32>,
    pub t: f64,
    pub evals: i64,
}

/// torch's `_strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9,
/// tolerance_change=1e-9, max_ls)`; `eval(t)` is torch's `obj_func(x, t, d)`.
#[allow(clippy::too_many_arguments)]
pub fn strong_wolfe(
    eval: &mut dyn FnMut(f64) -> Result<(f64, Vec<f32>)>,
    mut t: f64,
    d: &[f32],
    f: f64,
    g: &[f32],
    gtd: f64,
    tolerance_change: f64,
    max_ls: i64,
) -> Result<Found> {
    let (c1, c2) = (1e-4, 0.9);
    let d_norm = abs_max(d);
    let (mut f_new, mut g_new) = eval(t)?;
    let mut evals = 1;
    let mut gtd_new = dot(&g_new, d);
    let mut prev = Point {
        t: 0.0,
        f,
        g: g.to_vec(),
        gtd,
    };
    let mut done = false;
    let mut ls_iter = 0;
    let mut bracket: Vec<Point> = Vec::new();
    while ls_iter < max_ls {
        let here = || Point {
            t,
            f: f_new,
            g: g_new.clone(),
            gtd: gtd_new,
        };
        if f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= prev.f) {
            bracket = vec![prev.clone(), here()];
            break;
        }
        if gtd_new.abs() <= -c2 * gtd {
            bracket = vec![here()];
            done = true;
            break;
        }
        if gtd_new >= 0.0 {
            bracket = vec![prev.clone(), here()];
            break;
        }
        let min_step = t + 0.01 * (t - prev.t);
        let max_step = t * 10.0;
        let tmp = t;
        t = cubic_interpolate(
            (prev.t, prev.f, prev.gtd),
            (t, f_new, gtd_new),
            Some((min_step, max_step)),
        );
        prev = Point {
            t: tmp,
            f: f_new,
            g: g_new.clone(),
            gtd: gtd_new,
        };
        (f_new, g_new) = eval(t)?;
        evals += 1;
        gtd_new = dot(&g_new, d);
        ls_iter += 1;
    }
    if ls_iter == max_ls {
        // torch's bracket [0, t] (its gtd entries are never read after this).
        bracket = vec![
            Point {
                t: 0.0,
                f,
                g: g.to_vec(),
                gtd,
            },
            Point {
                t,
                f: f_new,
                g: g_new.clone(),
                gtd: gtd_new,
            },
        ];
    }
    if bracket.is_empty() {
        return Err(borch_tensor::BorchError::Value(format!(
            "LBFGS: the line search has no evaluations left (max_ls = {max_ls}); raise max_eval"
        )));
    }
    let mut insuf_progress = false;
    let order = |b: &[Point]| {
        if b[0].f <= b[b.len() - 1].f {
            (0, 1)
        } else {
            (1, 0)
        }
    };
    let (mut low, mut high) = order(&bracket);
    while !done && ls_iter < max_ls {
        if (bracket[1].t - bracket[0].t).abs() * d_norm < tolerance_change {
            break;
        }
        t = cubic_interpolate(
            (bracket[0].t, bracket[0].f, bracket[0].gtd),
            (bracket[1].t, bracket[1].f, bracket[1].gtd),
            None,
        );
        let (bmax, bmin) = (
            bracket[0].t.max(bracket[1].t),
            bracket[0].t.min(bracket[1].t),
        );
        let eps = 0.1 * (bmax - bmin);
        if (bmax - t).min(t - bmin) < eps {
            if insuf_progress || t >= bmax || t <= bmin {
                t = if (t - bmax).abs() < (t - bmin).abs() {
                    bmax - eps
                } else {
                    bmin + eps
                };
                insuf_progress = false;
            } else {
                insuf_progress = true;
            }
        } else {
            insuf_progress = false;
        }
        (f_new, g_new) = eval(t)?;
        evals += 1;
        gtd_new = dot(&g_new, d);
        ls_iter += 1;
        let point = Point {
            t,
            f: f_new,
            g: g_new.clone(),
            gtd: gtd_new,
        };
        if f_new > f + c1 * t * gtd || f_new >= bracket[low].f {
            bracket[high] = point;
            (low, high) = order(&bracket);
        } else {
            if gtd_new.abs() <= -c2 * gtd {
                done = true;
            } else if gtd_new * (bracket[high].t - bracket[low].t) >= 0.0 {
                bracket[high] = bracket[low].clone();
            }
            bracket[low] = point;
        }
    }
    let best = bracket.swap_remove(low);
    Ok(Found {
        f: best.f,
        g: best.g,
        t: best.t,
        evals,
    })
}
