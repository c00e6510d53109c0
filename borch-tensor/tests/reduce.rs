//! Reductions, softmax and scans against values from real torch (reduce/expected.rs, written by
//! reduce/expected.py from the same inputs), on contiguous, transposed, stepped and expanded
//! inputs, both the thread-per-row and workgroup-per-row paths, and torch's edge cases.

#[path = "reduce/expected.rs"]
mod expected;

use borch_tensor::{BorchError, DType, ErrorKind, Result, Tensor, arange, zeros};
use expected::*;

struct In {
    x: Tensor,
    t: Tensor,
    s: Tensor,
    e: Tensor,
    c: Tensor,
    i: Tensor,
    b: Tensor,
    nan: Tensor,
    big: Tensor,
    bigt: Tensor,
    bigf: Tensor,
    huge: Tensor,
    huge2: Tensor,
    huge2t: Tensor,
}

fn inputs() -> In {
    let x = Tensor::new([
        [0.5f32, -1.25, 3.0, 2.0],
        [7.0, -0.5, 1.5, -3.0],
        [2.25, 4.0, -2.0, 0.75],
    ])
    .unwrap();
    let big_values: Vec<f32> = (0..5000)
        .map(|i| (((i * 37) % 101) as f32 - 50.0) / 8.0)
        .collect();
    let big = Tensor::from_slice(&big_values, &[50, 100]).unwrap();
    let huge_values: Vec<f32> = (0..100_000)
        .map(|i| (((i * 53) % 211) as f32 - 105.0) / 16.0)
        .collect();
    let huge = Tensor::from_slice(&huge_values, &[100_000]).unwrap();
    let huge2 = huge
        .narrow(0, 0, 80_000)
        .unwrap()
        .reshape(&[2, 40_000])
        .unwrap();
    In {
        huge2t: huge2.t().unwrap(),
        huge2,
        huge,
        t: x.t().unwrap(),
        s: x.slice(1, Some(0), None, 2).unwrap(),
        e: Tensor::new([1.5f32, -2.0, 3.0])
            .unwrap()
            .expand(&[4, 3])
            .unwrap(),
        c: arange(0.0, 24.0, 1.0)
            .unwrap()
            .reshape(&[2, 3, 4])
            .unwrap()
            .mul(0.25)
            .unwrap()
            .sub(2.0)
            .unwrap(),
        i: Tensor::new([[3i64, -1, 4], [1, -5, 9]]).unwrap(),
        b: Tensor::new([[true, false, true], [true, true, true]]).unwrap(),
        nan: Tensor::new([1.0f32, f32::NAN, 3.0, f32::NAN]).unwrap(),
        bigt: big.t().unwrap(),
        bigf: big.reshape(&[5000]).unwrap(),
        big,
        x,
    }
}

fn close(got: f32, want: f32) -> bool {
    (got.is_nan() && want.is_nan()) || got == want || (got - want).abs() <= 1e-4 + 1e-4 * want.abs()
}

#[track_caller]
fn check_f(t: Result<Tensor>, e: &Exp<f32>) {
    let t = t.unwrap();
    assert_eq!(t.dtype(), DType::Float32);
    assert_eq!(t.shape(), e.shape);
    let got = t.to_vec_blocking::<f32>().unwrap();
    let bad: Vec<_> = got
        .iter()
        .zip(e.data)
        .enumerate()
        .filter(|(_, (g, w))| !close(**g, **w))
        .collect();
    assert!(bad.is_empty(), "(index, (got, want)): {bad:?}");
}

#[track_caller]
fn check_i(t: Result<Tensor>, e: &Exp<i64>) {
    let t = t.unwrap();
    assert_eq!(t.dtype(), DType::Int64);
    assert_eq!(t.shape(), e.shape);
    assert_eq!(t.to_vec_blocking::<i64>().unwrap(), e.data);
}

