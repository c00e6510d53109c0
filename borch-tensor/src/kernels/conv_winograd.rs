//! 3 x 3 stride-1 convolutions by Winograd's F(2 x 2, 3 x 3): each 2 x 2 block of outputs is
//! `A^T [(G g G^T) . (B^T d B)] A` for its 4 x 4 input patch `d`, so the products over the
//! channels become 16 independent GEMMs (one per point of the 4 x 4 transform) with 2.25x
//! fewer multiplications than the direct convolution. The transforms only add, subtract and
//! halve, so the results stay within a few ulps of the direct sums.
//!
//! - forward: `U = G g G^T` per (out, in) channel pair `[16, CO, CI]`, `V = B^T d B` per input
//!   channel and tile `[16, CI, T]`, `M = U V` (a batched matmul), then `A^T M A` per output
//!   channel and tile, with the epilogue (bias, residual, ReLU) in its stores.
//! - input gradient: the forward of the output gradient with the weight flipped and its channel
//!   dims swapped, padded by `2 - padding`.
//! - weight gradient: `dU = (A dY A^T) V^T` summed over the tiles (one batched matmul whose K is
//!   the tiles), then `G^T dU G` per channel pair.
//!
//! Tiles run in chunks that keep each transformed buffer within `CHUNK_BYTES`. Every global
//! access is guarded (the tile and channel indices are checked against the params and the
//! patch reads against the plane), hence `bounds_checked: false`.

use std::sync::atomic::{AtomicUsize, Ordering};

use borch_device::Kernel;

use super::{groups_for, launch, prelude, w};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// The most bytes one transformed buffer (`V`, `M`, `dM`) of a chunk holds (tests set less).
pub(crate) static CHUNK_BYTES: AtomicUsize = AtomicUsize::new(64 << 20);
/// The fewest tiles of one slice of the weight gradient's K (tests set less).
pub(crate) static MIN_SLICE: AtomicUsize = AtomicUsize::new(256);
/// Workgroups (64 x 64 blocks) the weight gradient's products aim for.
const WEIGHT_GRAD_FILL: usize = 1056;

const HEAD: &str = "@group(0) @binding(0) var<storage, read> p: array<u32>;\n\
                    @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
                    @group(0) @binding(2) var<storage, read> src: array<f32>;\n";

const MAIN: &str = "@compute @workgroup_size(256)\n\
                    fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, \
                    @builtin(local_invocation_index) lid: u32) {\n\
                    \x20   let i = flat_index(wid, nwg, lid);\n";

/// `G g G^T` (4 x 4) of a 3 x 3 kernel, row-major.
const WEIGHT_FN: &str = r#"
fn g_rows(a: f32, b: f32, c: f32) -> vec4<f32> {
    return vec4<f32>(a, 0.5 * (a + b + c), 0.5 * (a - b + c), c);
}
"#;

/// `U[xi][r][c] = G g G^T` where g is `W[r][c]` (forward) or `W[c][r]` turned by 180 degrees
/// (input gradient). Params: R, C (U's dims), flip, the weight's offset.
pub(crate) fn weight_source() -> String {
    let mut s = String::from(HEAD);
    s.push_str(prelude::INDEX);
    s.push_str(WEIGHT_FN);
    s.push_str(MAIN);
    s.push_str(
        r#"    let R = p[0]; let C = p[1]; let flip = p[2] != 0u; let off = p[3];
    if (i >= R * C) { return; }
    let r = i / C; let c = i % C;
    var g: array<f32, 9>;
    if (flip) {
        let base = off + (c * R + r) * 9u;
        for (var t = 0u; t < 9u; t = t + 1u) { g[t] = src[base + 8u - t]; }
    } else {
        let base = off + i * 9u;
        for (var t = 0u; t < 9u; t = t + 1u) { g[t] = src[base + t]; }
    }
    // Columns of G g (4 rows x 3 columns), then G applied to each of its 4 rows.
    let c0 = g_rows(g[0], g[3], g[6]);
    let c1 = g_rows(g[1], g[4], g[7]);
    let c2 = g_rows(g[2], g[5], g[8]);
    let plane = R * C;
    for (var a = 0u; a < 4u; a = a + 1u) {
        let row = g_rows(c0[a], c1[a], c2[a]);
        for (var b = 0u; b < 4u; b = b + 1u) { out[(a * 4u + b) * plane + i] = row[b]; }
    }
}
"#,
    );
    s
}

