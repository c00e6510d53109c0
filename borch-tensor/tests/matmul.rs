//! The matmul family against a plain-Rust reference (f64 accumulation, tolerance 1e-4 relative)
//! on odd shapes, every operand layout the kernel reads differently, and every tile borch may
//! pick on any adapter. Error messages are torch 2.15's, copied from running real torch.

use borch_tensor::ops::matmul::MatmulTile;
use borch_tensor::{DType, Tensor, full};

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn tensor(shape: &[usize], seed: u64) -> (Tensor, Vec<f32>) {
    let n = shape.iter().product();
    let v = values(n, seed);
    (Tensor::from_slice(&v, shape).unwrap(), v)
}

/// Row-major `[batch, m, k] @ [batch, k, n]` in f64.
fn reference(a: &[f32], b: &[f32], batch: usize, m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; batch * m * n];
    for q in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0f64;
                for l in 0..k {
                    acc +=
                        f64::from(a[q * m * k + i * k + l]) * f64::from(b[q * k * n + l * n + j]);
                }
                out[q * m * n + i * n + j] = acc as f32;
            }
        }
    }
    out
}

/// Transpose a row-major `[rows, cols]` matrix.
fn transposed(v: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0f32; v.len()];
    for i in 0..rows {
        for j in 0..cols {
            out[j * rows + i] = v[i * cols + j];
        }
    }
    out
}

#[track_caller]
fn assert_close(got: &Tensor, want: &[f32], shape: &[usize]) {
    assert_eq!(got.shape(), shape);
    let got = got.to_vec_blocking::<f32>().unwrap();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-4 * (1.0 + w.abs()),
            "element {i}: got {g}, want {w}"
        );
    }
}

fn check_mm(m: usize, k: usize, n: usize, tile: Option<MatmulTile>) {
    let (a, av) = tensor(&[m, k], (m * 1000 + k) as u64);
    let (b, bv) = tensor(&[k, n], (k * 1000 + n) as u64);
    let want = reference(&av, &bv, 1, m, k, n);
    assert_close(&a.mm_with_tile(&b, tile).unwrap(), &want, &[m, n]);
    // Transposed operands, read through their strides.
    let at = Tensor::from_slice(&transposed(&av, m, k), &[k, m])
        .unwrap()
        .t()
        .unwrap();
    let bt = Tensor::from_slice(&transposed(&bv, k, n), &[n, k])
        .unwrap()
        .t()
        .unwrap();
    assert_close(&at.mm_with_tile(&b, tile).unwrap(), &want, &[m, n]);
    assert_close(&a.mm_with_tile(&bt, tile).unwrap(), &want, &[m, n]);
    assert_close(&at.mm_with_tile(&bt, tile).unwrap(), &want, &[m, n]);
}

const SHAPES: [(usize, usize, usize); 9] = [
    (1, 1, 1),
    (3, 5, 7),
    (65, 33, 17),
    (4, 8, 12),
    (68, 36, 20),
    (17, 1, 9),
    (2, 0, 3),
    (0, 3, 4),
    (130, 9, 131),
];

#[test]
fn mm_odd_shapes_and_transposed_inputs() {
    for (m, k, n) in SHAPES {
        check_mm(m, k, n, None);
    }
}

/// The tiles borch picks on GPUs and CPUs (and odd ones: non-square, tiny, a strip of one
/// column) are correct here too, with every operand layout the kernel reads differently.
/// `cargo xtask bench matmul` checks every tile it measures against a naive kernel as well.
#[test]
fn mm_every_tile() {
    let tiles = [
        MatmulTile::new(16, 16, 4, 4, 16),
        MatmulTile::new(16, 16, 8, 8, 8),
        MatmulTile::new(16, 8, 16, 8, 8),
        MatmulTile::new(16, 16, 8, 8, 16),
        MatmulTile::new(8, 8, 4, 4, 4),
        MatmulTile::new(8, 8, 4, 4, 4).double_buffered(),
        MatmulTile::new(16, 16, 8, 8, 8).double_buffered(),
        MatmulTile::strip(8, 16, 4),
        MatmulTile::strip(8, 7, 1),
    ];
    for tile in tiles {
        for (m, k, n) in [(65, 33, 17), (132, 20, 136)] {
            check_mm(m, k, n, Some(tile));
        }
    }
}

