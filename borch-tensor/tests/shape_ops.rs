//! Shape and indexing ops. Expected values and error messages were obtained by running the same
//! calls in real torch 2.x (CPU); where torch leaves an order unspecified, the comment says so.

use std::sync::{Mutex, MutexGuard};

use borch_tensor::{
    BorchError, DType, Result, Tensor, arange, cat, check_index_errors, default_device, stack,
    zeros,
};

/// Index errors are reported device-wide at the next readback, so tests that read back must not
/// interleave with one that expects such an error.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn a() -> Tensor {
    arange(0.0, 12.0, 1.0).unwrap().view(&[3, 4]).unwrap()
}
/// `a.t()`: [4, 3], not contiguous.
fn at() -> Tensor {
    a().t().unwrap()
}
/// `a[:, ::2]`: [3, 2], stepped.
fn stepped() -> Tensor {
    a().slice(1, None, None, 2).unwrap()
}
fn f(t: &Tensor) -> Vec<f32> {
    t.to_vec_blocking::<f32>().unwrap()
}
fn i(t: &Tensor) -> Vec<i64> {
    t.to_vec_blocking::<i64>().unwrap()
}
fn ints(v: &[i64], shape: &[usize]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}
fn err<T: std::fmt::Debug>(r: Result<T>) -> String {
    r.unwrap_err().to_string()
}
/// Equal bit for bit (so -0.0 differs from 0.0), any NaN equal to any NaN.
fn same(got: &[f32], want: &[f32]) {
    let ok = got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits());
    assert!(ok, "got {got:?}, want {want:?}");
}
const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

#[test]
fn cat_and_stack() {
    let _g = serial();
    let r = cat(&[a(), a().narrow(0, 1, 1).unwrap()], 0).unwrap();
    assert_eq!(r.shape(), &[4, 4]);
    assert_eq!(f(&r)[12..], [4., 5., 6., 7.]);
    // a transposed input, and int64 promoted to float32
    let r = cat(&[at(), arange(0, 4, 1).unwrap().view(&[4, 1]).unwrap()], 1).unwrap();
    assert_eq!((r.shape(), r.dtype()), (&[4usize, 4][..], DType::Float32));
    let want = [
        0., 4., 8., 0., 1., 5., 9., 1., 2., 6., 10., 2., 3., 7., 11., 3.,
    ];
    assert_eq!(f(&r), want);
    // 1-D empty tensors are skipped (and still take part in promotion), negative dim
    let e_f = zeros(&[0], DType::Float32).unwrap();
    let e_i = zeros(&[0], DType::Int64).unwrap();
    let s10 = stepped().mul(10).unwrap();
    let r = cat(&[&e_f, &stepped(), &e_i, &s10], -1).unwrap();
    assert_eq!(r.shape(), &[3, 4]);
    let want = [0., 2., 0., 20., 4., 6., 40., 60., 8., 10., 80., 100.];
    assert_eq!(f(&r), want);
    let r = cat(
        &[
            Tensor::new([true, false]).unwrap(),
            Tensor::new([5i64]).unwrap(),
        ],
        0,
    )
    .unwrap();
    assert_eq!((r.dtype(), i(&r)), (DType::Int64, vec![1, 0, 5]));
    let r = cat(&[&e_f, &e_i], 5).unwrap();
    assert_eq!((r.shape(), r.dtype()), (&[0usize][..], DType::Float32));
    let r = cat(
        &[
            zeros(&[2, 0], DType::Float32).unwrap(),
            zeros(&[3, 0], DType::Float32).unwrap(),
        ],
        0,
    )
    .unwrap();
    assert_eq!(r.shape(), &[5, 0]);

    let none: [Tensor; 0] = [];
    let e = cat(&none, 0).unwrap_err();
    assert!(matches!(e, BorchError::Value(_)));
    assert_eq!(
        e.to_string(),
        "torch.cat(): expected a non-empty list of Tensors"
    );
    let scalar = Tensor::new(1.0f32).unwrap();
    assert_eq!(
        err(cat(&[&e_f, &scalar], 0)),
        "zero-dimensional tensor (at position 1) cannot be concatenated"
    );
    assert_eq!(
        err(cat(
            &[a(), e_f.clone(), zeros(&[2, 2], DType::Float32).unwrap()],
            0
        )),
        "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 2 for \
         tensor number 2 in the list."
    );
    assert_eq!(
        err(cat(&[a(), zeros(&[3], DType::Float32).unwrap()], 0)),
        "Tensors must have same number of dimensions: got 2 and 1"
    );
    assert_eq!(
        err(cat(&[a(), a()], 2)),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );

    let r = stack(&[stepped(), stepped().add(100).unwrap()], 1).unwrap();
    assert_eq!(r.shape(), &[3, 2, 2]);
    let want = [0., 2., 100., 102., 4., 6., 104., 106., 8., 10., 108., 110.];
    assert_eq!(f(&r), want);
    let r = stack(&[stepped(), stepped().add(100).unwrap()], -1).unwrap();
    let want = [0., 100., 2., 102., 4., 104., 6., 106., 8., 108., 10., 110.];
    assert_eq!(f(&r), want);
    let r = stack(
        &[Tensor::new(1.0f32).unwrap(), Tensor::new(2i64).unwrap()],
        0,
    )
    .unwrap();
    assert_eq!((r.dtype(), f(&r)), (DType::Float32, vec![1., 2.]));
    assert_eq!(err(stack(&none, 0)), "stack expects a non-empty TensorList");
    assert_eq!(
        err(stack(&[a(), at()], 0)),
        "stack expects each tensor to be equal size, but got [3, 4] at entry 0 and [4, 3] at entry 1"
    );
    assert_eq!(
        err(stack(&[a(), a()], 3)),
        "Dimension out of range (expected to be in range of [-3, 2], but got 3)"
    );
}

