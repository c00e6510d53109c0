//! The kernels behind convolution and pooling: `im2col` copies every sliding window of a batch of
//! planes into columns (torch's `unfold`), and `col2im` adds the columns back into the planes
//! (torch's `fold`), each the other's gradient. One thread per output element, so `col2im`
//! gathers the (at most `kh * kw`) window positions covering its pixel: deterministic, no atomics.

use borch_device::Kernel;

use super::{groups_for, launch, prelude};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::unfold::Window2d;
use crate::tensor::Tensor;

/// Parameters shared by both kernels (after the element count and the source offset).
fn geometry(w: &Window2d) -> [u32; 12] {
    [
        w.input[0],
        w.input[1],
        w.output[0],
        w.output[1],
        w.kernel[0],
        w.kernel[1],
        w.stride[0],
        w.stride[1],
        w.padding[0],
        w.padding[1],
        w.dilation[0],
        w.dilation[1],
    ]
    .map(|x| x as u32)
}

const GEOMETRY: &str = r#"
struct Geo { h: i32, w: i32, oh: i32, ow: i32, kh: i32, kw: i32, sh: i32, sw: i32, ph: i32, pw: i32, dh: i32, dw: i32 }
fn geo() -> Geo {
    return Geo(sp(2u), sp(3u), sp(4u), sp(5u), sp(6u), sp(7u), sp(8u), sp(9u), sp(10u), sp(11u), sp(12u), sp(13u));
}
"#;

pub(crate) fn im2col_source() -> String {
    format!(
        r#"@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> src: array<f32>;
{index}{geometry}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) {{ return; }}
    let g = geo();
    let l = i32(i % u32(g.oh * g.ow));
    let k = i32((i / u32(g.oh * g.ow)) % u32(g.kh * g.kw));
    let b = i32(i / u32(g.oh * g.ow * g.kh * g.kw));
    let h = (l / g.ow) * g.sh - g.ph + (k / g.kw) * g.dh;
    let w = (l % g.ow) * g.sw - g.pw + (k % g.kw) * g.dw;
    var v = bitcast<f32>(p[14]);
    if (h >= 0 && h < g.h && w >= 0 && w < g.w) {{
        v = src[sp(1u) + (b * g.h + h) * g.w + w];
    }}
    out[i] = v;
}}
"#,
        index = prelude::INDEX,
        geometry = GEOMETRY,
    )
}

pub(crate) fn col2im_source() -> String {
    format!(
        r#"@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> cols: array<f32>;
{index}{geometry}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) {{ return; }}
    let g = geo();
    let w = i32(i % u32(g.w));
    let h = i32((i / u32(g.w)) % u32(g.h));
    let b = i32(i / u32(g.h * g.w));
    let windows = g.oh * g.ow;
    let base = sp(1u) + b * g.kh * g.kw * windows;
    var acc = 0.0;
    for (var ki = 0; ki < g.kh; ki++) {{
        let y = h + g.ph - ki * g.dh;
        if (y < 0 || y % g.sh != 0 || y / g.sh >= g.oh) {{ continue; }}
        for (var kj = 0; kj < g.kw; kj++) {{
            let x = w + g.pw - kj * g.dw;
            if (x < 0 || x % g.sw != 0 || x / g.sw >= g.ow) {{ continue; }}
            acc += cols[base + (ki * g.kw + kj) * windows + (y / g.sh) * g.ow + x / g.sw];
        }}
    }}
    out[i] = acc;
}}
"#,
        index = prelude::INDEX,
        geometry = GEOMETRY,
    )
}

/// The windows of contiguous float planes `(B, H, W)` as columns `(B, kh * kw, OH * OW)`;
/// positions outside the planes read `pad_value`.
pub(crate) fn im2col(src: &Tensor, w: &Window2d, pad_value: f32) -> Result<Tensor> {
    let planes = src.shape()[0];
    let shape = [planes, w.kernel[0] * w.kernel[1], w.output[0] * w.output[1]];
    let out = Tensor::uninit(src.device(), &shape, DType::Float32)?;
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let mut params = vec![n as u32, src.storage_offset() as u32];
    params.extend(geometry(w));
    params.push(pad_value.to_bits());
    let kernel = Kernel {
        key: "im2col",
        source: &im2col_source,
        bounds_checked: true,
    };
    launch(src.device(), &kernel, &[&out, src], &params, groups_for(n))?;
    Ok(out)
}

/// Contiguous columns `(B, kh * kw, OH * OW)` summed back into planes `(B, H, W)`.
pub(crate) fn col2im(cols: &Tensor, w: &Window2d) -> Result<Tensor> {
    let shape = [cols.shape()[0], w.input[0], w.input[1]];
    let out = Tensor::uninit(cols.device(), &shape, DType::Float32)?;
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let mut params = vec![n as u32, cols.storage_offset() as u32];
    params.extend(geometry(w));
    let kernel = Kernel {
        key: "col2im",
        source: &col2im_source,
        bounds_checked: true,
    };
    launch(
        cols.device(),
        &kernel,
        &[&out, cols],
        &params,
        groups_for(n),
    )?;
    Ok(out)
}