#[track_caller]
fn check_b(t: Result<Tensor>, e: &Exp<bool>) {
    let t = t.unwrap();
    assert_eq!(t.dtype(), DType::Bool);
    assert_eq!(t.shape(), e.shape);
    assert_eq!(t.to_vec_blocking::<bool>().unwrap(), e.data);
}

#[track_caller]
fn check_pair_f(r: Result<(Tensor, Tensor)>, v: &Exp<f32>, i: &Exp<i64>) {
    let (values, indices) = r.unwrap();
    check_f(Ok(values), v);
    check_i(Ok(indices), i);
}

#[track_caller]
fn check_err<T: std::fmt::Debug>(r: Result<T>, kind: ErrorKind, message: &str) {
    let e: BorchError = r.unwrap_err();
    assert_eq!(e.to_string(), message);
    assert_eq!(e.kind(), kind);
}

/// Every 97th element of the flattened tensor (as `.flatten()[::97]` in expected.py).
fn every97(t: Result<Tensor>) -> Result<Tensor> {
    t?.flatten(0, -1)?.slice(0, None, None, 97)
}

#[test]
fn sum_mean_prod() {
    let n = inputs();
    check_f(n.x.sum(None, false), &X_SUM);
    check_f(n.x.sum(Some(&[1]), false), &X_SUM_1);
    check_f(n.x.sum(Some(&[0]), true), &X_SUM_0_KEEP);
    check_f(n.t.sum(Some(&[0]), false), &T_SUM_0);
    check_f(n.s.sum(Some(&[1]), false), &S_SUM_1);
    check_f(n.e.sum(Some(&[0]), false), &E_SUM_0);
    check_f(n.c.sum(Some(&[0, 2]), false), &C_SUM_0_2);
    check_f(n.c.sum(Some(&[-1]), true), &C_SUM_M1_KEEP);
    check_f(n.x.sum(Some(&[]), false), &X_SUM);
    check_i(n.i.sum(None, false), &I_SUM);
    check_i(n.i.sum(Some(&[0]), false), &I_SUM_0);
    check_i(n.b.sum(None, false), &B_SUM);
    check_i(n.b.sum(Some(&[1]), false), &B_SUM_1);
    check_f(n.x.mean(Some(&[1]), false), &X_MEAN_1);
    check_f(n.t.mean(None, false), &T_MEAN);
    check_f(n.c.mean(Some(&[0, 2]), false), &C_MEAN_0_2);
    check_f(n.e.mean(Some(&[1]), true), &E_MEAN_1_KEEP);
    check_f(n.x.prod(Some(0), false), &X_PROD_0);
    check_i(n.i.prod(Some(1), false), &I_PROD_1);
    check_i(n.b.prod(None, false), &B_PROD);
    check_f(n.s.prod(None, false), &S_PROD);
}

#[test]
fn extremes() {
    let n = inputs();
    check_f(n.x.amax(Some(&[0]), false), &X_AMAX_0);
    check_f(n.t.amax(Some(&[1]), true), &T_AMAX_1_KEEP);
    check_f(n.c.amin(Some(&[0, 2]), false), &C_AMIN_0_2);
    check_i(n.i.amin(Some(&[1]), false), &I_AMIN_1);
    check_b(n.b.amax(Some(&[1]), false), &B_AMAX_1);
    check_f(n.x.max(), &X_MAX);
    check_f(n.t.min(), &T_MIN);
    check_i(n.i.max(), &I_MAX);
    check_b(n.b.min(), &B_MIN);
    check_f(n.nan.max(), &NAN_MAX);
    check_f(n.nan.amin(Some(&[0]), false), &NAN_AMIN);
    check_pair_f(n.x.max_dim(1, false), &X_MAX_1_V, &X_MAX_1_I);
    check_pair_f(n.t.min_dim(0, false), &T_MIN_0_V, &T_MIN_0_I);
    check_pair_f(n.s.max_dim(0, false), &S_MAX_0_V, &S_MAX_0_I);
    check_pair_f(n.e.max_dim(0, false), &E_MAX_0_V, &E_MAX_0_I);
    check_pair_f(n.c.min_dim(1, true), &C_MIN_1_KEEP_V, &C_MIN_1_KEEP_I);
    check_pair_f(n.nan.max_dim(0, false), &NAN_MAX_0_V, &NAN_MAX_0_I);
    check_pair_f(n.nan.min_dim(0, false), &NAN_MIN_0_V, &NAN_MIN_0_I);
    let (v, i) = n.i.max_dim(0, false).unwrap();
    check_i(Ok(v), &I_MAX_0_V);
    check_i(Ok(i), &I_MAX_0_I);
    let (v, i) = n.b.max_dim(1, false).unwrap();
    check_b(Ok(v), &B_MAX_1_V);
    check_i(Ok(i), &B_MAX_1_I);
    let ties = Tensor::new([3i64, 1, 3, 1]).unwrap();
    let (v, i) = ties.max_dim(0, false).unwrap();
    check_i(Ok(v), &TIES_MAX_V);
    check_i(Ok(i), &TIES_MAX_I);
    let (v, i) = ties.min_dim(0, false).unwrap();
    check_i(Ok(v), &TIES_MIN_V);
    check_i(Ok(i), &TIES_MIN_I);
}

