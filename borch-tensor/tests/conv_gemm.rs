//! The implicit-GEMM convolution (forward, input gradient, weight gradient, split-K) against a
//! plain-Rust f64 reference on odd shapes: tile edges (C_out, K and N not multiples of the
//! tile), groups (depthwise too), dilation, strides with padding, 1x1 stride-2 shortcuts, 'same'
//! with an even kernel, the fused epilogue (bias, residual, ReLU); its dispatch counts; and that
//! no column buffer is allocated. One #[test] runs the checks in sequence: the kernel overrides
//! and the device counters are process-wide.

use borch_tensor::ops::conv_gemm::{
    ConvPath, set_conv_baked, set_conv_kernel, set_conv_path, set_conv_sliced, set_conv_winograd,
    set_conv_winograd_chunk,
};
use borch_tensor::ops::matmul::MatmulTile;
use borch_tensor::{
    Op, Padding, Tensor, conv1d, conv2d, conv2d_fused, default_device, linear_relu,
};

fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

#[derive(Clone, Copy, Debug)]
struct Case {
    n: usize,
    c: usize,
    h: usize,
    w: usize,
    oc: usize,
    k: [usize; 2],
    stride: [usize; 2],
    pad: [usize; 2],
    dil: [usize; 2],
    groups: usize,
}

impl Case {
    fn out(&self) -> [usize; 2] {
        let size = [self.h, self.w];
        [0, 1].map(|i| {
            (size[i] + 2 * self.pad[i] - self.dil[i] * (self.k[i] - 1) - 1) / self.stride[i] + 1
        })
    }
}

/// out, dx, dw, db of the case in f64 (bias added), for grad_output `g`.
#[allow(clippy::type_complexity)]
fn reference(
    cs: &Case,
    x: &[f32],
    w: &[f32],
    b: &[f32],
    g: &[f32],
) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) {
    let [oh, ow] = cs.out();
    let (cg, mg) = (cs.c / cs.groups, cs.oc / cs.groups);
    let mut out = vec![0f64; cs.n * cs.oc * oh * ow];
    let mut dx = vec![0f64; x.len()];
    let mut dw = vec![0f64; w.len()];
    let mut db = vec![0f64; cs.oc];
    for n in 0..cs.n {
        for o in 0..cs.oc {
            let gr = o / mg;
            for oy in 0..oh {
                for ox in 0..ow {
                    let oi = ((n * cs.oc + o) * oh + oy) * ow + ox;
                    let mut acc = f64::from(b[o]);
                    let go = f64::from(g[oi]);
                    db[o] += go;
                    for c in 0..cg {
                        for ky in 0..cs.k[0] {
                            for kx in 0..cs.k[1] {
                                let y = (oy * cs.stride[0] + ky * cs.dil[0]) as isize
                                    - cs.pad[0] as isize;
                                let xx = (ox * cs.stride[1] + kx * cs.dil[1]) as isize
                                    - cs.pad[1] as isize;
                                if y < 0 || xx < 0 || y >= cs.h as isize || xx >= cs.w as isize {
                                    continue;
                                }
                                let xi = ((n * cs.c + gr * cg + c) * cs.h + y as usize) * cs.w
                                    + xx as usize;
                                let wi = ((o * cg + c) * cs.k[0] + ky) * cs.k[1] + kx;
                                acc += f64::from(w[wi]) * f64::from(x[xi]);
                                dx[xi] += f64::from(w[wi]) * go;
                                dw[wi] += f64::from(x[xi]) * go;
                            }
                        }
                    }
                    out[oi] = acc;
                }
            }
        }
    }
    let f = |v: Vec<f64>| v.into_iter().map(|x| x as f32).collect();
    (f(out), f(dx), f(dw), f(db))
}

fn close(name: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{name}: length");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
            "{name}: element {i}: {a} vs {b}"
        );
    }
}

fn tensor(shape: &[usize], seed: u64) -> (Tensor, Vec<f32>) {
    let v = values(shape.iter().product(), seed);
    (Tensor::from_slice(&v, shape).unwrap(), v)
}

