//! BatchNorm's kernels over a contiguous `(N, C, S)` input (S: the flattened spatial dims, 1
//! for `(N, C)`): per-channel statistics (one workgroup per channel, two passes over the
//! channel's values with a tree in workgroup memory, the running statistics blended in the same
//! kernel), the normalisation with the affine transform, the backward's per-channel sums
//! (with the weight and bias gradients) and the input gradient. Channels with more values
//! than `batch_norm_split::parts` allows in one workgroup reduce in chunks (one dispatch more). Statistics are `[2C]`: the
//! means, then the inverse standard deviations.

use borch_device::Kernel;

use super::batch_norm_split as split;
use super::{groups_for, launch, prelude};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// Where a kernel reads a channel's mean and inverse standard deviation: the batch's saved
/// statistics (training), or the running statistics (eval, `invstd = 1 / sqrt(var + eps)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatsFrom {
    Batch,
    Running,
}

/// Binding declarations numbered from 1 in order of `add`.
pub(crate) struct Bindings {
    pub(crate) decls: String,
    next: u32,
}

impl Bindings {
    pub(crate) fn new() -> Bindings {
        Bindings {
            decls: "@group(0) @binding(0) var<storage, read> p: array<u32>;\n".into(),
            next: 1,
        }
    }
    pub(crate) fn add(&mut self, name: &str, write: bool, ty: &str) {
        let access = if write { "read_write" } else { "read" };
        self.decls.push_str(&format!(
            "@group(0) @binding({}) var<storage, {access}> {name}: array<{ty}>;\n",
            self.next
        ));
        self.next += 1;
    }
}

/// Threads of a reduction's workgroup: 256 on GPUs, 32 on software adapters, where every
/// `workgroupBarrier` switches between all of a workgroup's invocations (SwiftShader runs a
/// 256-thread tree sum's ten barriers slower than the loads it reduces).
pub(crate) fn reduce_threads(device: &borch_device::Device) -> u32 {
    if device.adapter_info().is_software {
        32
    } else {
        256
    }
}

/// The tree sum of one value per thread over `threads` threads (every thread gets the total),
/// with the `pf` params reader.
pub(crate) fn tree(threads: u32) -> String {
    format!(
        r#"
var<workgroup> red: array<f32, {threads}>;
fn tree_sum(lid: u32, v: f32) -> f32 {{
    red[lid] = v;
    workgroupBarrier();
    for (var s = {half}u; s > 0u; s = s >> 1u) {{
        if (lid < s) {{ red[lid] = red[lid] + red[lid + s]; }}
        workgroupBarrier();
    }}
    let total = red[0];
    workgroupBarrier();
    return total;
}}
fn pf(i: u32) -> f32 {{ return bitcast<f32>(p[i]); }}
"#,
        half = threads / 2
    )
}

/// The entry point of a reduction over `threads` threads.
pub(crate) fn reduce_main(threads: u32) -> String {
    MAIN_WG.replace(
        "@workgroup_size(256)",
        &format!("@workgroup_size({threads})"),
    )
}

pub(crate) const MAIN_WG: &str = "@compute @workgroup_size(256)\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n";

/// Reads of a channel's mean `mu` and inverse standard deviation `inv` (in WGSL) for `from`.
pub(crate) fn stats_read(from: StatsFrom) -> &'static str {
    match from {
        StatsFrom::Batch => "    let mu = st[c];\n    let inv = st[p[1] + c];\n",
        StatsFrom::Running => {
            "    let mu = rm[sp(7u) + i32(c)];\n    let inv = 1.0 / sqrt(rv[sp(8u) + i32(c)] + pf(4u));\n"
        }
    }
}

pub(crate) fn stats_bindings(b: &mut Bindings, from: StatsFrom) {
    match from {
        StatsFrom::Batch => b.add("st", false, "f32"),
        StatsFrom::Running => {
            b.add("rm", false, "f32");
            b.add("rv", false, "f32");
        }
    }
}

/// How the stats kernel blends the running statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Blend {
    None,
    /// `momentum` (params word 5).
    Value,
    /// `1 / num_batches_tracked` (an int64 tensor, read on the device).
    Cumulative,
}