#[test]
fn split_chunk_unbind_are_views() {
    let _g = serial();
    let x = at();
    let parts = x.chunk(3, 0).unwrap();
    assert_eq!(parts.len(), 2);
    assert!(parts.iter().all(|p| p.shares_storage(&x)));
    assert_eq!(f(&parts[0]), [0., 4., 8., 1., 5., 9.]);
    assert_eq!(f(&parts[1]), [2., 6., 10., 3., 7., 11.]);
    let parts = x.split_with_sizes(&[1, 2], -1).unwrap();
    assert_eq!(f(&parts[0]), [0., 1., 2., 3.]);
    assert_eq!(f(&parts[1]), [4., 8., 5., 9., 6., 10., 7., 11.]);
    let parts = arange(0, 5, 1).unwrap().split(2, 0).unwrap();
    let got: Vec<Vec<i64>> = parts.iter().map(i).collect();
    assert_eq!(got, vec![vec![0, 1], vec![2, 3], vec![4]]);
    let parts = arange(0, 5, 1).unwrap().chunk(4, 0).unwrap();
    assert_eq!(
        parts.iter().map(|p| p.numel()).collect::<Vec<_>>(),
        [2, 2, 1]
    );
    let rows = x.unbind(-1).unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows[1].shares_storage(&x));
    assert_eq!(f(&rows[1]), [4., 5., 6., 7.]);
    // empty tensors
    let e = zeros(&[0, 3], DType::Float32).unwrap();
    assert_eq!(e.chunk(2, 0).unwrap().len(), 2);
    assert_eq!(e.split(0, 0).unwrap().len(), 1);
    assert!(e.unbind(0).unwrap().is_empty());

    assert_eq!(
        err(a().split(0, 1)),
        "split_size can only be 0 if dimension size is 0, but got dimension size of 4"
    );
    assert_eq!(
        err(a().split_with_sizes(&[1, 1], -1)),
        "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size at \
         dimension -1), but got split_sizes=[1, 1]"
    );
    let scalar = Tensor::new(1.0f32).unwrap();
    assert_eq!(
        err(scalar.split(1, 0)),
        "split expects at least a 1-dimensional tensor"
    );
    assert_eq!(
        err(a().chunk(0, 1)),
        "chunk expects `chunks` to be greater than 0, got: 0"
    );
    let e = scalar.unbind(-1).unwrap_err();
    assert!(matches!(e, BorchError::Index(_)));
    assert_eq!(
        e.to_string(),
        "Dimension specified as 0 but tensor has no dimensions"
    );
}