/// `V[xi][c][t] = B^T d B` for the 4 x 4 patch of tile `T0 + t` (`transposed`: `V[xi][t][c]`).
/// Params: C, H, W, PH, PW (signed), TH, TW, T0, TC, the input's offset.
pub(crate) fn input_source(transposed: bool) -> String {
    let mut s = String::from(HEAD);
    s.push_str(prelude::INDEX);
    s.push_str(
        r#"
fn bt(d: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(d.x - d.z, d.y + d.z, d.z - d.y, d.y - d.w);
}
"#,
    );
    s.push_str(MAIN);
    s.push_str(
        r#"    let C = p[0]; let H = i32(p[1]); let W = i32(p[2]); let PH = sp(3u); let PW = sp(4u);
    let TH = p[5]; let TW = p[6]; let T0 = p[7]; let TC = p[8]; let off = p[9];
    if (i >= C * TC) { return; }
"#,
    );
    s.push_str(if transposed {
        "    let c = i % C; let tl = i / C;\n"
    } else {
        "    let c = i / TC; let tl = i % TC;\n"
    });
    s.push_str(
        r#"    let t = T0 + tl;
    let n = t / (TH * TW); let rem = t % (TH * TW);
    let y0 = 2 * i32(rem / TW) - PH; let x0 = 2 * i32(rem % TW) - PW;
    let base = off + (n * C + c) * u32(H * W);
    var rows: array<vec4<f32>, 4>;
    for (var a = 0; a < 4; a = a + 1) {
        var d = vec4<f32>(0.0);
        let y = y0 + a;
        if (y >= 0 && y < H) {
            for (var b = 0; b < 4; b = b + 1) {
                let x = x0 + b;
                if (x >= 0 && x < W) { d[b] = src[base + u32(y * W + x)]; }
            }
        }
        rows[a] = bt(d);
    }
    let cols = array<vec4<f32>, 4>(
        bt(vec4<f32>(rows[0].x, rows[1].x, rows[2].x, rows[3].x)),
        bt(vec4<f32>(rows[0].y, rows[1].y, rows[2].y, rows[3].y)),
        bt(vec4<f32>(rows[0].z, rows[1].z, rows[2].z, rows[3].z)),
        bt(vec4<f32>(rows[0].w, rows[1].w, rows[2].w, rows[3].w)),
    );
    let plane = C * TC;
    for (var a = 0u; a < 4u; a = a + 1u) {
        for (var b = 0u; b < 4u; b = b + 1u) { out[(a * 4u + b) * plane + i] = cols[b][a]; }
    }
}
"#,
    );
    s
}

/// The epilogue of the forward's output transform.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Epilogue {
    pub bias: bool,
    pub residual: bool,
    pub relu: bool,
}