/// The gradients of `out` for `g` by its recorded node, with grad mode off (the kernels) or on
/// (the composed ops a double backward differentiates).
fn node_grads(out: &Tensor, g: &Tensor, build_graph: bool) -> Vec<Option<Tensor>> {
    let node = out.grad_fn().expect("recorded");
    let Op::Custom(f) = &node.op else {
        panic!(
            "the convolution records its own backward, not {}",
            node.op.name()
        )
    };
    let before = borch_tensor::set_grad_enabled(build_graph);
    let grads = f.backward_node(&node, g);
    borch_tensor::set_grad_enabled(before);
    grads.unwrap()
}

fn check_case(cs: &Case, label: &str) {
    let [oh, ow] = cs.out();
    let (x, xv) = tensor(&[cs.n, cs.c, cs.h, cs.w], 1);
    let (w, wv) = tensor(&[cs.oc, cs.c / cs.groups, cs.k[0], cs.k[1]], 2);
    let (b, bv) = tensor(&[cs.oc], 3);
    let (g, gv) = tensor(&[cs.n, cs.oc, oh, ow], 4);
    for t in [&x, &w, &b] {
        t.set_requires_grad(true).unwrap();
    }
    let s = |v: [usize; 2]| [v[0] as isize, v[1] as isize];
    let pad = Padding::Sizes(s(cs.pad).to_vec());
    let out = conv2d(
        &x,
        &w,
        Some(&b),
        &s(cs.stride),
        &pad,
        &s(cs.dil),
        cs.groups as isize,
    )
    .unwrap();
    let (ro, rdx, rdw, rdb) = reference(cs, &xv, &wv, &bv, &gv);
    let name = format!("{label} {cs:?}");
    close(
        &format!("{name} forward"),
        &out.to_vec_blocking::<f32>().unwrap(),
        &ro,
    );
    for build in [false, true] {
        let grads = node_grads(&out, &g, build);
        // Built from differentiable ops on the recorded inputs, the gradients carry a graph
        // (double backward); the kernels' do not.
        let dx = grads[0].as_ref().unwrap();
        assert_eq!(dx.requires_grad(), build, "{name}: dx's graph");
        let read = |i: usize| grads[i].as_ref().unwrap().to_vec_blocking::<f32>().unwrap();
        close(&format!("{name} dx (graph {build})"), &read(0), &rdx);
        close(&format!("{name} dw (graph {build})"), &read(1), &rdw);
        close(&format!("{name} db (graph {build})"), &read(2), &rdb);
    }
}

fn case(
    n: usize,
    c: usize,
    hw: [usize; 2],
    oc: usize,
    k: usize,
    stride: usize,
    pad: usize,
) -> Case {
    Case {
        n,
        c,
        h: hw[0],
        w: hw[1],
        oc,
        k: [k, k],
        stride: [stride, stride],
        pad: [pad, pad],
        dil: [1, 1],
        groups: 1,
    }
}