#[test]
fn flip_roll_repeat_tile() {
    let _g = serial();
    assert_eq!(
        f(&at().flip(&[0, -1]).unwrap()),
        [11., 7., 3., 10., 6., 2., 9., 5., 1., 8., 4., 0.]
    );
    assert_eq!(f(&stepped().flip(&[1]).unwrap()), [2., 0., 6., 4., 10., 8.]);
    assert_eq!(f(&Tensor::new(3.0f32).unwrap().flip(&[0]).unwrap()), [3.]);
    let r = Tensor::new(3.0f32).unwrap().roll(&[1], &[]).unwrap();
    assert_eq!((r.shape(), f(&r)), (&[][..], vec![3.]));
    assert_eq!(
        err(a().flip(&[-1, 1])),
        "dim 1 appears multiple times in the list of dims"
    );

    let r = at().roll(&[1], &[]).unwrap();
    assert_eq!(f(&r), [11., 0., 4., 8., 1., 5., 9., 2., 6., 10., 3., 7.]);
    let r = at().roll(&[1, -1], &[0, 1]).unwrap();
    assert_eq!(f(&r), [7., 11., 3., 4., 8., 0., 5., 9., 1., 6., 10., 2.]);
    assert_eq!(
        f(&stepped().roll(&[-2], &[0]).unwrap()),
        [8., 10., 0., 2., 4., 6.]
    );
    let r = a().roll(&[4], &[1]).unwrap();
    assert!(!r.shares_storage(&a()));
    assert_eq!(f(&r), f(&a()));
    assert_eq!(
        err(a().roll(&[1, 2], &[])),
        "shifts and dimensions must align. shifts: 2, dims:0"
    );
    assert_eq!(err(a().roll(&[], &[])), "`shifts` required");

    let r = stepped().repeat(&[2, 1, 2]).unwrap();
    assert_eq!(r.shape(), &[2, 3, 4]);
    let half = [0., 2., 0., 2., 4., 6., 4., 6., 8., 10., 8., 10.];
    assert_eq!(f(&r), [half, half].concat());
    let expanded = Tensor::new([1.0f32, 2.0]).unwrap().expand(&[2, 2]).unwrap();
    assert_eq!(
        f(&expanded.repeat(&[1, 2]).unwrap()),
        [1., 2., 1., 2., 1., 2., 1., 2.]
    );
    assert_eq!(a().repeat(&[0, 1]).unwrap().shape(), &[0, 4]);
    assert_eq!(
        Tensor::new(3.0f32).unwrap().repeat(&[2]).unwrap().shape(),
        &[2]
    );
    assert_eq!(
        err(a().repeat(&[2])),
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
    );
    let m = ints(&[1, 2, 3, 4], &[2, 2]).t().unwrap();
    assert_eq!(i(&m.tile(&[2]).unwrap()), [1, 3, 1, 3, 2, 4, 2, 4]);
    assert_eq!(a().tile(&[]).unwrap().shape(), &[3, 4]);
}