#[test]
fn arg_extremes() {
    let n = inputs();
    check_i(n.x.argmax(None, false), &X_ARGMAX);
    check_i(n.x.argmax(Some(0), false), &X_ARGMAX_0);
    check_i(n.t.argmax(None, false), &T_ARGMAX);
    check_i(n.t.argmin(Some(1), false), &T_ARGMIN_1);
    check_i(n.e.argmin(None, false), &E_ARGMIN);
    check_i(n.c.argmax(Some(-1), true), &C_ARGMAX_M1_KEEP);
    check_i(n.x.argmin(None, true), &X_ARGMIN_KEEP);
    check_i(n.i.argmin(None, false), &I_ARGMIN);
    check_i(n.nan.argmin(None, false), &NAN_ARGMIN);
    let all_nan = Tensor::new([f32::NAN, f32::NAN]).unwrap();
    check_i(all_nan.argmax(None, false), &ALLNAN_ARGMAX);
}

#[test]
fn all_any() {
    let n = inputs();
    check_b(n.x.all(None, false), &X_ALL);
    check_b(n.i.sub(1).unwrap().any(Some(&[1]), false), &I_ANY_1);
    check_b(n.b.all(Some(&[1]), false), &B_ALL_1);
    check_b(n.b.any(Some(&[0]), true), &B_ANY_0_KEEP);
    let zn = Tensor::new([[0.0f32, f32::NAN], [1.0, 2.0]]).unwrap();
    check_b(zn.all(Some(&[0]), false), &ZN_ALL_0);
    let zn = Tensor::new([[0.0f32, f32::NAN], [0.0, 0.0]]).unwrap();
    check_b(zn.any(Some(&[1]), false), &ZN_ANY_1);
    check_b(n.i.all(Some(&[]), false), &I_ALL_NONE_REDUCED);
}

#[test]
fn logsumexp_and_norm() {
    let n = inputs();
    check_f(n.x.logsumexp(&[1], false), &X_LSE_1);
    check_f(n.t.logsumexp(&[0], false), &T_LSE_0);
    check_f(n.c.logsumexp(&[0, 2], true), &C_LSE_0_2_KEEP);
    check_f(n.i.logsumexp(&[0], false), &I_LSE_0);
    let big_values = Tensor::new([1000.0f32, 1000.0, 999.0]).unwrap();
    check_f(big_values.logsumexp(&[0], false), &BIGVAL_LSE);
    let inf = f32::INFINITY;
    let special = Tensor::new([[inf, 1.0], [-inf, -inf], [f32::NAN, 1.0]]).unwrap();
    check_f(special.logsumexp(&[1], false), &INF_LSE);
    check_f(n.x.norm(2.0, None, false), &X_NORM);
    check_f(n.x.norm(1.0, Some(&[1]), false), &X_NORM1_1);
    check_f(n.x.norm(f64::INFINITY, Some(&[0]), false), &X_NORMINF_0);
    check_f(n.x.norm(f64::NEG_INFINITY, None, false), &X_NORMNINF);
    let zeros_in = Tensor::new([[0.0f32, f32::NAN, 1.0], [0.0, -2.0, 0.0]]).unwrap();
    check_f(zeros_in.norm(0.0, Some(&[1]), false), &NORM0_1);
    check_f(n.x.norm(3.0, Some(&[1]), true), &X_NORM3_1_KEEP);
    check_f(n.t.norm(2.0, Some(&[0]), false), &T_NORM_0);
    check_f(n.c.norm(2.0, Some(&[-1, 0]), false), &C_NORM_M1_0);
}