/// The big CPU tiles take seconds each to compile on lavapipe, so they are checked on one
/// shape, row-major (vec4 reads along K for A, along N for B) and both transposed (the other
/// vec4 reads); the scalar read modes share their code with the tiles above.
#[test]
fn mm_big_cpu_tiles() {
    let (m, k, n) = (260, 20, 264);
    let (a, av) = tensor(&[m, k], 31);
    let (b, bv) = tensor(&[k, n], 32);
    let want = reference(&av, &bv, 1, m, k, n);
    let mid = MatmulTile::new(8, 8, 16, 16, 8);
    assert_close(&a.mm_with_tile(&b, Some(mid)).unwrap(), &want, &[m, n]);
    let big = MatmulTile::new(8, 8, 32, 32, 8);
    assert_close(&a.mm_with_tile(&b, Some(big)).unwrap(), &want, &[m, n]);
    let at = Tensor::from_slice(&transposed(&av, m, k), &[k, m]).unwrap();
    let bt = Tensor::from_slice(&transposed(&bv, k, n), &[n, k]).unwrap();
    let got = at
        .t()
        .unwrap()
        .mm_with_tile(&bt.t().unwrap(), Some(big))
        .unwrap();
    assert_close(&got, &want, &[m, n]);
}

#[test]
fn mm_strided_and_offset_views() {
    // Every other column: neither stride is 1, so the kernel copies first.
    let (a, av) = tensor(&[6, 10], 1);
    let (b, bv) = tensor(&[5, 7], 2);
    let a2 = a.slice(1, Some(0), None, 2).unwrap();
    let a2v: Vec<f32> = (0..6)
        .flat_map(|i| (0..5).map(move |j| (i, j)))
        .map(|(i, j)| av[i * 10 + 2 * j])
        .collect();
    assert_close(
        &a2.mm(&b).unwrap(),
        &reference(&a2v, &bv, 1, 6, 5, 7),
        &[6, 7],
    );
    // A row slice with an offset.
    let b2 = b.narrow(0, 1, 4).unwrap();
    let a3 = a.narrow(1, 3, 4).unwrap();
    let a3v: Vec<f32> = (0..6)
        .flat_map(|i| (0..4).map(move |j| (i, j)))
        .map(|(i, j)| av[i * 10 + 3 + j])
        .collect();
    assert_close(
        &a3.mm(&b2).unwrap(),
        &reference(&a3v, &bv[7..], 1, 6, 4, 7),
        &[6, 7],
    );
}

#[test]
fn bmm_and_batch_broadcast() {
    let (a, av) = tensor(&[3, 5, 7], 3);
    let (b, bv) = tensor(&[3, 7, 9], 4);
    assert_close(
        &a.bmm(&b).unwrap(),
        &reference(&av, &bv, 3, 5, 7, 9),
        &[3, 5, 9],
    );
    // Expanded batch (stride 0) read without a copy.
    let (b1, b1v) = tensor(&[1, 7, 9], 5);
    let be = b1.expand(&[3, 7, 9]).unwrap();
    let rep: Vec<f32> = (0..3).flat_map(|_| b1v.clone()).collect();
    assert_close(
        &a.bmm(&be).unwrap(),
        &reference(&av, &rep, 3, 5, 7, 9),
        &[3, 5, 9],
    );
    // matmul: [2, 1, 5, 7] @ [3, 7, 9] -> [2, 3, 5, 9].
    let (x, xv) = tensor(&[2, 1, 5, 7], 6);
    let (y, yv) = tensor(&[3, 7, 9], 7);
    let mut want = Vec::new();
    for i in 0..2 {
        for j in 0..3 {
            want.extend(reference(
                &xv[i * 35..(i + 1) * 35],
                &yv[j * 63..(j + 1) * 63],
                1,
                5,
                7,
                9,
            ));
        }
    }
    assert_close(&x.matmul(&y).unwrap(), &want, &[2, 3, 5, 9]);
    // [3, 4] @ [2, 4, 5]: the matrix broadcast over the batch.
    let (p, pv) = tensor(&[3, 4], 8);
    let (q, qv) = tensor(&[2, 4, 5], 9);
    let rep: Vec<f32> = (0..2).flat_map(|_| pv.clone()).collect();
    assert_close(
        &p.matmul(&q).unwrap(),
        &reference(&rep, &qv, 2, 3, 4, 5),
        &[2, 3, 5],
    );
}