#[test]
fn gather_index_select_take() {
    let _g = serial();
    let x = at();
    let idx = ints(&[2, 0, 2], &[3]);
    assert_eq!(
        f(&x.index_select(1, &idx).unwrap()),
        [8., 0., 8., 9., 1., 9., 10., 2., 10., 11., 3., 11.]
    );
    assert_eq!(
        f(&x.index_select(-2, &ints(&[3, 0], &[2])).unwrap()),
        [3., 7., 11., 0., 4., 8.]
    );
    let r = x.index_select(1, &ints(&[1], &[])).unwrap();
    assert_eq!((r.shape(), f(&r)), (&[4usize, 1][..], vec![4., 5., 6., 7.]));
    let r = Tensor::new(5.0f32)
        .unwrap()
        .index_select(0, &ints(&[0], &[1]))
        .unwrap();
    assert_eq!((r.shape(), f(&r)), (&[][..], vec![5.]));
    assert_eq!(
        x.index_select(0, &ints(&[], &[0])).unwrap().shape(),
        &[0, 3]
    );

    let ix = ints(&[2, 0, 1, 1, 0, 2, 1, 0], &[4, 2]);
    assert_eq!(
        f(&x.gather(1, &ix).unwrap()),
        [8., 0., 5., 5., 2., 10., 7., 3.]
    );
    assert_eq!(
        f(&x.gather(0, &ints(&[3, 0, 1], &[1, 3])).unwrap()),
        [3., 4., 9.]
    );
    // a transposed index
    let ix_t = ints(&[0, 1, 2, 0, 2, 2, 1, 1], &[2, 4]).t().unwrap();
    assert_eq!(
        f(&x.gather(-1, &ix_t).unwrap()),
        [0., 8., 5., 9., 10., 6., 3., 7.]
    );
    assert_eq!(x.gather(1, &ints(&[], &[3, 0])).unwrap().shape(), &[3, 0]);
    let r = Tensor::new(5.0f32)
        .unwrap()
        .gather(0, &ints(&[0, 0], &[2]))
        .unwrap();
    assert_eq!(f(&r), [5., 5.]);

    let r = x.take(&ints(&[0, -1, 5, 7], &[2, 2])).unwrap();
    assert_eq!(
        (r.shape(), f(&r)),
        (&[2usize, 2][..], vec![0., 11., 9., 6.])
    );
    assert_eq!(
        i(&arange(0, 6, 1).unwrap().take(&ints(&[4], &[])).unwrap()),
        [4]
    );

    assert_eq!(
        err(x.index_select(1, &ints(&[0], &[1, 1]))),
        "index_select(): Index is supposed to be a vector"
    );
    assert_eq!(
        err(x.index_select(1, &Tensor::new([0.0f32]).unwrap())),
        "index_select(): Expected dtype int32 or int64 for index"
    );
    assert_eq!(
        err(x.gather(1, &ints(&[0], &[1]))),
        "Index tensor must have the same number of dimensions as input tensor"
    );
    assert_eq!(
        err(a().gather(0, &ints(&[0, 0, 0, 0, 0], &[1, 5]))),
        "Size does not match at dimension 1 expected index [1, 5] to be no larger than self \
         [3, 4] apart from dimension 0"
    );
    assert_eq!(
        err(x.gather(1, &Tensor::new([[0.0f32]]).unwrap())),
        "gather(): Expected dtype int32/int64 for index"
    );
    assert_eq!(
        err(x.take(&Tensor::new([true]).unwrap())),
        "take(): Expected a long tensor for index, but got Bool"
    );
    assert_eq!(
        err(zeros(&[0], DType::Float32).unwrap().take(&ints(&[0], &[1]))),
        "take(): tried to take from an empty tensor"
    );
}

