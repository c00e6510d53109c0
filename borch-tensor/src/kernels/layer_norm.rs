//! LayerNorm's kernels over a contiguous `(R, D)` input (R rows of the D normalised values):
//! the forward (one workgroup per row: the mean, then the biased variance, then the
//! normalisation with the affine transform, the row's mean and inverse standard deviation
//! saved), the input gradient (one workgroup per row) and the weight and bias gradients
//! (column sums over chunks of rows, then one reduction over the chunks). Statistics are
//! `[2R]`: the means, then the inverse standard deviations.

use borch_device::Kernel;

use super::batch_norm::{Bindings, reduce_main, reduce_threads, tree};
use super::{dispatch_grid, launch, prelude};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// Rows per chunk of the weight and bias gradients' first pass.
const CHUNK_ROWS: usize = 64;
const MAX_CHUNKS: usize = 256;

fn row_start() -> &'static str {
    "    let r = wid.y * nwg.x + wid.x;\n    if (r >= p[0]) { return; }\n    let d = p[1];\n"
}

/// Params: rows, D, eps, x offset, weight offset, bias offset.
pub(crate) fn forward_source(weight: bool, bias: bool, threads: u32) -> String {
    let mut b = Bindings::new();
    b.add("y", true, "f32");
    b.add("st", true, "f32");
    b.add("x", false, "f32");
    if weight {
        b.add("w", false, "f32");
    }
    if bias {
        b.add("bi", false, "f32");
    }
    let scale = if weight {
        "        v = v * w[sp(4u) + i32(j)];\n"
    } else {
        ""
    };
    let shift = if bias {
        "        v = v + bi[sp(5u) + i32(j)];\n"
    } else {
        ""
    };
    format!(
        r#"{decls}{index}{tree}{main}{start}    let base = sp(3u) + i32(r * d);
    var acc = 0.0;
    for (var j = lid; j < d; j = j + {threads}u) {{ acc = acc + x[base + i32(j)]; }}
    let mean = tree_sum(lid, acc) / f32(d);
    var dev = 0.0;
    for (var j = lid; j < d; j = j + {threads}u) {{
        let t = x[base + i32(j)] - mean;
        dev = dev + t * t;
    }}
    let inv = 1.0 / sqrt(tree_sum(lid, dev) / f32(d) + pf(2u));
    for (var j = lid; j < d; j = j + {threads}u) {{
        var v = (x[base + i32(j)] - mean) * inv;
{scale}{shift}        y[r * d + j] = v;
    }}
    if (lid == 0u) {{
        st[r] = mean;
        st[p[0] + r] = inv;
    }}
}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
        tree = tree(threads),
        main = reduce_main(threads),
        start = row_start(),
    )
}

/// `inv * (gw - mean(gw) - xhat * mean(gw * xhat))` with `gw = g * weight`. Params: rows, D,
/// g offset, x offset, weight offset.
pub(crate) fn grad_input_source(weight: bool, threads: u32) -> String {
    let mut b = Bindings::new();
    b.add("gx", true, "f32");
    b.add("g", false, "f32");
    b.add("x", false, "f32");
    b.add("st", false, "f32");
    if weight {
        b.add("w", false, "f32");
    }
    let gw = if weight {
        "g[gb + i32(j)] * w[sp(4u) + i32(j)]"
    } else {
        "g[gb + i32(j)]"
    };
    format!(
        r#"{decls}{index}{tree}{main}{start}    let gb = sp(2u) + i32(r * d);
    let xb = sp(3u) + i32(r * d);
    let mean = st[r];
    let inv = st[p[0] + r];
    var s1 = 0.0;
    var s2 = 0.0;
    for (var j = lid; j < d; j = j + {threads}u) {{
        let gw = {gw};
        s1 = s1 + gw;
        s2 = s2 + gw * (x[xb + i32(j)] - mean) * inv;
    }}
    let m1 = tree_sum(lid, s1) / f32(d);
    let m2 = tree_sum(lid, s2) / f32(d);
    for (var j = lid; j < d; j = j + {threads}u) {{
        let gw = {gw};
        let xh = (x[xb + i32(j)] - mean) * inv;
        gx[r * d + j] = inv * (gw - m1 - xh * m2);
    }}
}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
        tree = tree(threads),
        main = reduce_main(threads),
        start = row_start(),
    )
}