#[test]
fn matmul_one_d_cases() {
    let (v, vv) = tensor(&[7], 10);
    let (w, wv) = tensor(&[7], 11);
    let (m, mv) = tensor(&[7, 5], 12);
    let (n, nv) = tensor(&[4, 7], 13);
    let (bm, bmv) = tensor(&[3, 7, 5], 14);
    let (bn, bnv) = tensor(&[3, 4, 7], 15);
    // 1-D @ 1-D: a 0-d dot product.
    assert_close(
        &v.matmul(&w).unwrap(),
        &reference(&vv, &wv, 1, 1, 7, 1),
        &[],
    );
    assert_close(&v.dot(&w).unwrap(), &reference(&vv, &wv, 1, 1, 7, 1), &[]);
    // 1-D @ 2-D and 2-D @ 1-D.
    assert_close(
        &v.matmul(&m).unwrap(),
        &reference(&vv, &mv, 1, 1, 7, 5),
        &[5],
    );
    assert_close(
        &n.matmul(&v).unwrap(),
        &reference(&nv, &vv, 1, 4, 7, 1),
        &[4],
    );
    assert_close(&n.mv(&v).unwrap(), &reference(&nv, &vv, 1, 4, 7, 1), &[4]);
    // 3-D @ 1-D (folded into one mv) and 1-D @ 3-D (batched).
    assert_close(
        &bn.matmul(&v).unwrap(),
        &reference(&bnv, &vv, 1, 12, 7, 1),
        &[3, 4],
    );
    let rep: Vec<f32> = (0..3).flat_map(|_| vv.clone()).collect();
    assert_close(
        &v.matmul(&bm).unwrap(),
        &reference(&rep, &bmv, 3, 1, 7, 5),
        &[3, 5],
    );
    // 3-D @ 2-D folds; a non-contiguous 3-D operand goes through the batched path.
    assert_close(
        &bn.matmul(&m).unwrap(),
        &reference(&bnv, &mv, 1, 12, 7, 5),
        &[3, 4, 5],
    );
    let bnt = bn.transpose(0, 1).unwrap();
    let want: Vec<f32> = reference(&bnv, &mv, 1, 12, 7, 5);
    let want_t: Vec<f32> = (0..4)
        .flat_map(|i| (0..3).map(move |q| (i, q)))
        .flat_map(|(i, q)| want[(q * 4 + i) * 5..(q * 4 + i + 1) * 5].to_vec())
        .collect();
    assert_close(&bnt.matmul(&m).unwrap(), &want_t, &[4, 3, 5]);
    // Empty: [0] @ [0] is 0.
    let e = Tensor::from_slice::<f32>(&[], &[0]).unwrap();
    assert_close(&e.matmul(&e).unwrap(), &[0.0], &[]);
}

#[test]
fn addmm_beta_alpha_broadcast() {
    let (a, av) = tensor(&[5, 6], 20);
    let (b, bv) = tensor(&[6, 7], 21);
    let (c, cv) = tensor(&[7], 22);
    let prod = reference(&av, &bv, 1, 5, 6, 7);
    let want: Vec<f32> = prod
        .iter()
        .enumerate()
        .map(|(i, p)| 0.5 * cv[i % 7] + 2.0 * p)
        .collect();
    assert_close(&c.addmm(&a, &b, 0.5, 2.0).unwrap(), &want, &[5, 7]);
    // beta = 0 ignores the input, NaN included.
    let nan = full(&[5, 7], f32::NAN, None).unwrap();
    assert_close(&nan.addmm(&a, &b, 0.0, 1.0).unwrap(), &prod, &[5, 7]);
    // K = 0: beta * input.
    let z1 = Tensor::from_slice::<f32>(&[], &[2, 0]).unwrap();
    let z2 = Tensor::from_slice::<f32>(&[], &[0, 3]).unwrap();
    let three = full(&[2, 3], 3.0, None).unwrap();
    assert_close(
        &three.addmm(&z1, &z2, 2.0, 1.0).unwrap(),
        &[6.0; 6],
        &[2, 3],
    );
    // alpha = 0 skips the product (inf * 0 stays out), as torch does.
    let inf = full(&[2, 3], f32::INFINITY, None).unwrap();
    let zero = full(&[3, 3], 0.0, None).unwrap();
    assert_close(
        &three.addmm(&inf, &zero, 1.0, 0.0).unwrap(),
        &[3.0; 6],
        &[2, 3],
    );
    // A transposed 2-D input.
    let (ct, ctv) = tensor(&[7, 5], 23);
    let want: Vec<f32> = (0..35)
        .map(|i| ctv[(i % 7) * 5 + i / 7] + prod[i])
        .collect();
    assert_close(
        &ct.t().unwrap().addmm(&a, &b, 1.0, 1.0).unwrap(),
        &want,
        &[5, 7],
    );
}