/// `Y = A^T M A` per output channel and tile, stored with the epilogue. Params: K, OH, OW, TH,
/// TW, T0, TC, the bias's and the residual's offsets.
pub(crate) fn output_source(e: Epilogue) -> String {
    let mut s = String::from(HEAD);
    let mut b = 3;
    for (on, name) in [(e.bias, "bias"), (e.residual, "res")] {
        if on {
            s.push_str(&format!(
                "@group(0) @binding({b}) var<storage, read> {name}: array<f32>;\n"
            ));
            b += 1;
        }
    }
    s.push_str(prelude::INDEX);
    s.push_str(
        r#"
fn at(m: vec4<f32>) -> vec2<f32> { return vec2<f32>(m.x + m.y + m.z, m.y - m.z - m.w); }
"#,
    );
    s.push_str(MAIN);
    s.push_str(
        r#"    let K = p[0]; let OH = p[1]; let OW = p[2]; let TH = p[3]; let TW = p[4];
    let T0 = p[5]; let TC = p[6];
    if (i >= K * TC) { return; }
    let k = i / TC; let tl = i % TC;
    let plane = K * TC;
    var rows: array<vec2<f32>, 4>;
    for (var a = 0u; a < 4u; a = a + 1u) {
        let q = a * 4u * plane + i;
        rows[a] = at(vec4<f32>(src[q], src[q + plane], src[q + 2u * plane], src[q + 3u * plane]));
    }
    let t = T0 + tl;
    let n = t / (TH * TW); let rem = t % (TH * TW);
    let y0 = 2u * (rem / TW); let x0 = 2u * (rem % TW);
    for (var b = 0u; b < 2u; b = b + 1u) {
        let col = at(vec4<f32>(rows[0][b], rows[1][b], rows[2][b], rows[3][b]));
        let x = x0 + b;
        for (var a = 0u; a < 2u; a = a + 1u) {
            let y = y0 + a;
            if (y < OH && x < OW) {
                let o = ((n * K + k) * OH + y) * OW + x;
                var v = col[a];
"#,
    );
    if e.bias {
        s.push_str("                v = v + bias[p[7] + k];\n");
    }
    if e.residual {
        s.push_str("                v = v + res[p[8] + o];\n");
    }
    if e.relu {
        s.push_str("                v = select(v, 0.0, v < 0.0);\n");
    }
    s.push_str("                out[o] = v;\n            }\n        }\n    }\n}\n");
    s
}

/// `dM[xi][s][k][l] = A dY A^T` of the output gradient's 2 x 2 block of tile `T0 + s L + l`
/// (zero past the plane): the chunk's tiles in slices of `L`. Params: K, OH, OW, TH, TW, T0, TC,
/// the gradient's offset, L.
pub(crate) fn grad_source() -> String {
    let mut s = String::from(HEAD);
    s.push_str(prelude::INDEX);
    s.push_str("\nfn a4(u: f32, v: f32) -> vec4<f32> { return vec4<f32>(u, u + v, u - v, -v); }\n");
    s.push_str(MAIN);
    s.push_str(
        r#"    let K = p[0]; let OH = p[1]; let OW = p[2]; let TH = p[3]; let TW = p[4];
    let T0 = p[5]; let TC = p[6]; let off = p[7]; let L = p[8];
    if (i >= K * TC) { return; }
    let k = i / TC; let tl = i % TC;
    let o = (tl / L * K + k) * L + tl % L;
    let t = T0 + tl;
    let n = t / (TH * TW); let rem = t % (TH * TW);
    let y0 = 2u * (rem / TW); let x0 = 2u * (rem % TW);
    let base = off + (n * K + k) * OH * OW;
    var g: array<f32, 4>;
    for (var a = 0u; a < 2u; a = a + 1u) {
        for (var b = 0u; b < 2u; b = b + 1u) {
            let y = y0 + a; let x = x0 + b;
            g[a * 2u + b] = select(0.0, src[base + min(y, OH - 1u) * OW + min(x, OW - 1u)], y < OH && x < OW);
        }
    }
    let c0 = a4(g[0], g[2]);
    let c1 = a4(g[1], g[3]);
    let plane = K * TC;
    for (var a = 0u; a < 4u; a = a + 1u) {
        let row = a4(c0[a], c1[a]);
        for (var b = 0u; b < 4u; b = b + 1u) { out[(a * 4u + b) * plane + o] = row[b]; }
    }
}
"#,
    );
    s
}

/// `dW[k][c] = G^T dU G` (3 x 3) from `dU[xi][k][c]`. Params: K, C.
pub(crate) fn weight_grad_source() -> String {
    let mut s = String::from(HEAD);
    s.push_str(prelude::INDEX);
    s.push_str(
        r#"
fn gt(u: vec4<f32>) -> vec3<f32> {
    return vec3<f32>(u.x + 0.5 * (u.y + u.z), 0.5 * (u.y - u.z), 0.5 * (u.y + u.z) + u.w);
}
"#,
    );
    s.push_str(MAIN);
    s.push_str(
        r#"    let K = p[0]; let C = p[1];
    if (i >= K * C) { return; }
    let plane = K * C;
    var rows: array<vec3<f32>, 4>;
    for (var a = 0u; a < 4u; a = a + 1u) {
        let q = a * 4u * plane + i;
        rows[a] = gt(vec4<f32>(src[q], src[q + plane], src[q + 2u * plane], src[q + 3u * plane]));
    }
    for (var b = 0u; b < 3u; b = b + 1u) {
        let col = gt(vec4<f32>(rows[0][b], rows[1][b], rows[2][b], rows[3][b]));
        for (var a = 0u; a < 3u; a = a + 1u) { out[i * 9u + a * 3u + b] = col[a]; }
    }
}
"#,
    );
    s
}

fn run_kernel(
    key: &str,
    source: &dyn Fn() -> String,
    tensors: &[&Tensor],
    params: &[u32],
    threads: usize,
) -> Result<()> {
    let kernel = Kernel {
        key,
        source,
        bounds_checked: false,
    };
    launch(
        tensors[0].device(),
        &kernel,
        tensors,
        params,
        groups_for(threads),
    )
}

/// A convolution's planes as the Winograd tiles see them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Planes {
    pub batch: usize,
    /// The convolved tensor's plane.
    pub input: [usize; 2],
    /// The result's plane.
    pub output: [usize; 2],
    /// Zero rows and columns before the input (may be negative).
    pub padding: [isize; 2],
}