#[test]
fn var_std() {
    let n = inputs();
    check_f(n.x.var(None, 1.0, false), &X_VAR);
    check_f(n.x.var(Some(&[1]), 0.0, false), &X_VAR_1_C0);
    check_f(n.t.var(Some(&[0]), 1.0, false), &T_VAR_0);
    check_f(n.c.var(Some(&[0, 2]), 1.0, false), &C_VAR_0_2);
    check_f(n.x.std(Some(&[0]), 1.0, true), &X_STD_0_KEEP);
    check_f(n.s.std(None, 2.0, false), &S_STD_C2);
    let two = Tensor::new([1.0f32, 2.0]).unwrap();
    check_f(two.var(None, 2.0, false), &VAR_DOF_INF);
    let same = Tensor::new([1.0f32, 1.0]).unwrap();
    check_f(same.var(None, 5.0, false), &VAR_DOF_NAN);
}

#[test]
fn softmax_log_softmax() {
    let n = inputs();
    check_f(n.x.softmax(1), &X_SOFTMAX_1);
    check_f(n.x.softmax(0), &X_SOFTMAX_0);
    check_f(n.t.softmax(1), &T_SOFTMAX_1);
    check_f(n.c.softmax(1), &C_SOFTMAX_1);
    check_f(n.e.log_softmax(0), &E_LOG_SOFTMAX_0);
    check_f(n.x.log_softmax(-1), &X_LOG_SOFTMAX_M1);
    let big_values = Tensor::new([1000.0f32, 1000.0, 999.0]).unwrap();
    check_f(big_values.softmax(0), &BIGVAL_SOFTMAX);
    check_f(big_values.log_softmax(0), &BIGVAL_LOG_SOFTMAX);
    let inf = f32::INFINITY;
    let special = Tensor::new([[inf, 1.0], [-inf, -inf], [f32::NAN, 1.0], [-inf, 0.0]]).unwrap();
    check_f(special.softmax(1), &SPECIAL_SOFTMAX);
    check_f(special.log_softmax(1), &SPECIAL_LOG_SOFTMAX);
}

#[test]
fn scans() {
    let n = inputs();
    check_f(n.x.cumsum(1), &X_CUMSUM_1);
    check_f(n.t.cumsum(0), &T_CUMSUM_0);
    check_f(n.s.cumprod(0), &S_CUMPROD_0);
    check_i(n.i.cumsum(1), &I_CUMSUM_1);
    check_i(n.i.cumprod(0), &I_CUMPROD_0);
    check_i(n.b.cumsum(0), &B_CUMSUM_0);
    check_f(n.c.cumsum(1), &C_CUMSUM_1);
    check_f(n.e.cumprod(0), &E_CUMPROD_0);
    check_f(n.nan.cumsum(0), &NAN_CUMSUM);
}