#[test]
fn int64_products_are_exact() {
    // Values from torch: torch.addmm(x, x, x, beta=0.5, alpha=1.5) with x = [[1, 2], [3, 4]]
    // gives [[7, 10], [15, 22]] (beta and alpha truncate to 0 and 1).
    let x = Tensor::new([[1i64, 2], [3, 4]]).unwrap();
    assert_eq!(
        x.mm(&x).unwrap().to_vec_blocking::<i64>().unwrap(),
        vec![7, 10, 15, 22]
    );
    assert_eq!(
        x.addmm(&x, &x, 0.5, 1.5)
            .unwrap()
            .to_vec_blocking::<i64>()
            .unwrap(),
        vec![7, 10, 15, 22]
    );
    assert_eq!(
        x.addmm(&x, &x, 2.0, 3.0)
            .unwrap()
            .to_vec_blocking::<i64>()
            .unwrap(),
        vec![23, 34, 51, 74]
    );
    let v = Tensor::new([1i64, 2]).unwrap();
    assert_eq!(v.dot(&v).unwrap().item_blocking().unwrap().to_f64(), 5.0);
    assert_eq!(
        x.mv(&v).unwrap().to_vec_blocking::<i64>().unwrap(),
        vec![5, 11]
    );
    let big: Vec<i64> = (0..65 * 33).map(|i| (i % 7) - 3).collect();
    let a = Tensor::from_slice(&big, &[65, 33]).unwrap();
    let got = a
        .mm(&a.t().unwrap())
        .unwrap()
        .to_vec_blocking::<i64>()
        .unwrap();
    for i in 0..65 {
        for j in 0..65 {
            let want: i64 = (0..33).map(|l| big[i * 33 + l] * big[j * 33 + l]).sum();
            assert_eq!(got[i * 65 + j], want);
        }
    }
    assert_eq!(a.mm(&a.t().unwrap()).unwrap().dtype(), DType::Int64);
}

#[test]
fn outer_promotes_like_mul() {
    // torch.outer(torch.tensor([1, 2]), torch.tensor([1.5, 2.])) == [[1.5, 2.], [3., 4.]]
    let a = Tensor::new([1i64, 2]).unwrap();
    let b = Tensor::new([1.5f32, 2.0]).unwrap();
    assert_close(&a.outer(&b).unwrap(), &[1.5, 2.0, 3.0, 4.0], &[2, 2]);
    let t = Tensor::new([true, false]).unwrap();
    assert_eq!(t.outer(&t).unwrap().dtype(), DType::Bool);
}

