//! The 3-D forms of `im2col` and `col2im` (convolution and pooling over volumes): the same
//! kernels as `unfold.rs` with a depth axis. One thread per output element; `col2im3d` gathers
//! the (at most `kd * kh * kw`) window positions covering its voxel: deterministic, no atomics.

use borch_device::Kernel;

use super::{groups_for, launch, prelude};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::window3d::Window3d;
use crate::tensor::Tensor;

/// Parameters shared by both kernels (after the element count and the source offset).
fn geometry(w: &Window3d) -> Vec<u32> {
    [w.input, w.output, w.kernel, w.stride, w.padding, w.dilation]
        .iter()
        .flat_map(|v| v.iter().map(|&x| x as u32))
        .collect()
}

const GEOMETRY: &str = r#"
struct Geo { d: i32, h: i32, w: i32, od: i32, oh: i32, ow: i32, kd: i32, kh: i32, kw: i32, sd: i32, sh: i32, sw: i32, pd: i32, ph: i32, pw: i32, dd: i32, dh: i32, dw: i32 }
fn geo() -> Geo {
    return Geo(sp(2u), sp(3u), sp(4u), sp(5u), sp(6u), sp(7u), sp(8u), sp(9u), sp(10u), sp(11u), sp(12u), sp(13u), sp(14u), sp(15u), sp(16u), sp(17u), sp(18u), sp(19u));
}
"#;

pub(crate) fn im2col3d_source() -> String {
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
    let windows = u32(g.od * g.oh * g.ow);
    let taps = u32(g.kd * g.kh * g.kw);
    let l = i32(i % windows);
    let k = i32((i / windows) % taps);
    let b = i32(i / (windows * taps));
    let z = (l / (g.oh * g.ow)) * g.sd - g.pd + (k / (g.kh * g.kw)) * g.dd;
    let h = ((l / g.ow) % g.oh) * g.sh - g.ph + ((k / g.kw) % g.kh) * g.dh;
    let w = (l % g.ow) * g.sw - g.pw + (k % g.kw) * g.dw;
    var v = bitcast<f32>(p[20]);
    if (z >= 0 && z < g.d && h >= 0 && h < g.h && w >= 0 && w < g.w) {{
        v = src[sp(1u) + ((b * g.d + z) * g.h + h) * g.w + w];
    }}
    out[i] = v;
}}
"#,
        index = prelude::INDEX,
        geometry = GEOMETRY,
    )
}

pub(crate) fn col2im3d_source() -> String {
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
    let z = i32((i / u32(g.h * g.w)) % u32(g.d));
    let b = i32(i / u32(g.d * g.h * g.w));
    let windows = g.od * g.oh * g.ow;
    let base = sp(1u) + b * g.kd * g.kh * g.kw * windows;
    var acc = 0.0;
    for (var kz = 0; kz < g.kd; kz++) {{
        let t = z + g.pd - kz * g.dd;
        if (t < 0 || t % g.sd != 0 || t / g.sd >= g.od) {{ continue; }}
        for (var ki = 0; ki < g.kh; ki++) {{
            let y = h + g.ph - ki * g.dh;
            if (y < 0 || y % g.sh != 0 || y / g.sh >= g.oh) {{ continue; }}
            for (var kj = 0; kj < g.kw; kj++) {{
                let x = w + g.pw - kj * g.dw;
                if (x < 0 || x % g.sw != 0 || x / g.sw >= g.ow) {{ continue; }}
                let tap = (kz * g.kh + ki) * g.kw + kj;
                let l = ((t / g.sd) * g.oh + y / g.sh) * g.ow + x / g.sw;
                acc += cols[base + tap * windows + l];
            }}
        }}
    }}
    out[i] = acc;
}}
"#,
        index = prelude::INDEX,
        geometry = GEOMETRY,
    )
}

/// The windows of contiguous float volumes `(B, D, H, W)` as columns
/// `(B, kd * kh * kw, OD * OH * OW)`; positions outside the volumes read `pad_value`.
pub(crate) fn im2col3d(src: &Tensor, w: &Window3d, pad_value: f32) -> Result<Tensor> {
    let shape = [src.shape()[0], w.taps(), w.windows()];
    let out = Tensor::uninit(src.device(), &shape, DType::Float32)?;
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let mut params = vec![n as u32, src.storage_offset() as u32];
    params.extend(geometry(w));
    params.push(pad_value.to_bits());
    let kernel = Kernel {
        key: "im2col3d",
        source: &im2col3d_source,
        bounds_checked: true,
    };
    launch(src.device(), &kernel, &[&out, src], &params, groups_for(n))?;
    Ok(out)
}

/// Contiguous columns `(B, kd * kh * kw, OD * OH * OW)` summed back into volumes `(B, D, H, W)`.
pub(crate) fn col2im3d(cols: &Tensor, w: &Window3d) -> Result<Tensor> {
    let shape = [cols.shape()[0], w.input[0], w.input[1], w.input[2]];
    let out = Tensor::uninit(cols.device(), &shape, DType::Float32)?;
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let mut params = vec![n as u32, cols.storage_offset() as u32];
    params.extend(geometry(w));
    let kernel = Kernel {
        key: "col2im3d",
        source: &col2im3d_source,
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