/// 5000 elements: rows longer than 64 go through one workgroup each, shorter ones one thread.
#[test]
fn many_workgroups() {
    let n = inputs();
    check_f(n.big.sum(None, false), &BIG_SUM);
    check_f(n.big.sum(Some(&[1]), false), &BIG_SUM_1);
    check_f(n.big.mean(Some(&[0]), false), &BIG_MEAN_0);
    check_f(n.bigt.amax(Some(&[0]), false), &BIGT_AMAX_0);
    check_i(n.big.argmax(None, false), &BIG_ARGMAX);
    check_i(n.bigt.argmin(None, false), &BIGT_ARGMIN);
    check_pair_f(n.big.max_dim(1, false), &BIG_MAX_1_V, &BIG_MAX_1_I);
    check_pair_f(n.bigt.min_dim(0, false), &BIGT_MIN_0_V, &BIGT_MIN_0_I);
    check_f(n.big.var(Some(&[1]), 1.0, false), &BIG_VAR_1);
    check_f(n.bigt.std(None, 1.0, false), &BIGT_STD);
    check_f(n.big.logsumexp(&[0, 1], false), &BIG_LSE);
    check_f(n.big.norm(2.0, None, false), &BIG_NORM);
    check_f(n.bigt.norm(1.0, Some(&[0]), false), &BIGT_NORM1_0);
    check_f(every97(n.big.softmax(1)), &BIG_SOFTMAX_1);
    check_f(every97(n.bigt.log_softmax(0)), &BIGT_LOG_SOFTMAX_0);
    check_f(every97(n.bigf.softmax(0)), &BIGF_SOFTMAX);
    check_f(every97(n.bigf.cumsum(0)), &BIGF_CUMSUM);
    check_f(every97(n.bigt.cumsum(0)), &BIGT_CUMSUM_0);
    check_b(n.bigf.gt(6.2).unwrap().any(None, false), &BIGF_ANY);
    check_b(n.bigf.gt(-6.3).unwrap().all(None, false), &BIGF_ALL);
    check_f(
        n.bigf
            .div(64.0)
            .unwrap()
            .add(1.0)
            .unwrap()
            .prod(None, false),
        &BIGF_PROD,
    );
}

/// 100000 elements: few rows this long are cut into chunks, each reduced by its own workgroup.
#[test]
fn split_rows() {
    let n = inputs();
    check_f(n.huge.sum(None, false), &HUGE_SUM);
    check_f(n.huge.mean(None, false), &HUGE_MEAN);
    check_f(n.huge.amax(None, false), &HUGE_AMAX);
    check_i(n.huge.argmax(None, false), &HUGE_ARGMAX);
    check_i(n.huge.argmin(None, false), &HUGE_ARGMIN);
    let late = arange(0, 100_000, 1)
        .unwrap()
        .ge(77_777)
        .unwrap()
        .mul(0.01)
        .unwrap();
    check_i(
        n.huge.add(&late).unwrap().argmax(None, false),
        &HUGE_LATE_ARGMAX,
    );
    let early = arange(0, 100_000, 1)
        .unwrap()
        .lt(33_333)
        .unwrap()
        .mul(0.01)
        .unwrap();
    check_pair_f(
        n.huge.sub(&early).unwrap().max_dim(0, false),
        &HUGE_LATE_MAX_0_V,
        &HUGE_LATE_MAX_0_I,
    );
    check_pair_f(n.huge2.max_dim(1, false), &HUGE2_MAX_1_V, &HUGE2_MAX_1_I);
    check_pair_f(n.huge2t.min_dim(0, false), &HUGE2T_MIN_0_V, &HUGE2T_MIN_0_I);
    check_i(n.huge2t.argmax(Some(0), true), &HUGE2T_ARGMAX_0_KEEP);
    check_f(n.huge.norm(2.0, None, false), &HUGE_NORM);
    check_f(
        n.huge2t.norm(f64::INFINITY, Some(&[0]), false),
        &HUGE2T_NORMINF_0,
    );
    check_f(n.huge2.var(Some(&[1]), 1.0, false), &HUGE2_VAR_1);
    check_f(n.huge.std(None, 0.0, false), &HUGE_STD);
    check_f(n.huge.logsumexp(&[0], false), &HUGE_LSE);
    check_f(n.huge2t.logsumexp(&[0], true), &HUGE2T_LSE_0_KEEP);
    check_b(n.huge.gt(-6.5).unwrap().all(None, false), &HUGE_ALL);
    check_b(n.huge.gt(6.5).unwrap().any(None, false), &HUGE_ANY);
    let ints = arange(0, 100_000, 1).unwrap().remainder(1000).unwrap();
    check_i(ints.sum(None, false), &HUGEI_SUM);
    check_f(
        n.huge
            .div(2000.0)
            .unwrap()
            .add(1.0)
            .unwrap()
            .prod(None, false),
        &HUGE_PROD,
    );
}