fn shapes_match_the_reference() {
    let mut cases = vec![
        case(2, 3, [5, 5], 4, 3, 1, 1),
        case(1, 5, [7, 6], 9, 3, 2, 1),
        case(3, 4, [6, 6], 5, 1, 2, 0),
        case(1, 6, [9, 11], 33, 3, 1, 0),
        case(2, 2, [4, 4], 3, 2, 1, 0),
        Case {
            dil: [2, 1],
            stride: [1, 2],
            pad: [2, 0],
            k: [3, 2],
            ..case(2, 3, [8, 7], 4, 3, 1, 1)
        },
        Case {
            groups: 2,
            ..case(2, 4, [5, 5], 6, 3, 1, 1)
        },
        Case {
            groups: 4,
            ..case(2, 4, [5, 6], 4, 3, 2, 1)
        },
    ];
    // A 1-D convolution as planes of height 1.
    cases.push(Case {
        h: 1,
        k: [1, 3],
        pad: [0, 2],
        dil: [1, 2],
        ..case(2, 3, [1, 10], 5, 3, 1, 0)
    });
    let tiles = [
        (None, None, "borch's pick"),
        // The register strip (software adapters' pick), odd rows, one column per thread.
        (
            Some(MatmulTile::strip(4, 3, 1)),
            Some(2),
            "strip 4x3x1, split-K 2",
        ),
        (Some(MatmulTile::new(4, 8, 4, 4, 4)), Some(1), "32x16 tile"),
        (Some(MatmulTile::new(8, 8, 4, 4, 8)), Some(3), "split-K 3"),
        (Some(MatmulTile::new(4, 4, 4, 4, 4)), Some(7), "split-K 7"),
        (
            Some(MatmulTile::new(8, 8, 4, 4, 8).double_buffered()),
            Some(3),
            "double-buffered, split-K 3",
        ),
        // The tiles borch picks for big products (software adapters, GPUs).
        (Some(MatmulTile::new(8, 8, 8, 8, 8)), Some(1), "8x8x8x8x8"),
        (
            Some(MatmulTile::new(16, 16, 4, 4, 16)),
            Some(2),
            "16x16x4x4x16",
        ),
        (
            Some(MatmulTile::new(16, 16, 8, 8, 8)),
            Some(1),
            "16x16x8x8x8",
        ),
        (
            Some(MatmulTile::new(32, 4, 4, 4, 16)),
            Some(1),
            "32x4x4x4x16",
        ),
        (
            Some(MatmulTile::new(4, 32, 4, 4, 16)),
            Some(3),
            "4x32x4x4x16",
        ),
    ];
    // Every case through borch's pick and the split-K paths; the other tiles through the cases
    // that reach their edges (C_out and the plane not multiples of the tile, dilation with
    // strides and asymmetric padding, depthwise with stride 2, the 1-D plane): each new tile is
    // a new pipeline, seconds of compiling on a software adapter.
    let edges = [3, 5, 7, 8];
    for (i, (tile, splits, label)) in tiles.into_iter().enumerate() {
        set_conv_kernel(tile, splits);
        let every = i <= 5;
        for (_, cs) in cases
            .iter()
            .enumerate()
            .filter(|(k, _)| every || edges.contains(k))
        {
            check_case(cs, label);
        }
    }
    // The geometry baked into the shader as constants (borch's pick on GPUs).
    set_conv_baked(Some(true));
    for (tile, splits, label) in [tiles[0], tiles[1], tiles[5]] {
        set_conv_kernel(tile, splits);
        for cs in &cases {
            check_case(cs, &format!("baked, {label}"));
        }
    }
    set_conv_baked(None);
    // K cut into slices summed inside one workgroup (borch's pick for small forward grids on
    // GPUs): every pass, odd slice counts, double buffering, the 16 x 16 tile's 16 copies.
    set_conv_sliced(Some(true));
    let sliced = [
        (MatmulTile::new(4, 4, 4, 4, 4), 3, "sliced 3"),
        (
            MatmulTile::new(8, 8, 4, 4, 8).double_buffered(),
            2,
            "double-buffered, sliced 2",
        ),
        (
            MatmulTile::new(4, 4, 4, 4, 8),
            16,
            "16x16 blocks, sliced 16",
        ),
        (MatmulTile::new(8, 8, 4, 4, 4), 5, "8x8x4x4x4, sliced 5"),
        // Lanes (borch's pick for small forward grids on GPUs): strips whose copies each take
        // every L-th element of K.
        (MatmulTile::strip(4, 3, 4), 5, "lanes 4x3x4, 5 copies"),
    ];
    for (i, (tile, slices, label)) in sliced.into_iter().enumerate() {
        set_conv_kernel(Some(tile), Some(slices));
        for (_, cs) in cases
            .iter()
            .enumerate()
            // The lanes (the last entry) on one edge case: each kernel compiles for seconds
            // on lavapipe.
            .filter(|(k, _)| match i {
                0 => true,
                4 => *k == edges[0],
                _ => edges.contains(k),
            })
        {
            check_case(cs, label);
        }
    }
    set_conv_sliced(None);
    set_conv_kernel(None, None);
}

