//! BatchNorm's reductions where a channel has more values than one workgroup should loop over
//! (`parts > 1`): each channel split into `parts` chunks, one workgroup per chunk writing a
//! partial result, then one thread per channel combining them (the statistics by Chan's
//! parallel formula from each chunk's count, mean and sum of squared deviations; the
//! backward's sums by adding). One dispatch more than the unsplit kernels.

use super::batch_norm::{
    Bindings, Blend, MAIN_WG, Running, StatsFrom, StatsIn, reduce_main, reduce_threads,
    stats_bindings, stats_read, tree, update_source,
};
use super::{groups_for, launch, prelude};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use borch_device::Kernel;

/// Values per chunk, and the most values a channel takes unsplit.
const CHUNK: usize = 1024;
const UNSPLIT: usize = 2048;

/// The number of chunks per channel for `count` values (1: unsplit).
pub(crate) fn parts(count: usize) -> usize {
    if count <= UNSPLIT {
        1
    } else {
        count.div_ceil(CHUNK).min(1024)
    }
}

/// The chunk of workgroup `wg` (`c`, `lo..hi` within the channel's `count` values), for
/// partial kernels whose params hold `parts` at `pi` and the chunk length at `pi + 1`.
fn chunk_head(pi: u32) -> String {
    format!(
        r#"    let wg = wid.y * nwg.x + wid.x;
    let parts = p[{pi}u];
    if (wg >= p[1] * parts) {{ return; }}
    let c = wg / parts;
    let s = p[2];
    let count = p[0] * s;
    let lo = min((wg % parts) * p[{ci}u], count);
    let hi = min(lo + p[{ci}u], count);
    let off = i32(c * s);
    let step = i32(p[1] * s);
"#,
        ci = pi + 1
    )
}

/// Per chunk: its count, mean and sum of squared deviations into `part[3 * wg ..]`.
/// Params: the stats kernel's, then parts (10) and the chunk length (11).
pub(crate) fn partial_stats_source(threads: u32) -> String {
    let mut b = Bindings::new();
    b.add("part", true, "f32");
    b.add("x", false, "f32");
    format!(
        r#"{decls}{index}{tree}{main}{head}    let base = sp(3u) + off;
    var acc = 0.0;
    for (var i = lo + lid; i < hi; i = i + {threads}u) {{
        acc = acc + x[base + i32(i / s) * step + i32(i % s)];
    }}
    let n = f32(hi - lo);
    let mean = tree_sum(lid, acc) / max(n, 1.0);
    var dev = 0.0;
    for (var i = lo + lid; i < hi; i = i + {threads}u) {{
        let d = x[base + i32(i / s) * step + i32(i % s)] - mean;
        dev = dev + d * d;
    }}
    let m2 = tree_sum(lid, dev);
    if (lid == 0u) {{
        part[3u * wg] = n;
        part[3u * wg + 1u] = mean;
        part[3u * wg + 2u] = m2;
    }}
}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
        tree = tree(threads),
        main = reduce_main(threads),
        head = chunk_head(10),
    )
}

/// One thread per channel: the chunks combined, the statistics written and the running ones
/// blended (the stats kernel's params).
pub(crate) fn combine_stats_source(blend: Blend) -> String {
    let mut b = Bindings::new();
    b.add("st", true, "f32");
    b.add("part", false, "f32");
    if blend != Blend::None {
        b.add("rm", true, "f32");
        b.add("rv", true, "f32");
    }
    if blend == Blend::Cumulative {
        b.add("nbt", false, "i32");
    }
    format!(
        r#"{decls}{index}fn pf(i: u32) -> f32 {{ return bitcast<f32>(p[i]); }}
{MAIN_WG}    let c = flat_index(wid, nwg, lid);
    if (c >= p[1]) {{ return; }}
    let parts = p[10];
    let count = p[0] * p[2];
    var n = 0.0;
    var mean = 0.0;
    var m2 = 0.0;
    for (var k = 0u; k < parts; k = k + 1u) {{
        let j = 3u * (c * parts + k);
        let nb = part[j];
        if (nb > 0.0) {{
            let total = n + nb;
            let delta = part[j + 1u] - mean;
            mean = mean + delta * nb / total;
            m2 = m2 + part[j + 2u] + delta * delta * n * nb / total;
            n = total;
        }}
    }}
    let vr = m2 / f32(count);
    st[c] = mean;
    st[p[1] + c] = 1.0 / sqrt(vr + pf(4u));
{update}}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
        update = update_source(blend),
    )
}

/// Per chunk: `sum(g)` and `sum(g * (x - mean))` into `part[2 * wg ..]`. Params: the sums
/// kernel's, then parts (9) and the chunk length (10).
pub(crate) fn partial_sums_source(from: StatsFrom, threads: u32) -> String {
    let mut b = Bindings::new();
    b.add("part", true, "f32");
    b.add("g", false, "f32");
    b.add("x", false, "f32");
    stats_bindings(&mut b, from);
    format!(
        r#"{decls}{index}{tree}{main}{head}{read}    var a = 0.0;
    var d = 0.0;
    for (var i = lo + lid; i < hi; i = i + {threads}u) {{
        let j = off + i32(i / s) * step + i32(i % s);
        let gv = g[sp(5u) + j];
        a = a + gv;
        d = d + gv * (x[sp(3u) + j] - mu);
    }}
    let sg = tree_sum(lid, a);
    let dot = tree_sum(lid, d);
    if (lid == 0u) {{
        part[2u * wg] = sg;
        part[2u * wg + 1u] = dot;
    }}
}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
        tree = tree(threads),
        main = reduce_main(threads),
        head = chunk_head(9),
        read = stats_read(from),
    )
}