fn vals(t: Result<Tensor>) -> (Vec<usize>, Vec<f32>) {
    let t = t.unwrap();
    (t.shape().to_vec(), t.to_vec_blocking::<f32>().unwrap())
}

/// Empty and 0-d inputs; values checked with torch 2.15 by hand (python3 -c "...").
#[test]
fn empty_and_zero_dim() {
    let e = zeros(&[0], DType::Float32).unwrap();
    assert_eq!(vals(e.sum(None, false)), (vec![], vec![0.0]));
    assert_eq!(vals(e.prod(None, false)), (vec![], vec![1.0]));
    assert!(vals(e.mean(None, false)).1[0].is_nan());
    assert!(vals(e.var(None, 1.0, false)).1[0].is_nan());
    assert_eq!(vals(e.norm(2.0, None, false)), (vec![], vec![0.0]));
    assert_eq!(
        vals(e.logsumexp(&[0], false)),
        (vec![], vec![f32::NEG_INFINITY])
    );
    assert_eq!(
        e.all(None, false)
            .unwrap()
            .to_vec_blocking::<bool>()
            .unwrap(),
        vec![true]
    );
    assert_eq!(
        e.any(None, false)
            .unwrap()
            .to_vec_blocking::<bool>()
            .unwrap(),
        vec![false]
    );
    assert_eq!(vals(e.softmax(0)), (vec![0], vec![]));
    assert_eq!(vals(e.cumsum(0)), (vec![0], vec![]));

    let e30 = zeros(&[3, 0], DType::Float32).unwrap();
    assert_eq!(vals(e30.sum(Some(&[1]), false)), (vec![3], vec![0.0; 3]));
    let (shape, m) = vals(e30.mean(Some(&[1]), true));
    assert_eq!(shape, vec![3, 1]);
    assert!(m.iter().all(|v| v.is_nan()));
    assert_eq!(vals(e30.amax(Some(&[0]), false)), (vec![0], vec![]));
    let (v, i) = e30.max_dim(0, false).unwrap();
    assert_eq!(
        (v.shape(), i.shape(), i.dtype()),
        (&[0][..], &[0][..], DType::Int64)
    );
    assert_eq!(
        vals(e30.norm(f64::INFINITY, Some(&[0]), false)),
        (vec![0], vec![])
    );
    let ei = zeros(&[3, 0], DType::Int64).unwrap();
    assert_eq!(ei.softmax(0).unwrap().dtype(), DType::Int64);

    let z = Tensor::new(3.0f32).unwrap();
    assert_eq!(vals(z.sum(None, false)), (vec![], vec![3.0]));
    assert_eq!(vals(z.sum(Some(&[0]), true)), (vec![], vec![3.0]));
    assert_eq!(vals(z.amax(Some(&[]), false)), (vec![], vec![3.0]));
    let (v, i) = z.max_dim(-1, true).unwrap();
    assert_eq!(
        (v.shape(), v.to_vec_blocking::<f32>().unwrap()),
        (&[][..], vec![3.0])
    );
    assert_eq!(i.to_vec_blocking::<i64>().unwrap(), vec![0]);
    assert_eq!(
        z.argmax(None, false)
            .unwrap()
            .to_vec_blocking::<i64>()
            .unwrap(),
        vec![0]
    );
    assert!(vals(z.var(None, 1.0, false)).1[0].is_nan());
    assert_eq!(vals(z.var(Some(&[0]), 0.0, false)), (vec![], vec![0.0]));
    assert_eq!(vals(z.softmax(0)), (vec![], vec![1.0]));
    assert_eq!(vals(z.log_softmax(-1)), (vec![], vec![0.0]));
    assert_eq!(vals(z.cumsum(0)), (vec![], vec![3.0]));
    assert_eq!(vals(z.logsumexp(&[0], false)), (vec![], vec![3.0]));
    assert_eq!(vals(z.norm(1.0, None, false)), (vec![], vec![3.0]));
    let zb = Tensor::new(true).unwrap();
    let c = zb.cumsum(0).unwrap();
    assert_eq!(
        (c.dtype(), c.to_vec_blocking::<i64>().unwrap()),
        (DType::Int64, vec![1])
    );
}