impl Planes {
    fn tiles(&self) -> [usize; 3] {
        let (th, tw) = (self.output[0].div_ceil(2), self.output[1].div_ceil(2));
        [th, tw, self.batch * th * tw]
    }

    /// Tiles per chunk for buffers of `channels` rows: a multiple of 4 (the matmul's vector
    /// loads) unless all tiles fit.
    fn chunk(&self, channels: usize) -> usize {
        let total = self.tiles()[2];
        let fit = (CHUNK_BYTES.load(Ordering::Relaxed) / (64 * channels.max(1))).max(4) / 4 * 4;
        total.min(fit)
    }
}

/// The 16 transformed input matrices of tiles `t0 .. t0 + tc`: `[16, C, tc]` or, transposed,
/// `[16, tc, C]`.
fn transform_input(
    x: &Tensor,
    pl: &Planes,
    t0: usize,
    tc: usize,
    transposed: bool,
) -> Result<Tensor> {
    let c = x.shape()[1];
    let [th, tw, _] = pl.tiles();
    let shape = if transposed { [16, tc, c] } else { [16, c, tc] };
    let v = Tensor::uninit(x.device(), &shape, DType::Float32)?;
    let params = [
        c as u32,
        pl.input[0] as u32,
        pl.input[1] as u32,
        w(pl.padding[0]),
        w(pl.padding[1]),
        th as u32,
        tw as u32,
        t0 as u32,
        tc as u32,
        x.storage_offset() as u32,
    ];
    let key = format!("winograd_input|{}", transposed as u8);
    run_kernel(
        &key,
        &|| input_source(transposed),
        &[&v, x],
        &params,
        c * tc,
    )?;
    Ok(v)
}

/// The forward `conv2d(x, weight)` (3 x 3, stride 1) into `(N, CO, OH, OW)` with the epilogue;
/// `flip`: the weight is `(CI, CO, 3, 3)` of the convolution whose input gradient this is.
/// `x`, `weight`, `bias` and `residual` are contiguous.
pub(crate) fn forward(
    x: &Tensor,
    weight: &Tensor,
    flip: bool,
    pl: &Planes,
    bias: Option<&Tensor>,
    residual: Option<&Tensor>,
    relu: bool,
) -> Result<Tensor> {
    let device = x.device();
    let ci = x.shape()[1];
    let co = if flip {
        weight.shape()[1]
    } else {
        weight.shape()[0]
    };
    let out = Tensor::uninit(
        device,
        &[pl.batch, co, pl.output[0], pl.output[1]],
        DType::Float32,
    )?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let u = Tensor::uninit(device, &[16, co, ci], DType::Float32)?;
    let params = [
        co as u32,
        ci as u32,
        flip as u32,
        weight.storage_offset() as u32,
    ];
    run_kernel(
        "winograd_weight",
        &weight_source,
        &[&u, weight],
        &params,
        co * ci,
    )?;
    let e = Epilogue {
        bias: bias.is_some(),
        residual: residual.is_some(),
        relu,
    };
    let key = format!(
        "winograd_output|{}{}{}",
        e.bias as u8, e.residual as u8, e.relu as u8
    );
    let total = pl.tiles()[2];
    let tc = pl.chunk(ci.max(co));
    let mut t0 = 0;
    while t0 < total {
        let n = tc.min(total - t0);
        let v = transform_input(x, pl, t0, n, false)?;
        let m = u.bmm(&v)?;
        let offsets = [bias, residual].map(|t| t.map_or(0, Tensor::storage_offset));
        let params = chunk_params(co, pl, t0, n, offsets);
        let mut bound = vec![&out, &m];
        bound.extend(bias);
        bound.extend(residual);
        run_kernel(&key, &|| output_source(e), &bound, &params, co * n)?;
        t0 += n;
    }
    Ok(out)
}