/// 3 x 3 stride-1 convolutions by Winograd's F(2 x 2, 3 x 3) (borch's pick on GPUs for big
/// batches), forced here: odd and even planes (partial 2 x 2 tiles), planes smaller than a tile,
/// padding 0, 1 and 2, few and many channels, chunks of tiles (a 4 KiB chunk: several per
/// call, the weight gradient summed across them), the weight gradient's K in slices, and the
/// fused epilogue.
fn winograd_matches_the_reference() {
    set_conv_winograd(Some(true), None);
    let cases = [
        case(2, 3, [5, 5], 4, 3, 1, 1),
        case(1, 5, [6, 7], 3, 3, 1, 0),
        case(3, 4, [4, 4], 6, 3, 1, 2),
        case(2, 17, [3, 2], 18, 3, 1, 1),
        case(1, 2, [1, 1], 2, 3, 1, 1),
        case(2, 8, [9, 8], 16, 3, 1, 1),
    ];
    for cs in &cases {
        check_case(cs, "winograd");
    }
    set_conv_winograd_chunk(Some(4096), None);
    for cs in &cases[4..] {
        check_case(cs, "winograd, 4 KiB chunks");
    }
    // The weight gradient's K in slices of 4 tiles (summed after the products).
    set_conv_winograd_chunk(None, Some(4));
    for cs in &cases[3..] {
        check_case(cs, "winograd, slices of 4 tiles");
    }
    set_conv_winograd_chunk(None, None);
    // Dispatches: the weight's and the input's transforms, the 16 products (one batched
    // matmul), the output's transform; backward the same three plus the gradient's transform
    // for the weight gradient, and the bias's sum.
    let dev = default_device().unwrap();
    let (x, _) = tensor(&[2, 8, 8, 8], 21);
    let (w, _) = tensor(&[16, 8, 3, 3], 22);
    let (b, _) = tensor(&[16], 23);
    let (g, _) = tensor(&[2, 16, 8, 8], 25);
    for t in [&x, &w, &b] {
        t.set_requires_grad(true).unwrap();
    }
    dev.synchronize().unwrap();
    let d0 = dev.dispatches();
    let out = conv2d(&x, &w, Some(&b), &[1], &Padding::Sizes(vec![1]), &[1], 1).unwrap();
    assert_eq!(dev.dispatches() - d0, 4, "winograd forward");
    let d0 = dev.dispatches();
    let _ = node_grads(&out, &g, false);
    assert_eq!(dev.dispatches() - d0, 9, "winograd backward");
    let (x, _) = tensor(&[2, 3, 7, 6], 21);
    let (w, _) = tensor(&[5, 3, 3, 3], 22);
    let (b, _) = tensor(&[5], 23);
    let (r, _) = tensor(&[2, 5, 7, 6], 24);
    let p = Padding::Same;
    let fused = conv2d_fused(&x, &w, Some(&b), Some(&r), true, &[1], &p, &[1], 1).unwrap();
    set_conv_winograd(Some(false), None);
    let plain = conv2d_fused(&x, &w, Some(&b), Some(&r), true, &[1], &p, &[1], 1).unwrap();
    set_conv_winograd(None, None);
    let (f, q) = (
        fused.to_vec_blocking::<f32>().unwrap(),
        plain.to_vec_blocking::<f32>().unwrap(),
    );
    close("winograd conv2d_fused", &f, &q);
    assert!(f.contains(&0.0) && f.iter().any(|&v| v > 0.0));
}

