//! What each reduction computes, as "map, combine, finalize" WGSL snippets for the one reduction
//! kernel (kernels/reduce.rs), and the scans' combine. The methods (reduce.rs, arg_reduce.rs,
//! moments.rs, softmax.rs, scan.rs) check arguments and pick a spec here; `kernel_sources` lists
//! every kernel these specs generate, for validation by naga.

use crate::dtype::DType;
use crate::kernels::reduce::{Combine, Fold, Output, Pre, ReduceSpec};
use crate::kernels::reduce_wgsl::{Stage, source};
use crate::kernels::scan::{self, ScanSpec};

/// The WGSL zero of a dtype's storage type.
pub(crate) fn zero(dt: DType) -> &'static str {
    match dt {
        DType::Float32 => "0.0",
        DType::Int64 => "0",
        DType::Bool => "0u",
    }
}

/// The identity of max (the lowest value) or of min, for a dtype.
fn lowest(dt: DType, for_max: bool) -> &'static str {
    match (dt, for_max) {
        (DType::Float32, true) => "-f_inf()",
        (DType::Float32, false) => "f_inf()",
        (DType::Int64, true) => "i32(-2147483647 - 1)",
        (DType::Int64, false) => "2147483647",
        (DType::Bool, true) => "0u",
        (DType::Bool, false) => "1u",
    }
}

/// A fold with a plain combine expression.
fn fold(acc: &'static str, init: &str, map: &str, combine: &str) -> Fold {
    Fold {
        acc,
        init: init.to_string(),
        map: map.to_string(),
        combine: Combine::Expr(combine.to_string()),
    }
}

fn f32_sum(map: &str) -> Fold {
    fold("f32", "0.0", map, "a + b")
}

/// One value of `dtype` per output.
fn value_spec(compute: DType, fold: Fold, dtype: DType, finalize: &str) -> ReduceSpec {
    ReduceSpec {
        compute,
        pre: None,
        fold,
        output: Output::Value {
            dtype,
            finalize: finalize.to_string(),
            index: false,
        },
        extras: Vec::new(),
    }
}

/// The dtype sums and products accumulate in and return: int64 for integers and bools.
pub(crate) fn accumulating(dt: DType) -> DType {
    if dt == DType::Float32 {
        DType::Float32
    } else {
        DType::Int64
    }
}

/// sum (`product` false) or prod over elements of `dt`.
pub(crate) fn sum(dt: DType, product: bool) -> ReduceSpec {
    let c = accumulating(dt);
    let (op, one) = if product { ("*", "1") } else { ("+", "0") };
    let init = if c == DType::Float32 {
        format!("{one}.0")
    } else {
        one.to_string()
    };
    value_spec(
        c,
        fold(c.wgsl(), &init, "x", &format!("a {op} b")),
        c,
        "acc",
    )
}

/// mean (floats only); the mean of nothing is NaN.
pub(crate) fn mean() -> ReduceSpec {
    value_spec(
        DType::Float32,
        f32_sum("x"),
        DType::Float32,
        "div_or_nan(acc, n)",
    )
}

/// amax / amin: NaN propagating, dtype kept.
pub(crate) fn extreme(dt: DType, for_max: bool) -> ReduceSpec {
    let combine = match (dt, for_max) {
        (DType::Float32, true) => "max_f(a, b)",
        (DType::Float32, false) => "min_f(a, b)",
        (_, true) => "max(a, b)",
        (_, false) => "min(a, b)",
    };
    value_spec(
        dt,
        fold(dt.wgsl(), lowest(dt, for_max), "x", combine),
        dt,
        "acc",
    )
}

/// all (`every`) or any: NaN counts as nonzero (tested by bit pattern for floats).
pub(crate) fn truth(dt: DType, every: bool) -> ReduceSpec {
    let map = if dt == DType::Float32 {
        "u32(nonzero_f(x))".to_string()
    } else {
        format!("u32(x != {})", zero(dt))
    };
    let (init, combine) = if every {
        ("1u", "a & b")
    } else {
        ("0u", "a | b")
    };
    value_spec(dt, fold("u32", init, &map, combine), DType::Bool, "acc")
}