/// The running statistics' blend (WGSL, in a `lid == 0u` / per-channel block) from `mean`,
/// the biased `vr` over `count` values of channel `c`.
pub(crate) fn update_source(blend: Blend) -> String {
    match blend {
        Blend::None => String::new(),
        _ => format!(
            r#"        let m = {m};
        let unbiased = vr * f32(count) / f32(max(count, 2u) - 1u);
        let ro = sp(6u) + i32(c);
        let vo = sp(7u) + i32(c);
        rm[ro] = m * mean + (1.0 - m) * rm[ro];
        rv[vo] = m * unbiased + (1.0 - m) * rv[vo];
"#,
            m = if blend == Blend::Value {
                "pf(5u)"
            } else {
                "1.0 / f32(nbt[sp(8u)] + sp(9u))"
            }
        ),
    }
}

/// Params: N, C, S, x offset, eps, momentum, running_mean / running_var / count offsets, 1
/// where the count is incremented later (by the normalisation) and 0 where it already was.
pub(crate) fn stats_source(blend: Blend, threads: u32) -> String {
    let mut b = Bindings::new();
    b.add("st", true, "f32");
    b.add("x", false, "f32");
    if blend != Blend::None {
        b.add("rm", true, "f32");
        b.add("rv", true, "f32");
    }
    if blend == Blend::Cumulative {
        b.add("nbt", false, "i32");
    }
    let update = update_source(blend);
    format!(
        r#"{decls}{index}{tree}{main}    let c = wid.y * nwg.x + wid.x;
    if (c >= p[1]) {{ return; }}
    let s = p[2];
    let count = p[0] * s;
    let base = sp(3u) + i32(c * s);
    let step = i32(p[1] * s);
    var acc = 0.0;
    for (var i = lid; i < count; i = i + {threads}u) {{
        acc = acc + x[base + i32(i / s) * step + i32(i % s)];
    }}
    let mean = tree_sum(lid, acc) / f32(count);
    var dev = 0.0;
    for (var i = lid; i < count; i = i + {threads}u) {{
        let d = x[base + i32(i / s) * step + i32(i % s)] - mean;
        dev = dev + d * d;
    }}
    let vr = tree_sum(lid, dev) / f32(count);
    if (lid == 0u) {{
        st[c] = mean;
        st[p[1] + c] = 1.0 / sqrt(vr + pf(4u));
{update}    }}
}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
        tree = tree(threads),
        main = reduce_main(threads),
    )
}

/// The normalisation `x * alpha + beta` (torch's `alpha = invstd * weight`, `beta = bias -
/// mean * alpha`). Params: total, C, S, x offset, eps, weight offset, bias offset, running
/// mean / var offsets, count offset. With `count`, thread 0 also adds 1 to
/// `num_batches_tracked` (after the statistics kernel read it).
pub(crate) fn apply_source(from: StatsFrom, weight: bool, bias: bool, count: bool) -> String {
    let mut b = Bindings::new();
    b.add("out", true, "f32");
    b.add("x", false, "f32");
    stats_bindings(&mut b, from);
    if weight {
        b.add("w", false, "f32");
    }
    if bias {
        b.add("bi", false, "f32");
    }
    if count {
        b.add("nbt", true, "i32");
    }
    let tick = if count {
        "    if (i == 0u) { nbt[sp(9u)] = nbt[sp(9u)] + 1; }\n"
    } else {
        ""
    };
    let alpha = if weight {
        "inv * w[sp(5u) + i32(c)]"
    } else {
        "inv"
    };
    let beta = if bias {
        "bi[sp(6u) + i32(c)] - mu * alpha"
    } else {
        "-mu * alpha"
    };
    format!(
        r#"{decls}{index}fn pf(i: u32) -> f32 {{ return bitcast<f32>(p[i]); }}
{MAIN_WG}    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) {{ return; }}
{tick}    let c = (i / p[2]) % p[1];
{read}    let alpha = {alpha};
    let beta = {beta};
    out[i] = x[sp(3u) + i32(i)] * alpha + beta;
}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
        read = stats_read(from),
    )
}