#[test]
fn scatter_family() {
    let _g = serial();
    let z = zeros(&[3, 5], DType::Float32).unwrap();
    let idx = ints(&[4, 0, 2, 1, 2, 3], &[2, 3]).t().unwrap();
    assert_eq!(
        f(&z.scatter(1, &idx, at()).unwrap()),
        [0., 4., 0., 0., 0., 1., 0., 5., 0., 0., 0., 0., 2., 6., 0.]
    );
    let r = z.scatter(0, &ints(&[2, 1, 0, 1, 2], &[1, 5]), 7.5).unwrap();
    let want = [
        0., 0., 7.5, 0., 0., 0., 7.5, 0., 7.5, 0., 7.5, 0., 0., 0., 7.5,
    ];
    assert_eq!(f(&r), want);
    let zi = zeros(&[2, 3], DType::Int64).unwrap();
    assert_eq!(
        i(&zi.scatter(1, &ints(&[0], &[1, 1]), 2.7).unwrap()),
        [2, 0, 0, 0, 0, 0]
    );
    // in place, into a non-contiguous view
    let base = zeros(&[3, 2], DType::Float32).unwrap();
    base.t()
        .unwrap()
        .scatter_(
            1,
            &ints(&[2, 0], &[2, 1]),
            Tensor::new([[1.0f32], [2.0]]).unwrap(),
        )
        .unwrap();
    assert_eq!(f(&base), [0., 2., 0., 0., 1., 0.]);

    let src = Tensor::new([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]).unwrap();
    let ones = zeros(&[2, 5], DType::Float32).unwrap().add(1).unwrap();
    let r = ones
        .scatter_add(1, &ints(&[0, 0, 4, 1, 1, 1], &[2, 3]), &src)
        .unwrap();
    assert_eq!(f(&r), [4., 1., 1., 1., 4., 1., 16., 1., 1., 1.]);
    let onesi = zeros(&[2, 5], DType::Int64).unwrap().add(1).unwrap();
    let r = onesi
        .scatter_add(
            0,
            &ints(&[1, 1, 0, 0, 1], &[1, 5]),
            &ints(&[10, 20, 30, 40, 50], &[1, 5]),
        )
        .unwrap();
    assert_eq!(i(&r), [1, 1, 31, 41, 1, 11, 21, 1, 1, 51]);
    let zb = zeros(&[2, 3], DType::Bool).unwrap();
    let r = zb
        .scatter_add(1, &ints(&[0], &[1, 1]), &Tensor::new([[true]]).unwrap())
        .unwrap();
    assert_eq!(
        r.to_vec_blocking::<bool>().unwrap(),
        [true, false, false, false, false, false]
    );
    // many collisions on one element
    let many = zeros(&[1], DType::Float32)
        .unwrap()
        .scatter_add(
            0,
            &zeros(&[300], DType::Int64).unwrap(),
            &zeros(&[300], DType::Float32).unwrap().add(0.5).unwrap(),
        )
        .unwrap();
    assert_eq!(f(&many), [150.]);

    let src = arange(0.0, 6.0, 1.0).unwrap().view(&[3, 2]).unwrap();
    let ones32 = zeros(&[3, 2], DType::Float32).unwrap().add(1).unwrap();
    let r = ones32
        .index_add(0, &ints(&[2, 0, 2], &[3]), &src, 2.0)
        .unwrap();
    assert_eq!(f(&r), [5., 7., 1., 1., 9., 13.]);
    let r = zeros(&[4, 3], DType::Float32)
        .unwrap()
        .index_add(1, &ints(&[2, 2, 0], &[3]), &at(), -1.0)
        .unwrap();
    assert_eq!(
        f(&r),
        [-8., 0., -4., -9., 0., -6., -10., 0., -8., -11., 0., -10.]
    );
    let onesi = zeros(&[3, 2], DType::Int64).unwrap().add(1).unwrap();
    let srci = arange(0, 6, 1).unwrap().view(&[3, 2]).unwrap();
    let r = onesi
        .index_add(0, &ints(&[2, 0, 2], &[3]), &srci, 2.5)
        .unwrap();
    assert_eq!(i(&r), [5, 7, 1, 1, 9, 13]);
    // in place into a transposed view
    let base = zeros(&[2, 3], DType::Float32).unwrap();
    base.t()
        .unwrap()
        .index_add_(
            0,
            &ints(&[1], &[1]),
            &Tensor::new([[1.0f32, 2.0]]).unwrap(),
            1.0,
        )
        .unwrap();
    assert_eq!(f(&base), [0., 1., 0., 0., 2., 0.]);
    // an empty index changes nothing
    assert_eq!(
        f(&z.scatter(1, &ints(&[], &[0]), 1.0).unwrap()),
        vec![0.; 15]
    );

    assert_eq!(
        err(z.scatter(1, &ints(&[0], &[1, 1]), &zi)),
        "scatter(): Expected self.dtype to be equal to src.dtype"
    );
    assert_eq!(
        err(z.scatter(1, &ints(&[0], &[1]), 1.0)),
        "Index tensor must have the same number of dimensions as self tensor"
    );
    assert_eq!(
        err(z.scatter(
            1,
            &ints(&[0], &[1, 1]),
            zeros(&[3, 3, 3], DType::Float32).unwrap()
        )),
        "Index tensor must have the same number of dimensions as src tensor"
    );
    assert_eq!(
        err(z.scatter(
            1,
            &ints(&[0; 6], &[1, 6]),
            zeros(&[2, 3], DType::Float32).unwrap()
        )),
        "Expected index [1, 6] to be no larger than self [3, 5] apart from dimension 1 and to be \
         no larger size than src [2, 3]"
    );
    assert_eq!(
        err(z.scatter(1, &ints(&[0; 4], &[4, 1]), 1.0)),
        "Expected index [4, 1] to be no larger than self [3, 5] apart from dimension 1"
    );
    let expanded = zeros(&[3], DType::Float32)
        .unwrap()
        .expand(&[2, 3])
        .unwrap();
    assert_eq!(
        err(expanded.scatter_(1, &ints(&[0], &[1, 1]), 1.0)),
        "unsupported operation: more than one element of the written-to tensor refers to a \
         single memory location. Please clone() the tensor before performing the operation."
    );
    assert_eq!(
        err(ones32.index_add(0, &ints(&[1, 0], &[2]), &src, 1.0)),
        "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), for dim: 0"
    );
    assert_eq!(
        err(ones32.index_add(0, &ints(&[1, 0, 2], &[1, 3]), &src, 1.0)),
        "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and \
         size: [1, 3]"
    );
    assert_eq!(
        err(ones32.index_add(0, &ints(&[1, 0, 2], &[3]), &srci, 1.0)),
        "index_add_(): self (Float) and source (Long) must have the same scalar type"
    );
    assert_eq!(
        err(ones32.index_add(
            0,
            &ints(&[1, 0, 2], &[3]),
            &at().narrow(0, 0, 3).unwrap(),
            1.0
        )),
        "source tensor shape must match self tensor shape, excluding the specified dimension. \
         Got self.shape = [3, 2] source.shape = [3, 3]"
    );
}