/// One thread per channel: the chunks' sums added into `sums`, and the weight / bias
/// gradients where asked.
pub(crate) fn combine_sums_source(from: StatsFrom, gw: bool, gb: bool) -> String {
    let mut b = Bindings::new();
    b.add("sums", true, "f32");
    b.add("part", false, "f32");
    stats_bindings(&mut b, from);
    if gw {
        b.add("gw", true, "f32");
    }
    if gb {
        b.add("gb", true, "f32");
    }
    let mut writes = String::new();
    if gw {
        writes.push_str("    gw[c] = dot * inv;\n");
    }
    if gb {
        writes.push_str("    gb[c] = sg;\n");
    }
    format!(
        r#"{decls}{index}fn pf(i: u32) -> f32 {{ return bitcast<f32>(p[i]); }}
{MAIN_WG}    let c = flat_index(wid, nwg, lid);
    if (c >= p[1]) {{ return; }}
{read}    let parts = p[9];
    var sg = 0.0;
    var dot = 0.0;
    for (var k = 0u; k < parts; k = k + 1u) {{
        sg = sg + part[2u * (c * parts + k)];
        dot = dot + part[2u * (c * parts + k) + 1u];
    }}
    sums[c] = sg;
    sums[p[1] + c] = dot;
{writes}}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
        read = stats_read(from),
    )
}

fn run(
    x: &Tensor,
    key: &str,
    source: &dyn Fn() -> String,
    tensors: &[&Tensor],
    params: &[u32],
    groups: u32,
) -> Result<()> {
    let kernel = Kernel {
        key,
        source,
        bounds_checked: true,
    };
    launch(x.device(), &kernel, tensors, params, groups)
}

/// The split statistics: `params` are the stats kernel's; `st` receives them.
pub(crate) fn stats(
    x: &Tensor,
    st: &Tensor,
    c: usize,
    parts: usize,
    blend: Blend,
    running: Option<&Running>,
    params: &[u32],
) -> Result<()> {
    let part = Tensor::uninit(x.device(), &[3 * c * parts], DType::Float32)?;
    let count = params[0] as usize * params[2] as usize;
    let mut params = params.to_vec();
    params.extend([parts as u32, count.div_ceil(parts) as u32]);
    let groups = (c * parts) as u32;
    let threads = reduce_threads(x.device());
    run(
        x,
        &format!("batch_norm_partial_stats|t{threads}"),
        &|| partial_stats_source(threads),
        &[&part, x],
        &params,
        groups,
    )?;
    let mut tensors = vec![st, &part];
    if let Some(r) = running {
        tensors.push(r.mean);
        tensors.push(r.var);
        tensors.extend(r.count);
    }
    let key = format!("batch_norm_combine_stats|{blend:?}");
    let source = || combine_stats_source(blend);
    run(x, &key, &source, &tensors, &params, groups_for(c))
}

/// The split backward sums: `params` are the sums kernel's; `sums`, `gw`, `gb` receive them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sums(
    g: &Tensor,
    x: &Tensor,
    stats: &StatsIn,
    stat_tensors: &[&Tensor],
    out: [&Tensor; 1],
    grads: [Option<&Tensor>; 2],
    c: usize,
    parts: usize,
    params: &[u32],
) -> Result<()> {
    let part = Tensor::uninit(x.device(), &[2 * c * parts], DType::Float32)?;
    let count = params[0] as usize * params[2] as usize;
    let mut params = params.to_vec();
    params.extend([parts as u32, count.div_ceil(parts) as u32]);
    let from = match stats {
        StatsIn::Batch(_) => StatsFrom::Batch,
        StatsIn::Running { .. } => StatsFrom::Running,
    };
    let mut tensors = vec![&part, g, x];
    tensors.extend(stat_tensors);
    let threads = reduce_threads(x.device());
    let key = format!("batch_norm_partial_sums|{from:?}|t{threads}");
    let source = || partial_sums_source(from, threads);
    run(x, &key, &source, &tensors, &params, (c * parts) as u32)?;
    let mut tensors = vec![out[0], &part];
    tensors.extend(stat_tensors);
    tensors.extend(grads[0]);
    tensors.extend(grads[1]);
    let (w, b) = (grads[0].is_some(), grads[1].is_some());
    let key = format!("batch_norm_combine_sums|{from:?}|{w}|{b}");
    let source = || combine_sums_source(from, w, b);
    run(x, &key, &source, &tensors, &params, groups_for(c))
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = [32, 256]
        .map(|t| {
            (
                format!("batch_norm_partial_stats|t{t}"),
                partial_stats_source(t),
            )
        })
        .into();
    for blend in [Blend::None, Blend::Value, Blend::Cumulative] {
        let key = format!("batch_norm_combine_stats|{blend:?}");
        out.push((key, combine_stats_source(blend)));
    }
    for from in [StatsFrom::Batch, StatsFrom::Running] {
        for t in [32, 256] {
            out.push((
                format!("batch_norm_partial_sums|{from:?}|t{t}"),
                partial_sums_source(from, t),
            ));
        }
        for w in [false, true] {
            for b in [false, true] {
                let key = format!("batch_norm_combine_sums|{from:?}|{w}|{b}");
                out.push((key, combine_sums_source(from, w, b)));
            }
        }
    }
    out
}