/// Per channel: `sum(g)` and `sum(g * (x - mean))` into `sums` (`[2C]`), and the weight
/// gradient `sum(g * x_hat)` and bias gradient `sum(g)` where asked. Params: N, C, S, x offset,
/// eps, g offset, (unused), running mean / var offsets.
pub(crate) fn sums_source(from: StatsFrom, gw: bool, gb: bool, threads: u32) -> String {
    let mut b = Bindings::new();
    b.add("sums", true, "f32");
    b.add("g", false, "f32");
    b.add("x", false, "f32");
    stats_bindings(&mut b, from);
    if gw {
        b.add("gw", true, "f32");
    }
    if gb {
        b.add("gb", true, "f32");
    }
    let mut writes = String::new();
    if gw {
        writes.push_str("        gw[c] = dot * inv;\n");
    }
    if gb {
        writes.push_str("        gb[c] = sg;\n");
    }
    format!(
        r#"{decls}{index}{tree}{main}    let c = wid.y * nwg.x + wid.x;
    if (c >= p[1]) {{ return; }}
{read}    let s = p[2];
    let count = p[0] * s;
    let off = i32(c * s);
    let step = i32(p[1] * s);
    var a = 0.0;
    var d = 0.0;
    for (var i = lid; i < count; i = i + {threads}u) {{
        let j = off + i32(i / s) * step + i32(i % s);
        let gv = g[sp(5u) + j];
        a = a + gv;
        d = d + gv * (x[sp(3u) + j] - mu);
    }}
    let sg = tree_sum(lid, a);
    let dot = tree_sum(lid, d);
    if (lid == 0u) {{
        sums[c] = sg;
        sums[p[1] + c] = dot;
{writes}    }}
}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
        tree = tree(threads),
        main = reduce_main(threads),
        read = stats_read(from),
    )
}

/// The input gradient. Training (torch's formula): `(g - sum(g) / n - (x - mean) * sum(g * (x -
/// mean)) * invstd^2 / n) * invstd * weight`; eval: `g * invstd * weight`. Params: total, C,
/// S, x offset, eps, weight offset, g offset, running mean / var offsets, n.
pub(crate) fn grad_input_source(from: StatsFrom, weight: bool) -> String {
    let mut b = Bindings::new();
    b.add("dx", true, "f32");
    b.add("g", false, "f32");
    let train = from == StatsFrom::Batch;
    if train {
        b.add("x", false, "f32");
        b.add("sums", false, "f32");
    }
    if train {
        stats_bindings(&mut b, from);
    } else {
        // Eval reads only the running variance.
        b.add("rv", false, "f32");
    }
    if weight {
        b.add("w", false, "f32");
    }
    let w = if weight { "w[sp(5u) + i32(c)]" } else { "1.0" };
    let read = if train {
        stats_read(from).to_string()
    } else {
        "    let inv = 1.0 / sqrt(rv[sp(8u) + i32(c)] + pf(4u));\n".to_string()
    };
    let value = if train {
        r#"    let n = f32(p[9]);
    let k = sums[p[1] + c] * inv * inv / n;
    let gm = sums[c] / n;
    dx[i] = (gv - gm - (x[sp(3u) + i32(i)] - mu) * k) * inv * wc;"#
    } else {
        "    dx[i] = gv * inv * wc;"
    };
    format!(
        r#"{decls}{index}fn pf(i: u32) -> f32 {{ return bitcast<f32>(p[i]); }}
{MAIN_WG}    let i = flat_index(wid, nwg, lid);
    if (i >= p[0]) {{ return; }}
    let c = (i / p[2]) % p[1];
{read}    let wc = {w};
    let gv = g[sp(6u) + i32(i)];
{value}
}}
"#,
        decls = b.decls,
        index = prelude::INDEX,
    )
}

/// The tensors a kernel reads for a channel's statistics.
pub(crate) enum StatsIn<'a> {
    Batch(&'a Tensor),
    Running { mean: &'a Tensor, var: &'a Tensor },
}