#[test]
fn bad_indices_fail_at_the_next_readback() {
    let _g = serial();
    let dev = default_device().unwrap();
    let x = at();
    let r = x.gather(1, &ints(&[3, 0, 0, 0], &[4, 1])).unwrap();
    assert_eq!(
        err(r.to_vec_blocking::<f32>()),
        "index 3 is out of bounds for dimension 1 with size 3 (raised by gather(); index errors are found on the GPU and reported at the next read)"
    );
    // reported once; the next readback works (the bad index was clamped)
    assert_eq!(f(&r), [8., 1., 2., 3.]);

    let _ = x.index_select(0, &ints(&[-1], &[1])).unwrap();
    let e = pollster::block_on(check_index_errors(&dev)).unwrap_err();
    assert!(matches!(e, BorchError::Index(_)));
    assert_eq!(
        e.to_string(),
        "index out of range in self (raised by index_select(); index errors are found on the \
         GPU and reported at the next read)"
    );

    let _ = x.take(&ints(&[-13], &[1])).unwrap();
    assert_eq!(
        err(a().to_vec_blocking::<f32>()),
        "out of range: tried to access index -13 on a tensor of 12 elements. (raised by take(); index errors are found on the GPU and reported at the next read)"
    );

    let z = zeros(&[2, 4], DType::Float32).unwrap();
    let r = z.scatter(1, &ints(&[-1, 0], &[1, 2]), 1.0).unwrap();
    assert_eq!(
        err(r.to_vec_blocking::<f32>()),
        "index -1 is out of bounds for dimension 1 with size 4 (raised by scatter(); index errors are found on the GPU and reported at the next read)"
    );
    // the bad element was skipped, the good one written
    assert_eq!(f(&r), [1., 0., 0., 0., 0., 0., 0., 0.]);
    let r = z
        .index_add(
            0,
            &ints(&[2], &[1]),
            &zeros(&[1, 4], DType::Float32).unwrap(),
            1.0,
        )
        .unwrap();
    assert_eq!(
        err(r.to_vec_blocking::<f32>()),
        "index 2 is out of bounds for dimension 0 with size 2 (raised by index_add(); index errors are found on the GPU and reported at the next read)"
    );

    let _ = ints(&[0, 4, -1], &[3]).one_hot(4).unwrap();
    assert_eq!(
        err(pollster::block_on(check_index_errors(&dev))),
        "Class values must be non-negative. (raised by one_hot(); index errors are found on the \
         GPU and reported at the next read)"
    );
    let _ = ints(&[0, 4], &[2]).one_hot(4).unwrap();
    assert_eq!(
        err(pollster::block_on(check_index_errors(&dev))),
        "Class values must be smaller than num_classes. (raised by one_hot(); index errors are \
         found on the GPU and reported at the next read)"
    );
    // Two failing ops before one read: the first is reported, by its own name.
    let _ = x.index_select(0, &ints(&[9], &[1])).unwrap();
    let _ = ints(&[-1], &[1]).one_hot(2).unwrap();
    let e = err(a().to_vec_blocking::<f32>());
    assert!(
        e.starts_with("index out of range in self (raised by index_select()"),
        "{e}"
    );
    pollster::block_on(check_index_errors(&dev)).unwrap();
}