/// torch's errors, word for word (checked with torch 2.15).
#[test]
fn errors() {
    let n = inputs();
    use ErrorKind::{Index, NotImplemented, Runtime};
    check_err(
        n.i.mean(None, false),
        NotImplemented,
        "mean(): could not infer output dtype. Input dtype must be either a floating point or \
         complex dtype. Got: Long",
    );
    check_err(
        n.b.mean(None, false),
        NotImplemented,
        "mean(): could not infer output dtype. Input dtype must be either a floating point or \
         complex dtype. Got: Bool",
    );
    check_err(
        n.i.var(None, 1.0, false),
        NotImplemented,
        "std and var only support floating point and complex dtypes",
    );
    check_err(
        n.i.norm(2.0, None, false),
        NotImplemented,
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
    );
    check_err(
        n.i.softmax(0),
        NotImplemented,
        "\"softmax_kernel_impl\" not implemented for 'Long'",
    );
    check_err(
        n.i.softmax(-1),
        NotImplemented,
        "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'",
    );
    check_err(
        n.b.log_softmax(1),
        NotImplemented,
        "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Bool'",
    );
    check_err(
        n.b.argmax(None, false),
        NotImplemented,
        "argmax(): does not support bool input",
    );
    check_err(
        n.x.sum(Some(&[0, -2]), false),
        Runtime,
        "dim 0 appears multiple times in the list of dims",
    );
    check_err(
        n.x.max_dim(2, false),
        Index,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    );
    check_err(
        n.x.cumsum(-3),
        Index,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
    );
    let z = Tensor::new(3.0f32).unwrap();
    check_err(
        z.sum(Some(&[1]), false),
        Index,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    );
    let e = zeros(&[0], DType::Float32).unwrap();
    check_err(
        e.max(),
        Runtime,
        "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the \
         reduction dim with the 'dim' argument.",
    );
    check_err(
        e.amin(Some(&[]), false),
        Runtime,
        "amin(): Expected reduction dim to be specified for input.numel() == 0. Specify the \
         reduction dim with the 'dim' argument.",
    );
    check_err(
        e.argmax(None, false),
        Index,
        "argmax(): Expected reduction dim to be specified for input.numel() == 0.",
    );
    check_err(
        e.norm(f64::INFINITY, None, false),
        Runtime,
        "linalg.vector_norm cannot compute the inf norm on an empty tensor because the \
         operation does not have an identity",
    );
    let e30 = zeros(&[3, 0], DType::Float32).unwrap();
    check_err(
        e30.amax(Some(&[0, -1]), false),
        Index,
        "amax(): Expected reduction dim -1 to have non-zero size.",
    );
    check_err(
        e30.max_dim(-1, false),
        Index,
        "max(): Expected reduction dim 1 to have non-zero size.",
    );
    check_err(
        e30.argmin(Some(1), false),
        Index,
        "argmin(): Expected reduction dim 1 to have non-zero size.",
    );
    check_err(
        e30.norm(-1.0, Some(&[1]), false),
        Runtime,
        "linalg.vector_norm cannot compute the -1 norm on the dimension 1because this \
         dimension is empty and the operation does not have an identity",
    );
}