fn err(r: borch_tensor::Result<Tensor>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn torch_error_messages() {
    let z = |shape: &[usize]| full(shape, 0.0, None).unwrap();
    let zl = |shape: &[usize]| full(shape, 0i64, None).unwrap();
    let zb = |shape: &[usize]| full(shape, false, None).unwrap();
    let cases: Vec<(borch_tensor::Result<Tensor>, &str)> = vec![
        (
            z(&[2, 3]).mm(&z(&[4, 5])),
            "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
        ),
        (
            z(&[3]).mm(&z(&[3, 4])),
            "mm: self must be a matrix, got 1-D tensor",
        ),
        (
            z(&[2, 3]).mm(&z(&[3])),
            "mm: mat2 must be a matrix, got 1-D tensor",
        ),
        (
            z(&[2, 3]).mm(&zl(&[3, 4])),
            "expected m1 and m2 to have the same dtype, but got: float != long int",
        ),
        (
            zb(&[2, 3]).mm(&zb(&[3, 4])),
            "\"addmm_impl_cpu_\" not implemented for 'Bool'",
        ),
        (z(&[2, 3]).bmm(&z(&[3, 4])), "batch1 must be a 3D tensor"),
        (z(&[2, 2, 3]).bmm(&z(&[3, 4])), "batch2 must be a 3D tensor"),
        (
            z(&[2, 2, 3]).bmm(&z(&[3, 3, 4])),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].",
        ),
        (
            zl(&[2, 2, 3]).bmm(&z(&[2, 3, 4])),
            "expected scalar type Long but found Float",
        ),
        (
            zb(&[2, 2, 3]).bmm(&zb(&[2, 3, 4])),
            "\"bmm\" not implemented for 'Bool'",
        ),
        (
            z(&[]).matmul(&z(&[3])),
            "both arguments to matmul need to be at least 1D, but they are 0D and 1D",
        ),
        (
            z(&[3]).matmul(&z(&[4])),
            "inconsistent tensor size, expected tensor [3] and src [4] to have the same number \
             of elements, but got 3 and 4 elements respectively",
        ),
        (
            z(&[3]).matmul(&z(&[4, 5])),
            "mm: mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)",
        ),
        (
            z(&[2, 3]).matmul(&z(&[4])),
            "size mismatch, got input (2), mat (2x3), vec (4)",
        ),
        (
            z(&[2, 2, 3]).matmul(&z(&[4])),
            "size mismatch, got input (4), mat (4x3), vec (4)",
        ),
        (
            z(&[3]).matmul(&z(&[2, 4, 5])),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].",
        ),
        (
            z(&[2, 2, 3]).matmul(&z(&[4, 5])),
            "mm: mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)",
        ),
        (
            z(&[2, 3]).matmul(&z(&[2, 4, 5])),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].",
        ),
        (
            z(&[2, 2, 3]).matmul(&z(&[3, 3, 4])),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton \
             dimension 0",
        ),
        (
            z(&[2, 3, 2]).transpose(0, 1).unwrap().matmul(&z(&[4])),
            "Expected size for first two dimensions of batch2 tensor to be: [3, 2] but got: [3, 4].",
        ),
        (
            z(&[3]).matmul(&z(&[2, 1, 5])),
            "size mismatch, got input (10), mat (10x1), vec (3)",
        ),
        (
            z(&[2, 2, 3]).matmul(&zl(&[2, 3, 4])),
            "expected scalar type Float but found Long",
        ),
        (
            z(&[2, 3]).matmul(&zl(&[3])),
            "addmv input tensors must have the same dtype, but got Long, Float, and Long",
        ),
        (
            zb(&[3]).matmul(&zb(&[3])),
            "\"dot\" not implemented for 'Bool'",
        ),
        (
            z(&[3, 1]).dot(&z(&[3])),
            "1D tensors expected, but got 2D and 1D tensors",
        ),
        (
            z(&[3]).dot(&zl(&[3])),
            "dot : expected both vectors to have same dtype, but found Float and Long",
        ),
        (
            z(&[3]).mv(&z(&[3])),
            "vector + matrix @ vector expected, got 1, 1, 1",
        ),
        (
            z(&[2, 3]).mv(&z(&[3, 1])),
            "vector + matrix @ vector expected, got 1, 2, 2",
        ),
        (
            z(&[2, 3]).outer(&z(&[3])),
            "outer: Expected 1-D argument self, but got 2-D",
        ),
        (
            z(&[3]).outer(&z(&[])),
            "outer: Expected 1-D argument vec2, but got 0-D",
        ),
        (
            z(&[3, 3]).addmm(&z(&[2, 3]), &z(&[3, 4]), 1.0, 1.0),
            "The expanded size of the tensor (4) must match the existing size (3) at \
             non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3, 3]",
        ),
        (
            z(&[1, 2, 4]).addmm(&z(&[2, 3]), &z(&[3, 4]), 1.0, 1.0),
            "expand(torch.FloatTensor{[1, 2, 4]}, size=[2, 4]): the number of sizes provided \
             (2) must be greater or equal to the number of dimensions in the tensor (3)",
        ),
        (
            z(&[2, 4]).addmm(&z(&[2, 3]), &z(&[4, 4]), 1.0, 1.0),
            "addmm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)",
        ),
        (
            z(&[2, 4]).addmm(&z(&[3]), &z(&[3, 4]), 1.0, 1.0),
            "addmm: self must be a matrix, got 1-D tensor",
        ),
        (
            z(&[2, 4]).addmm(&zl(&[3]), &z(&[3, 4]), 1.0, 1.0),
            "mat1 and mat2 must have the same dtype, but got Long and Float",
        ),
        (
            z(&[2, 4]).addmm(&zl(&[2, 3]), &zl(&[3, 4]), 1.0, 1.0),
            "self and mat2 must have the same dtype, but got Float and Long",
        ),
    ];
    for (i, (got, want)) in cases.into_iter().enumerate() {
        assert_eq!(err(got), want, "case {i}");
    }
    // Bool products that sum nothing return zeros, as in torch.
    let k0 = zb(&[2, 0]).mm(&zb(&[0, 4])).unwrap();
    assert_eq!(k0.to_vec_blocking::<bool>().unwrap(), vec![false; 8]);
}

/// More batches than one dispatch may hold along z (65535) are split into several dispatches.
#[test]
fn bmm_more_batches_than_one_dispatch() {
    let batch = 65_537;
    let (a, av) = tensor(&[batch, 1, 2], 40);
    let (b, bv) = tensor(&[batch, 2, 1], 41);
    let want = reference(&av, &bv, batch, 1, 2, 1);
    assert_close(&a.bmm(&b).unwrap(), &want, &[batch, 1, 1]);
}