#[test]
fn tril_triu_one_hot() {
    let _g = serial();
    let x = at();
    assert_eq!(
        f(&x.tril(0).unwrap()),
        [0., 0., 0., 1., 5., 0., 2., 6., 10., 3., 7., 11.]
    );
    assert_eq!(
        f(&x.triu(1).unwrap()),
        [0., 4., 8., 0., 0., 9., 0., 0., 0., 0., 0., 0.]
    );
    assert_eq!(
        f(&x.tril(-1).unwrap()),
        [0., 0., 0., 1., 0., 0., 2., 6., 0., 3., 7., 11.]
    );
    let b = arange(0.0, 24.0, 1.0)
        .unwrap()
        .view(&[2, 3, 4])
        .unwrap()
        .transpose(1, 2)
        .unwrap();
    let want = [
        0., 4., 8., 1., 5., 9., 0., 6., 10., 0., 0., 11., 12., 16., 20., 13., 17., 21., 0., 18.,
        22., 0., 0., 23.,
    ];
    assert_eq!(f(&b.triu(-1).unwrap()), want);
    let m = Tensor::new([[true, true], [true, true]])
        .unwrap()
        .tril(0)
        .unwrap();
    assert_eq!(
        m.to_vec_blocking::<bool>().unwrap(),
        [true, false, true, true]
    );
    assert_eq!(
        zeros(&[0, 3], DType::Float32)
            .unwrap()
            .triu(0)
            .unwrap()
            .shape(),
        &[0, 3]
    );
    assert_eq!(
        err(arange(0, 3, 1).unwrap().tril(0)),
        "tril: input tensor must have at least 2 dimensions"
    );

    let idx = ints(&[1, 0, 2, 1], &[2, 2]).t().unwrap();
    let r = idx.one_hot(3).unwrap();
    assert_eq!((r.shape(), r.dtype()), (&[2usize, 2, 3][..], DType::Int64));
    assert_eq!(i(&r), [0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0]);
    let r = ints(&[0, 2, 1], &[3]).one_hot_infer_blocking().unwrap();
    assert_eq!(i(&r), [1, 0, 0, 0, 0, 1, 0, 1, 0]);
    assert_eq!(ints(&[], &[2, 0]).one_hot(3).unwrap().shape(), &[2, 0, 3]);
    assert_eq!(
        err(ints(&[], &[0]).one_hot_infer_blocking()),
        "Can not infer total number of classes from empty tensor."
    );
    assert_eq!(
        err(ints(&[-1], &[1]).one_hot_infer_blocking()),
        "Class values must be non-negative."
    );
    assert_eq!(
        err(Tensor::new([0.0f32]).unwrap().one_hot(3)),
        "one_hot is only applicable to index tensor of type LongTensor."
    );
}