/// conv2d_fused: bias, residual and ReLU in the kernel's stores; conv1d and 'same' with an even
/// kernel through the same path.
fn fused_and_same_match_composed_ops() {
    let (x, _) = tensor(&[2, 3, 6, 5], 11);
    let (w, _) = tensor(&[4, 3, 3, 3], 12);
    let (b, _) = tensor(&[4], 13);
    let (r, _) = tensor(&[2, 4, 6, 5], 14);
    let p = Padding::Sizes(vec![1]);
    let fused = conv2d_fused(&x, &w, Some(&b), Some(&r), true, &[1], &p, &[1], 1).unwrap();
    let plain = conv2d(&x, &w, Some(&b), &[1], &p, &[1], 1)
        .unwrap()
        .add(&r)
        .unwrap()
        .relu()
        .unwrap();
    let (f, q) = (
        fused.to_vec_blocking::<f32>().unwrap(),
        plain.to_vec_blocking::<f32>().unwrap(),
    );
    close("conv2d_fused", &f, &q);
    assert!(f.contains(&0.0) && f.iter().any(|&v| v > 0.0));
    // 'same' with an even kernel: the extra padding goes after, as torch does.
    let (we, _) = tensor(&[2, 3, 2, 4], 15);
    let same = conv2d(&x, &we, None, &[1], &Padding::Same, &[1, 2], 1).unwrap();
    set_conv_path(ConvPath::Im2col);
    let old = conv2d(&x, &we, None, &[1], &Padding::Same, &[1, 2], 1).unwrap();
    set_conv_path(ConvPath::Auto);
    assert_eq!(same.shape(), &[2, 2, 6, 5]);
    close(
        "same even",
        &same.to_vec_blocking::<f32>().unwrap(),
        &old.to_vec_blocking::<f32>().unwrap(),
    );
    let (x1, _) = tensor(&[2, 3, 9], 16);
    let (w1, _) = tensor(&[4, 3, 4], 17);
    let one = conv1d(&x1, &w1, None, &[2], &Padding::Sizes(vec![1]), &[1], 1).unwrap();
    set_conv_path(ConvPath::Im2col);
    let old = conv1d(&x1, &w1, None, &[2], &Padding::Sizes(vec![1]), &[1], 1).unwrap();
    set_conv_path(ConvPath::Auto);
    assert_eq!(one.shape(), old.shape());
    close(
        "conv1d",
        &one.to_vec_blocking::<f32>().unwrap(),
        &old.to_vec_blocking::<f32>().unwrap(),
    );
}

/// Dispatches: forward with bias 1, conv2d_fused with residual + ReLU 1, backward (input grad,
/// weight grad, bias grad) 3 on an adapter that does not split K.
fn dispatch_counts_are_pinned() {
    let dev = default_device().unwrap();
    let (x, _) = tensor(&[2, 8, 8, 8], 21);
    let (w, _) = tensor(&[16, 8, 3, 3], 22);
    let (b, _) = tensor(&[16], 23);
    let (r, _) = tensor(&[2, 16, 8, 8], 24);
    let (g, _) = tensor(&[2, 16, 8, 8], 25);
    for t in [&x, &w, &b] {
        t.set_requires_grad(true).unwrap();
    }
    let p = Padding::Sizes(vec![1]);
    set_conv_kernel(None, Some(1));
    dev.synchronize().unwrap();
    let d0 = dev.dispatches();
    let out = conv2d(&x, &w, Some(&b), &[1], &p, &[1], 1).unwrap();
    assert_eq!(dev.dispatches() - d0, 1, "conv2d forward with bias");
    let d0 = dev.dispatches();
    let fused = conv2d_fused(&x, &w, Some(&b), Some(&r), true, &[1], &p, &[1], 1).unwrap();
    assert_eq!(
        dev.dispatches() - d0,
        1,
        "conv2d_fused with residual and ReLU"
    );
    let d0 = dev.dispatches();
    let grads = node_grads(&out, &g, false);
    assert_eq!(
        dev.dispatches() - d0,
        3,
        "backward: input grad, weight grad, bias grad"
    );
    assert!(grads.iter().all(Option::is_some));
    // Split-K: the weight gradient's partial sums and their reduction.
    set_conv_kernel(None, Some(4));
    let d0 = dev.dispatches();
    let _ = conv2d(&x, &w, Some(&b), &[1], &p, &[1], 1).unwrap();
    assert_eq!(
        dev.dispatches() - d0,
        2,
        "split-K forward: partials, reduce"
    );
    // Lanes (borch's pick for such a forward on GPUs): the same K in 4 copies, one dispatch.
    set_conv_sliced(Some(true));
    let d0 = dev.dispatches();
    let _ = conv2d(&x, &w, Some(&b), &[1], &p, &[1], 1).unwrap();
    assert_eq!(dev.dispatches() - d0, 1, "lanes forward: one dispatch");
    set_conv_sliced(None);
    set_conv_kernel(None, None);
    fused.to_vec_blocking::<f32>().unwrap();
}