/// The output kernels' params for the chunk of `n` tiles from `t0`: `CO`, the output plane, the
/// tile grid, `t0`, `n`, then two of the kernel's own.
fn chunk_params(co: usize, pl: &Planes, t0: usize, n: usize, own: [usize; 2]) -> [u32; 9] {
    let [th, tw, _] = pl.tiles();
    let [oh, ow] = pl.output;
    [co, oh, ow, th, tw, t0, n, own[0], own[1]].map(|v| v as u32)
}

/// The weight gradient `(CO, CI, 3, 3)` of `conv2d(x, weight)` (3 x 3, stride 1) from the output
/// gradient `gy` `(N, CO, OH, OW)`; both contiguous.
pub(crate) fn weight_grad(x: &Tensor, gy: &Tensor, pl: &Planes) -> Result<Tensor> {
    let device = x.device();
    let (ci, co) = (x.shape()[1], gy.shape()[1]);
    let total = pl.tiles()[2];
    let tc = pl.chunk(ci.max(co));
    let mut du: Option<Tensor> = None;
    let mut t0 = 0;
    while t0 < total {
        let n = tc.min(total - t0);
        let v = transform_input(x, pl, t0, n, true)?;
        let slices = weight_grad_slices(n, co, ci);
        let l = n / slices;
        let dm = Tensor::uninit(device, &[16 * slices, co, l], DType::Float32)?;
        let params = chunk_params(co, pl, t0, n, [gy.storage_offset(), l]);
        run_kernel("winograd_grad", &grad_source, &[&dm, gy], &params, co * n)?;
        let v = v.reshape(&[16 * slices as isize, l as isize, ci as isize])?;
        let mut part = dm.bmm(&v)?;
        if slices > 1 {
            let split = [16, slices as isize, co as isize, ci as isize];
            part = part.reshape(&split)?.sum(Some(&[1]), false)?;
        }
        du = Some(match du {
            Some(acc) => acc.add(&part)?,
            None => part,
        });
        t0 += n;
    }
    let out = Tensor::uninit(device, &[co, ci, 3, 3], DType::Float32)?;
    let Some(du) = du else {
        return out.zeros_like();
    };
    let params = [co as u32, ci as u32];
    run_kernel(
        "winograd_weight_grad",
        &weight_grad_source,
        &[&out, &du],
        &params,
        co * ci,
    )?;
    Ok(out)
}

/// Slices of the weight gradient's K (the chunk's `tiles`), each its own product in the batch,
/// summed after: enough that the `16 x slices` products of `co x ci` fill the GPU, each slice
/// at least `MIN_SLICE` tiles, and the slices dividing the tiles evenly.
fn weight_grad_slices(tiles: usize, co: usize, ci: usize) -> usize {
    let blocks = 16 * co.div_ceil(64) * ci.div_ceil(64);
    let min = MIN_SLICE.load(Ordering::Relaxed).max(1);
    let mut s = 1;
    while blocks * s * 2 <= WEIGHT_GRAD_FILL
        && tiles.is_multiple_of(2 * s)
        && tiles / (2 * s) >= min
    {
        s *= 2;
    }
    s
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    let mut out = vec![
        ("winograd_weight".to_string(), weight_source()),
        ("winograd_input|0".to_string(), input_source(false)),
        ("winograd_input|1".to_string(), input_source(true)),
        ("winograd_grad".to_string(), grad_source()),
        ("winograd_weight_grad".to_string(), weight_grad_source()),
    ];
    for bits in 0..8u8 {
        let e = Epilogue {
            bias: bits & 1 != 0,
            residual: bits & 2 != 0,
            relu: bits & 4 != 0,
        };
        out.push((format!("winograd_output|{bits}"), output_source(e)));
    }
    out
}