#[test]
fn sort_argsort_topk() {
    let _g = serial();
    let x = Tensor::new([
        [3.0f32, NAN, 1.0, -0.0, 0.0, 3.0],
        [-INF, INF, NAN, 1.0, 2.0, 2.0],
    ])
    .unwrap();
    let (v, ix) = x.sort(1, false, false).unwrap();
    same(
        &f(&v),
        &[-0., 0., 1., 3., 3., NAN, -INF, 1., 2., 2., INF, NAN],
    );
    assert_eq!(i(&ix), [3, 4, 2, 0, 5, 1, 0, 3, 4, 5, 1, 2]);
    let (v, ix) = x.sort(-1, true, true).unwrap();
    same(
        &f(&v),
        &[NAN, 3., 3., 1., -0., 0., NAN, INF, 2., 2., 1., -INF],
    );
    assert_eq!(i(&ix), [1, 0, 5, 2, 3, 4, 2, 1, 4, 5, 3, 0]);
    // along dim 0 of a transposed input
    let (v, ix) = x.t().unwrap().sort(0, true, false).unwrap();
    same(
        &f(&v),
        &[NAN, NAN, 3., INF, 3., 2., 1., 2., -0., 1., 0., -INF],
    );
    assert_eq!(i(&ix), [1, 2, 0, 1, 5, 4, 2, 5, 3, 3, 4, 0]);
    let (v, ix) = ints(&[3, 1, 2, 0, 5, -1], &[2, 3])
        .sort(0, false, false)
        .unwrap();
    assert_eq!(
        (i(&v), i(&ix)),
        (vec![0, 1, -1, 3, 5, 2], vec![1, 0, 1, 0, 1, 0])
    );
    let (v, ix) = Tensor::new([true, false, true])
        .unwrap()
        .sort(0, false, false)
        .unwrap();
    assert_eq!(v.to_vec_blocking::<bool>().unwrap(), [false, true, true]);
    assert_eq!(i(&ix), [1, 0, 2]);
    let (v, ix) = Tensor::new(3.0f32).unwrap().sort(0, false, false).unwrap();
    assert_eq!((v.shape(), f(&v), i(&ix)), (&[][..], vec![3.], vec![0]));
    assert_eq!(
        zeros(&[2, 0], DType::Float32)
            .unwrap()
            .sort(1, false, false)
            .unwrap()
            .1
            .shape(),
        &[2, 0]
    );
    assert_eq!(
        i(&at().argsort(0, true, false).unwrap()),
        [3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0]
    );

    // torch (CPU) gives indices [1, 5, 2, 1] here: the 3.0 tie at 0 and 5 is unspecified, and
    // borch takes the stable order.
    let (v, ix) = x.topk(2, -1, true, true).unwrap();
    same(&f(&v), &[NAN, 3., NAN, INF]);
    assert_eq!(i(&ix), [1, 0, 2, 1]);
    let y = Tensor::new([[3.0f32, 1.0, 2.0], [0.0, 5.0, -1.0]]).unwrap();
    let (v, ix) = y.topk(2, 0, false, true).unwrap();
    assert_eq!(
        (f(&v), i(&ix)),
        (vec![0., 1., -1., 3., 5., 2.], vec![1, 0, 1, 0, 1, 0])
    );
    let (v, ix) = y.topk(1, 1, true, false).unwrap();
    assert_eq!(
        (v.shape(), f(&v), i(&ix)),
        (&[2usize, 1][..], vec![3., 5.], vec![0, 1])
    );
    assert_eq!(y.topk(0, 1, true, true).unwrap().0.shape(), &[2, 0]);
    assert_eq!(
        err(y.topk(4, 1, true, true)),
        "selected index k out of range"
    );
    assert_eq!(
        err(Tensor::new([true]).unwrap().topk(1, 0, true, true)),
        "topk does not support bool dtypes on CPU"
    );
    assert_eq!(
        err(y.sort(2, false, false)),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
}

#[test]
fn rows_longer_than_a_workgroup_sort() {
    let _g = serial();
    // 700 values in a scrambled order with many ties (every value appears 7 times).
    let vals: Vec<f32> = (0..700).map(|k| ((k * 37) % 100) as f32).collect();
    let t = Tensor::from_slice(&vals, &[700]).unwrap();
    let (v, ix) = t.sort(0, false, false).unwrap();
    let mut order: Vec<usize> = (0..700).collect();
    order.sort_by(|&p, &q| vals[p].total_cmp(&vals[q]));
    let want: Vec<f32> = order.iter().map(|&k| vals[k]).collect();
    assert_eq!(f(&v), want);
    assert_eq!(i(&ix), order.iter().map(|&k| k as i64).collect::<Vec<_>>());
}

#[test]
fn every_dtype_variant_of_the_kernels_runs() {
    let _g = serial();
    let b = Tensor::new([[true, false], [false, true]]).unwrap();
    let idx = ints(&[1, 0], &[2, 1]);
    let bools = |t: &Tensor| t.to_vec_blocking::<bool>().unwrap();
    assert_eq!(bools(&b.gather(1, &idx).unwrap()), [false, false]);
    assert_eq!(bools(&b.take(&ints(&[3], &[1])).unwrap()), [true]);
    assert_eq!(
        bools(&b.scatter(1, &idx, true).unwrap()),
        [true, true, true, true]
    );
    let src = Tensor::new([[false], [false]]).unwrap();
    assert_eq!(
        bools(&b.scatter(1, &idx, &src).unwrap()),
        [true, false, false, true]
    );
    let m = ints(&[1, 2, 3, 4], &[2, 2]);
    assert_eq!(i(&m.triu(0).unwrap()), [1, 2, 0, 4]);
    assert_eq!(i(&m.index_select(0, &ints(&[1], &[1])).unwrap()), [3, 4]);
    assert_eq!(
        i(&m.scatter(0, &ints(&[1, 0], &[1, 2]), 9).unwrap()),
        [1, 9, 9, 4]
    );
    let (v, ix) = m.topk(1, 1, true, true).unwrap();
    assert_eq!((i(&v), i(&ix)), (vec![2, 4], vec![1, 1]));
}