/// No column buffer: the forward's peak stays near input + weight + output, where im2col holds
/// `kh * kw` times the input on top.
fn no_column_buffer() {
    let dev = default_device().unwrap();
    let (x, _) = tensor(&[4, 16, 16, 16], 31);
    let (w, _) = tensor(&[16, 16, 3, 3], 32);
    let p = Padding::Sizes(vec![1]);
    let input_bytes = 4 * 16 * 16 * 16 * 4u64;
    let peak_of = |path: ConvPath| {
        set_conv_path(path);
        dev.synchronize().unwrap();
        let live = dev.memory().bytes;
        dev.reset_peak_memory_stats();
        let out = conv2d(&x, &w, None, &[1], &p, &[1], 1).unwrap();
        out.to_vec_blocking::<f32>().unwrap();
        let peak = dev.max_memory_allocated() - live;
        set_conv_path(ConvPath::Auto);
        peak
    };
    let implicit = peak_of(ConvPath::Auto);
    let im2col = peak_of(ConvPath::Im2col);
    assert!(
        implicit <= input_bytes + input_bytes / 2,
        "implicit GEMM: {implicit} bytes above the live ones for an output of {input_bytes}"
    );
    assert!(
        im2col >= 9 * input_bytes,
        "im2col holds its columns ({im2col} bytes): the check above can fail"
    );
}

/// linear_relu on a 2-D input: one dispatch (bias and ReLU in the matmul's stores), torch's
/// values and gradients (a plain-Rust reference).
fn linear_relu_is_one_dispatch() {
    let dev = default_device().unwrap();
    let (m, k, n) = (5, 7, 6);
    let (x, xv) = tensor(&[m, k], 41);
    let (w, wv) = tensor(&[n, k], 42);
    let (b, bv) = tensor(&[n], 43);
    let (g, gv) = tensor(&[m, n], 44);
    for t in [&x, &w, &b] {
        t.set_requires_grad(true).unwrap();
    }
    dev.synchronize().unwrap();
    let d0 = dev.dispatches();
    let out = linear_relu(&x, &w, Some(&b)).unwrap();
    assert_eq!(dev.dispatches() - d0, 1, "linear_relu");
    let mut want = vec![0f32; m * n];
    let (mut dx, mut dw, mut db) = (vec![0f32; m * k], vec![0f32; n * k], vec![0f32; n]);
    for i in 0..m {
        for j in 0..n {
            let v = bv[j] + (0..k).map(|e| xv[i * k + e] * wv[j * k + e]).sum::<f32>();
            want[i * n + j] = v.max(0.0);
            let gm = if v > 0.0 { gv[i * n + j] } else { 0.0 };
            db[j] += gm;
            for e in 0..k {
                dx[i * k + e] += gm * wv[j * k + e];
                dw[j * k + e] += gm * xv[i * k + e];
            }
        }
    }
    close("linear_relu", &out.to_vec_blocking::<f32>().unwrap(), &want);
    assert!(want.contains(&0.0) && want.iter().any(|&v| v > 0.0));
    let grads = node_grads(&out, &g, false);
    let read = |i: usize| grads[i].as_ref().unwrap().to_vec_blocking::<f32>().unwrap();
    close("linear_relu dx", &read(0), &dx);
    close("linear_relu dw", &read(1), &dw);
    close("linear_relu db", &read(2), &db);
}

/// A batch whose grid would exceed the device's 65535 blocks per dimension runs in chunks.
fn wide_batches_run_in_chunks() {
    set_conv_kernel(Some(MatmulTile::new(4, 4, 4, 4, 4)), Some(1));
    // 16 columns per block: one 1000 x 1000 plane is 62500 blocks, two are too many.
    let (x, xv) = tensor(&[2, 1, 1000, 1000], 51);
    let w = Tensor::from_slice(&[-1.5f32], &[1, 1, 1, 1]).unwrap();
    let out = conv2d(&x, &w, None, &[1], &Padding::Sizes(vec![0]), &[1], 1).unwrap();
    set_conv_kernel(None, None);
    let want: Vec<f32> = xv.iter().map(|v| -1.5 * v).collect();
    close(
        "chunked batch",
        &out.to_vec_blocking::<f32>().unwrap(),
        &want,
    );
}

#[test]
fn implicit_gemm_convolution() {
    wide_batches_run_in_chunks();
    linear_relu_is_one_dispatch();
    shapes_match_the_reference();
    winograd_matches_the_reference();
    fused_and_same_match_composed_ops();
    dispatch_counts_are_pinned();
    no_column_buffer();
}