/// Per chunk of rows and column: the sums of `g * xhat` and of `g`, written to
/// `part[chunk][0..D]` and `part[chunk][D..2D]`. Params: rows, D, g offset, x offset, rows per
/// chunk.
pub(crate) fn affine_partial_source() -> String {
    let mut b = Bindings::new();
    b.add("part", true, "f32");
    b.add("g", false, "f32");
    b.add("x", false, "f32");
    b.add("st", false, "f32");
    format!(
        r#"{decls}{index}@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
    let d = p[1];
    let c = wid.x * 256u + lid;
    if (c >= d) {{ return; }}
    let first = wid.y * p[4];
    let last = min(first + p[4], p[0]);
    var sw = 0.0;
    var sb = 0.0;
    for (var r = first; r < last; r = r + 1u) {{
        let gv = g[sp(2u) + i32(r * d + c)];
        let xh = (x[sp(3u) + i32(r * d + c)] - st[r]) * st[p[0] + r];
        sw = sw + gv * xh;
        sb = sb + gv;
    }}
    part[wid.y * 2u * d + c] = sw;
    part[wid.y * 2u * d + d + c] = sb;
}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
    )
}

fn run(
    key: &str,
    source: &dyn Fn() -> String,
    tensors: &[&Tensor],
    params: &[u32],
    rows: usize,
) -> Result<()> {
    let kernel = Kernel {
        key,
        source,
        bounds_checked: true,
    };
    launch(tensors[0].device(), &kernel, tensors, params, rows as u32)
}

fn offset(t: Option<&Tensor>) -> u32 {
    t.map_or(0, |t| t.storage_offset() as u32)
}

/// `(y, stats)` of contiguous `x` viewed as `(rows, d)`; `w` and `b` contiguous of `d` values.
pub(crate) fn forward(
    x: &Tensor,
    rows: usize,
    d: usize,
    eps: f64,
    w: Option<&Tensor>,
    b: Option<&Tensor>,
) -> Result<(Tensor, Tensor)> {
    let device = x.device().clone();
    let y = Tensor::uninit(&device, x.shape(), DType::Float32)?;
    let st = Tensor::uninit(&device, &[2 * rows], DType::Float32)?;
    let mut bound = vec![&y, &st, x];
    bound.extend(w);
    bound.extend(b);
    let params = [
        rows as u32,
        d as u32,
        (eps as f32).to_bits(),
        x.storage_offset() as u32,
        offset(w),
        offset(b),
    ];
    let (hw, hb) = (w.is_some(), b.is_some());
    let t = reduce_threads(&device);
    let key = format!("layer_norm_forward|{hw}|{hb}|t{t}");
    run(&key, &|| forward_source(hw, hb, t), &bound, &params, rows)?;
    Ok((y, st))
}

/// The input gradient from contiguous `g` and `x` (`(rows, d)`), the saved statistics and `w`.
pub(crate) fn grad_input(
    g: &Tensor,
    x: &Tensor,
    st: &Tensor,
    rows: usize,
    d: usize,
    w: Option<&Tensor>,
) -> Result<Tensor> {
    let gx = Tensor::uninit(g.device(), x.shape(), DType::Float32)?;
    let mut bound = vec![&gx, g, x, st];
    bound.extend(w);
    let params = [
        rows as u32,
        d as u32,
        g.storage_offset() as u32,
        x.storage_offset() as u32,
        offset(w),
    ];
    let hw = w.is_some();
    let t = reduce_threads(g.device());
    let key = format!("layer_norm_grad_input|{hw}|t{t}");
    run(&key, &|| grad_input_source(hw, t), &bound, &params, rows)?;
    Ok(gx)
}

/// `(sum over rows of g * xhat, sum over rows of g)`, each of `d` values.
pub(crate) fn grad_affine(
    g: &Tensor,
    x: &Tensor,
    st: &Tensor,
    rows: usize,
    d: usize,
) -> Result<(Tensor, Tensor)> {
    let chunks = rows.div_ceil(CHUNK_ROWS).clamp(1, MAX_CHUNKS);
    let per_chunk = rows.div_ceil(chunks);
    let part = Tensor::uninit(g.device(), &[chunks, 2 * d], DType::Float32)?;
    let params = [
        rows as u32,
        d as u32,
        g.storage_offset() as u32,
        x.storage_offset() as u32,
        per_chunk as u32,
    ];
    let kernel = Kernel {
        key: "layer_norm_affine_partial",
        source: &affine_partial_source,
        bounds_checked: true,
    };
    let grid = [d.div_ceil(256) as u32, chunks as u32, 1];
    dispatch_grid(g.device(), &kernel, &[&part, g, x, st], &params, grid)?;
    let sums = part.sum(Some(&[0]), false)?;
    Ok((sums.narrow(0, 0, d)?, sums.narrow(0, d as isize, d)?))
}

/// Every specialisation's WGSL, for validation without a GPU.
pub(crate) fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for t in [32, 256] {
        for w in [false, true] {
            for b in [false, true] {
                let key = format!("layer_norm_forward|{w}|{b}|t{t}");
                out.push((key, forward_source(w, b, t)));
            }
            let key = format!("layer_norm_grad_input|{w}|t{t}");
            out.push((key, grad_input_source(w, t)));
        }
    }
    out.push(("layer_norm_affine_partial".into(), affine_partial_source()));
    out
}