/// logsumexp: the max first (infinities taken as 0, as torch), then `log(sum(exp(x - max)))`.
pub(crate) fn logsumexp() -> ReduceSpec {
    ReduceSpec {
        compute: DType::Float32,
        pre: Some(Pre {
            fold: fold("f32", "-f_inf()", "x", "max_f(a, b)"),
            finalize: "select(acc, 0.0, is_inf(acc))".into(),
        }),
        fold: f32_sum("exp_(x - pre)"),
        output: Output::Value {
            dtype: DType::Float32,
            finalize: "log_f(acc) + pre".into(),
            index: false,
        },
        extras: Vec::new(),
    }
}

/// `log(sum(exp(x)))` of inputs already shifted by their max (logsumexp over split rows).
pub(crate) fn log_sum_exp_shifted() -> ReduceSpec {
    value_spec(
        DType::Float32,
        f32_sum("exp_(x)"),
        DType::Float32,
        "log_f(acc)",
    )
}

/// The vector p-norm: inf, -inf, 0, 1, 2 by their own folds, any other p through `k(0u)`.
pub(crate) fn norm(p: f64) -> ReduceSpec {
    let (f, finalize) = if p == f64::INFINITY {
        (fold("f32", "0.0", "abs(x)", "max_f(a, b)"), "acc")
    } else if p == f64::NEG_INFINITY {
        (fold("f32", "f_inf()", "abs(x)", "min_f(a, b)"), "acc")
    } else if p == 0.0 {
        (f32_sum("select(0.0, 1.0, nonzero_f(x))"), "acc")
    } else if p == 1.0 {
        (f32_sum("abs(x)"), "acc")
    } else if p == 2.0 {
        (f32_sum("x * x"), "sqrt(acc)")
    } else {
        (f32_sum("pow_f(abs(x), k(0u))"), "pow_f(acc, 1.0 / k(0u))")
    };
    let mut spec = value_spec(DType::Float32, f, DType::Float32, finalize);
    spec.extras = vec![p as f32];
    spec
}

/// var (or std, `root`): divided by `max(0, n - correction)`, so a correction >= n gives inf,
/// or NaN for 0/0, as torch.
fn moment_finalize(root: bool) -> String {
    let var = "div_or_nan(acc, max(n - k(0u), 0.0))";
    if root {
        format!("sqrt({var})")
    } else {
        var.to_string()
    }
}

/// var / std in two passes over each row: the mean, then the squared deviations.
pub(crate) fn moment(correction: f64, root: bool) -> ReduceSpec {
    ReduceSpec {
        compute: DType::Float32,
        pre: Some(Pre {
            fold: f32_sum("x"),
            finalize: "div_or_nan(acc, n)".into(),
        }),
        fold: f32_sum("(x - pre) * (x - pre)"),
        output: Output::Value {
            dtype: DType::Float32,
            finalize: moment_finalize(root),
            index: false,
        },
        extras: vec![correction as f32],
    }
}

/// var / std of squared deviations already computed (var over split rows).
pub(crate) fn moment_of_squares(correction: f64, root: bool) -> ReduceSpec {
    let mut spec = value_spec(
        DType::Float32,
        f32_sum("x"),
        DType::Float32,
        &moment_finalize(root),
    );
    spec.extras = vec![correction as f32];
    spec
}

/// Whether `(b, ib)` beats `(a, ia)` for max (`>`) or min (`<`): the first index wins ties, and
/// a NaN beats everything.
fn take(dt: DType, for_max: bool) -> String {
    let cmp = if for_max { ">" } else { "<" };
    let ordered = format!("b {cmp} a || (b == a && ib < ia)");
    if dt == DType::Float32 {
        format!("(is_nan(b) && (!is_nan(a) || ib < ia)) || (!is_nan(a) && ({ordered}))")
    } else {
        ordered
    }
}

/// max/min along a dim with indices (`values`), or argmax/argmin (indices only).
pub(crate) fn arg_extreme(dt: DType, for_max: bool, values: bool) -> ReduceSpec {
    ReduceSpec {
        compute: dt,
        pre: None,
        fold: Fold {
            acc: dt.wgsl(),
            init: zero(dt).to_string(),
            map: "x".into(),
            combine: Combine::Take(take(dt, for_max)),
        },
        output: if values {
            Output::Value {
                dtype: dt,
                finalize: "acc".into(),
                index: true,
            }
        } else {
            Output::Index
        },
        extras: Vec::new(),
    }
}