impl StatsIn<'_> {
    fn from(&self) -> StatsFrom {
        match self {
            StatsIn::Batch(_) => StatsFrom::Batch,
            StatsIn::Running { .. } => StatsFrom::Running,
        }
    }
    fn tensors(&self) -> Vec<&Tensor> {
        match self {
            StatsIn::Batch(t) => vec![*t],
            StatsIn::Running { mean, var } => vec![*mean, *var],
        }
    }
    fn offsets(&self) -> [u32; 2] {
        match self {
            StatsIn::Batch(_) => [0, 0],
            StatsIn::Running { mean, var } => {
                [mean.storage_offset() as u32, var.storage_offset() as u32]
            }
        }
    }
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

/// The running statistics to blend, with the blend's factor.
pub(crate) struct Running<'a> {
    pub mean: &'a Tensor,
    pub var: &'a Tensor,
    pub momentum: f64,
    /// `num_batches_tracked` for the cumulative average (then `momentum` is unused).
    pub count: Option<&'a Tensor>,
}

/// `[N, C, S]` sizes of a contiguous input.
pub(crate) type Dims = [usize; 3];

/// The batch statistics `[2C]` of contiguous `x`, blending `running` in the same dispatch.
pub(crate) fn stats(
    x: &Tensor,
    [n, c, s]: Dims,
    eps: f64,
    running: Option<&Running>,
    pending: bool,
) -> Result<Tensor> {
    let st = Tensor::uninit(x.device(), &[2 * c], DType::Float32)?;
    let blend = match running {
        None => Blend::None,
        Some(r) if r.count.is_some() => Blend::Cumulative,
        Some(_) => Blend::Value,
    };
    let off = |t: Option<&Tensor>| t.map_or(0, |t| t.storage_offset() as u32);
    let params = [
        n as u32,
        c as u32,
        s as u32,
        x.storage_offset() as u32,
        (eps as f32).to_bits(),
        (running.map_or(0.0, |r| r.momentum) as f32).to_bits(),
        off(running.map(|r| r.mean)),
        off(running.map(|r| r.var)),
        off(running.and_then(|r| r.count)),
        u32::from(pending),
    ];
    let mut tensors = vec![&st, x];
    if let Some(r) = running {
        tensors.push(r.mean);
        tensors.push(r.var);
        tensors.extend(r.count);
    }
    let parts = split::parts(n * s);
    if parts > 1 {
        split::stats(x, &st, c, parts, blend, running, &params)?;
        return Ok(st);
    }
    let threads = reduce_threads(x.device());
    let key = format!("batch_norm_stats|{blend:?}|t{threads}");
    run(
        x,
        &key,
        &|| stats_source(blend, threads),
        &tensors,
        &params,
        c as u32,
    )?;
    Ok(st)
}

/// The normalised, affine-transformed `x` (contiguous, of `x`'s shape).
pub(crate) fn apply(
    x: &Tensor,
    [_, c, s]: Dims,
    eps: f64,
    stats: &StatsIn,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    count: Option<&Tensor>,
) -> Result<Tensor> {
    let out = Tensor::uninit(x.device(), x.shape(), DType::Float32)?;
    let total = out.numel();
    let [rmo, rvo] = stats.offsets();
    let off = |t: Option<&Tensor>| t.map_or(0, |t| t.storage_offset() as u32);
    let params = [
        total as u32,
        c as u32,
        s as u32,
        x.storage_offset() as u32,
        (eps as f32).to_bits(),
        off(weight),
        off(bias),
        rmo,
        rvo,
        off(count),
    ];
    let mut tensors = vec![&out, x];
    tensors.extend(stats.tensors());
    tensors.extend(weight);
    tensors.extend(bias);
    tensors.extend(count);
    let (from, w, b, k) = (
        stats.from(),
        weight.is_some(),
        bias.is_some(),
        count.is_some(),
    );
    let key = format!("batch_norm_apply|{from:?}|{w}|{b}|{k}");
    run(
        x,
        &key,
        &|| apply_source(from, w, b, k),
        &tensors,
        &params,
        groups_for(total),
    )?;
    Ok(out)
}

