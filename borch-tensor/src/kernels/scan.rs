//! Inclusive scans along one dim (cumsum, cumprod) over a strided input into a new contiguous
//! tensor. Short rows: one thread walks each row. Long rows: one workgroup per row, each
//! thread folding a contiguous chunk, a scan of the 256 chunk totals in shared memory, then each
//! thread rewalking its chunk from its carry.

use std::fmt::Write;

use borch_device::Kernel;

use super::{groups_for, launch, prelude, w};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// Rows up to this length are scanned by one thread each.
const THREAD_ROW_MAX: usize = 256;

/// An inclusive scan: elements converted to `compute`, combined by `combine` (of `a`, `b`)
/// from `identity`; the result has `compute`'s dtype.
pub(crate) struct ScanSpec {
    pub compute: DType,
    pub identity: String,
    pub combine: String,
}

/// The source of a scan over an input of dtype `input`, by workgroups per row (`wg`) or threads.
pub(crate) fn source(spec: &ScanSpec, input: DType, wg: bool) -> String {
    let ct = spec.compute.wgsl();
    let mut s = String::new();
    s.push_str("@group(0) @binding(0) var<storage, read> p: array<u32>;\n");
    let _ = writeln!(
        s,
        "@group(0) @binding(1) var<storage, read_write> out: array<{ct}>;\n@group(0) @binding(2) var<storage, read> inp: array<{}>;",
        input.wgsl()
    );
    s.push_str(prelude::INDEX);
    let load = if input == spec.compute {
        "inp[i]".to_string()
    } else {
        format!("{ct}(inp[i])")
    };
    let _ = writeln!(
        s,
        "fn load(i: i32) -> {ct} {{ return {load}; }}\nfn comb(a: {ct}, b: {ct}) -> {ct} {{ return {}; }}",
        spec.combine
    );
    s.push_str(
        "fn offs(i: u32, rank: u32, shape_at: u32, stride_at: u32) -> i32 {
    var rem = i;
    var off = 0;
    for (var d = i32(rank) - 1; d >= 0; d = d - 1) {
        let ud = u32(d);
        let n = p[shape_at + ud];
        off = off + i32(rem % n) * sp(stride_at + ud);
        rem = rem / n;
    }
    return off;
}
",
    );
    if wg {
        let _ = writeln!(s, "var<workgroup> sh: array<{ct}, 256>;");
    }
    s.push_str("@compute @workgroup_size(256)\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    s.push_str(if wg {
        "    let o = wid.y * nwg.x + wid.x;\n"
    } else {
        "    let o = flat_index(wid, nwg, lid);\n"
    });
    // params: rows, row length, offset, kept rank, in stride, out stride, kept shape, kept
    // in-strides, kept out-strides.
    s.push_str(
        "    if (o >= p[0]) { return; }
    let n = p[1];
    let kr = p[3];
    let ist = sp(4u);
    let ost = sp(5u);
    let base = sp(2u) + offs(o, kr, 6u, 6u + kr);
    let obase = offs(o, kr, 6u, 6u + 2u * kr);
",
    );
    let id = &spec.identity;
    if wg {
        let _ = writeln!(
            s,
            "    let chunk = (n + 255u) / 256u;
    let lo = min(lid * chunk, n);
    let hi = min(lo + chunk, n);
    var acc = {id};
    for (var r = lo; r < hi; r = r + 1u) {{ acc = comb(acc, load(base + i32(r) * ist)); }}
    sh[lid] = acc;
    workgroupBarrier();
    for (var h = 1u; h < 256u; h = h << 1u) {{
        var v = {id};
        if (lid >= h) {{ v = sh[lid - h]; }}
        workgroupBarrier();
        sh[lid] = comb(v, sh[lid]);
        workgroupBarrier();
    }}
    var carry = {id};
    if (lid > 0u) {{ carry = sh[lid - 1u]; }}
    for (var r = lo; r < hi; r = r + 1u) {{
        carry = comb(carry, load(base + i32(r) * ist));
        out[obase + i32(r) * ost] = carry;
    }}"
        );
    } else {
        let _ = writeln!(
            s,
            "    var acc = {id};
    for (var r = 0u; r < n; r = r + 1u) {{
        acc = comb(acc, load(base + i32(r) * ist));
        out[obase + i32(r) * ost] = acc;
    }}"
        );
    }
    s.push_str("}\n");
    s
}

/// Scan `input` along `dim` (already wrapped; a 0-d tensor is one row of one element).
pub(crate) fn scan(spec: &ScanSpec, input: &Tensor, dim: usize) -> Result<Tensor> {
    let device = input.device().clone();
    let out = Tensor::uninit(&device, input.shape(), spec.compute)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let layout = input.layout();
    let out_strides = out.stride();
    let rank = layout.rank();
    let (n, ist, ost) = if rank == 0 {
        (1, 0, 0)
    } else {
        (layout.shape[dim], layout.strides[dim], out_strides[dim])
    };
    let kept: Vec<usize> = (0..rank).filter(|&d| d != dim).collect();
    let rows: usize = kept.iter().map(|&d| layout.shape[d]).product();
    let mut params: Vec<u32> = vec![
        rows as u32,
        n as u32,
        layout.offset as u32,
        kept.len() as u32,
        w(ist),
        w(ost),
    ];
    params.extend(kept.iter().map(|&d| layout.shape[d] as u32));
    params.extend(kept.iter().map(|&d| w(layout.strides[d])));
    params.extend(kept.iter().map(|&d| w(out_strides[d])));
    let wg = n > THREAD_ROW_MAX;
    let key = format!(
        "scan|{:?}|{:?}|{}|{}|{wg}",
        input.dtype(),
        spec.compute,
        spec.identity,
        spec.combine
    );
    let make_source = || source(spec, input.dtype(), wg);
    let kernel = Kernel {
        key: &key,
        source: &make_source,
        bounds_checked: true,
    };
    let groups = if wg { rows as u32 } else { groups_for(rows) };
    launch(&device, &kernel, &[&out, input], &params, groups)?;
    Ok(out)
}