/// softmax (or log_softmax, `log`) along rows: the max, the sum of `exp(x - max)`, then every
/// element.
pub(crate) fn softmax(log: bool) -> ReduceSpec {
    ReduceSpec {
        compute: DType::Float32,
        pre: Some(Pre {
            fold: fold("f32", "-f_inf()", "x", "max_f(a, b)"),
            finalize: "acc".into(),
        }),
        fold: f32_sum("exp_(x - pre)"),
        output: Output::Elementwise {
            dtype: DType::Float32,
            expr: if log {
                "x - pre - log_f(acc)".into()
            } else {
                "exp_(x - pre) / acc".into()
            },
        },
        extras: Vec::new(),
    }
}

/// cumsum (or cumprod, `product`) over elements of `dt`: ints and bools accumulate to int64.
pub(crate) fn scan_spec(dt: DType, product: bool) -> ScanSpec {
    let compute = accumulating(dt);
    let one = if product { "1" } else { "0" };
    ScanSpec {
        compute,
        identity: if compute == DType::Float32 {
            format!("{one}.0")
        } else {
            one.to_string()
        },
        combine: if product { "a * b" } else { "a + b" }.to_string(),
    }
}

const DTYPES: [DType; 3] = [DType::Float32, DType::Int64, DType::Bool];

/// Every reduction and scan kernel these specs generate, named, for validation by naga.
pub(crate) fn kernel_sources() -> Vec<(String, String)> {
    let mut specs: Vec<(String, ReduceSpec, Vec<DType>)> = Vec::new();
    for dt in DTYPES {
        let n = dt.name();
        for product in [false, true] {
            specs.push((format!("sum|{product}|{n}"), sum(dt, product), vec![dt]));
        }
        for for_max in [false, true] {
            specs.push((
                format!("extreme|{for_max}|{n}"),
                extreme(dt, for_max),
                vec![dt],
            ));
            for values in [false, true] {
                let spec = arg_extreme(dt, for_max, values);
                specs.push((format!("arg|{for_max}|{values}|{n}"), spec, vec![dt]));
            }
        }
        for every in [false, true] {
            specs.push((format!("truth|{every}|{n}"), truth(dt, every), vec![dt]));
        }
    }
    let f = vec![DType::Float32];
    specs.push(("mean".into(), mean(), f.clone()));
    specs.push(("logsumexp".into(), logsumexp(), DTYPES.to_vec()));
    specs.push(("lse_shifted".into(), log_sum_exp_shifted(), f.clone()));
    for p in [f64::INFINITY, f64::NEG_INFINITY, 0.0, 1.0, 2.0, 3.0] {
        specs.push((format!("norm|{p}"), norm(p), f.clone()));
    }
    for root in [false, true] {
        specs.push((format!("moment|{root}"), moment(1.0, root), f.clone()));
        let squares = moment_of_squares(1.0, root);
        specs.push((format!("moment_sq|{root}"), squares, f.clone()));
    }
    for log in [false, true] {
        specs.push((format!("softmax|{log}"), softmax(log), f.clone()));
    }
    let mut out = Vec::new();
    for (name, spec, inputs) in &specs {
        let splits = spec.pre.is_none() && !matches!(spec.output, Output::Elementwise { .. });
        for &input in inputs {
            for wg in [false, true] {
                let tag = format!("reduce|{name}|{}|{wg}", input.name());
                out.push((tag.clone(), source(spec, input, wg, Stage::Whole)));
                if splits {
                    let acc = crate::kernels::reduce::acc_dtype(spec.fold.acc);
                    out.push((
                        format!("{tag}|partial"),
                        source(spec, input, true, Stage::Partial),
                    ));
                    out.push((format!("{tag}|final"), source(spec, acc, wg, Stage::Final)));
                }
            }
        }
    }
    for dt in DTYPES {
        for product in [false, true] {
            for wg in [false, true] {
                let tag = format!("scan|{}|{product}|{wg}", dt.name());
                out.push((tag, scan::source(&scan_spec(dt, product), dt, wg)));
            }
        }
    }
    out
}