/// The backward's per-channel sums `[2C]` and the weight / bias gradients where asked.
pub(crate) fn sums(
    g: &Tensor,
    x: &Tensor,
    [n, c, s]: Dims,
    eps: f64,
    stats: &StatsIn,
    want: [bool; 2],
) -> Result<(Tensor, Option<Tensor>, Option<Tensor>)> {
    let dev = x.device();
    let sums = Tensor::uninit(dev, &[2 * c], DType::Float32)?;
    let make = |on: bool| {
        on.then(|| Tensor::uninit(dev, &[c], DType::Float32))
            .transpose()
    };
    let (gw, gb) = (make(want[0])?, make(want[1])?);
    let [rmo, rvo] = stats.offsets();
    let params = [
        n as u32,
        c as u32,
        s as u32,
        x.storage_offset() as u32,
        (eps as f32).to_bits(),
        g.storage_offset() as u32,
        0,
        rmo,
        rvo,
    ];
    let parts = split::parts(n * s);
    if parts > 1 {
        let grads = [gw.as_ref(), gb.as_ref()];
        let st = stats.tensors();
        split::sums(g, x, stats, &st, [&sums], grads, c, parts, &params)?;
        return Ok((sums, gw, gb));
    }
    let mut tensors = vec![&sums, g, x];
    tensors.extend(stats.tensors());
    tensors.extend(gw.as_ref());
    tensors.extend(gb.as_ref());
    let from = stats.from();
    let threads = reduce_threads(x.device());
    let key = format!(
        "batch_norm_sums|{from:?}|{}|{}|t{threads}",
        want[0], want[1]
    );
    let source = || sums_source(from, want[0], want[1], threads);
    run(x, &key, &source, &tensors, &params, c as u32)?;
    Ok((sums, gw, gb))
}

/// The input gradient; `x` and `sums` are read in training only.
#[allow(clippy::too_many_arguments)]
pub(crate) fn grad_input(
    g: &Tensor,
    x: &Tensor,
    [n, c, s]: Dims,
    eps: f64,
    stats: &StatsIn,
    sums: Option<&Tensor>,
    weight: Option<&Tensor>,
) -> Result<Tensor> {
    let dx = Tensor::uninit(g.device(), g.shape(), DType::Float32)?;
    let total = dx.numel();
    let [rmo, rvo] = stats.offsets();
    let params = [
        total as u32,
        c as u32,
        s as u32,
        x.storage_offset() as u32,
        (eps as f32).to_bits(),
        weight.map_or(0, |t| t.storage_offset() as u32),
        g.storage_offset() as u32,
        rmo,
        rvo,
        (n * s) as u32,
    ];
    let from = stats.from();
    let mut tensors = vec![&dx, g];
    match stats {
        StatsIn::Batch(st) => {
            tensors.push(x);
            tensors.extend(sums);
            tensors.push(st);
        }
        StatsIn::Running { var, .. } => tensors.push(var),
    }
    tensors.extend(weight);
    let wt = weight.is_some();
    let key = format!("batch_norm_grad_input|{from:?}|{wt}");
    let source = || grad_input_source(from, wt);
    run(g, &key, &source, &tensors, &params, groups_for(total))?;
    Ok(dx)
}

/// Every specialisation's WGSL, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for threads in [32, 256] {
        for blend in [Blend::None, Blend::Value, Blend::Cumulative] {
            let key = format!("batch_norm_stats|{blend:?}|t{threads}");
            out.push((key, stats_source(blend, threads)));
        }
    }
    for from in [StatsFrom::Batch, StatsFrom::Running] {
        for w in [false, true] {
            for b in [false, true] {
                for k in [false, true] {
                    let key = format!("batch_norm_apply|{from:?}|{w}|{b}|{k}");
                    out.push((key, apply_source(from, w, b, k)));
                }
                for threads in [32, 256] {
                    out.push((
                        format!("batch_norm_sums|{from:?}|{w}|{b}|t{threads}"),
                        sums_source(from, w, b, threads),
                    ));
                }
            }
            out.push((
                format!("batch_norm_grad_input|{from:?}|{w}"),
                grad_input_source(from, w),
            ));
        }
    }
    out
}
