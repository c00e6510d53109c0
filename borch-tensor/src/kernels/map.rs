//! The one elementwise kernel: any expression over up to three strided, broadcast inputs
//! (tensors or scalars), written into a new contiguous tensor or into an existing view.

use std::fmt::Write;

use borch_device::Kernel;

use super::{groups_for, launch, prelude, w};
use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::layout::Layout;
use crate::scalar::Scalar;
use crate::tensor::{Tensor, device};

use crate::scalar::Operand;

impl Operand {
    /// The tensor's dtype, or the number's category (float32, int64, bool).
    pub fn dtype(&self) -> DType {
        match self {
            Operand::Tensor(t) => t.dtype(),
            Operand::Scalar(s) => s.dtype(),
        }
    }
    /// The tensor's shape; a number's is `[]`.
    pub fn shape(&self) -> &[usize] {
        match self {
            Operand::Tensor(t) => t.shape(),
            Operand::Scalar(_) => &[],
        }
    }
}

/// What to compute: `expr` over `a`, `b`, `c` (inputs converted to `compute`) and `k0`, `k1`, …
/// (the extras, as `compute`); it yields `compute`, or `bool` when `result_bool`.
pub(crate) struct MapSpec<'a> {
    pub expr: &'a str,
    pub compute: DType,
    pub result_bool: bool,
    pub out_dtype: DType,
    pub extras: &'a [Scalar],
}

/// Where the result goes.
pub(crate) enum Dest<'a> {
    New(&'a [usize]),
    Into(&'a Tensor),
}

#[derive(Clone, Copy, PartialEq)]
enum InKind {
    Buffer(DType),
    Alias(DType),
    Scalar(DType),
}

fn compute_wgsl(c: DType) -> &'static str {
    if c == DType::Float32 { "f32" } else { "i32" }
}

fn convert(x: &str, from: DType, to: DType) -> String {
    match (from, to) {
        (DType::Float32, DType::Float32) | (DType::Int64, DType::Int64) => x.to_string(),
        (_, DType::Float32) => format!("f32({x})"),
        (_, _) => format!("i32({x})"),
    }
}

fn store(v: &str, compute: DType, result_bool: bool, out: DType) -> String {
    let out_t = out.wgsl();
    if result_bool {
        return format!("{out_t}({v})");
    }
    match (compute, out) {
        (c, o) if c == o => v.to_string(),
        (DType::Float32, DType::Bool) => format!("u32(truthy({v}))"),
        (_, DType::Bool) => format!("u32({v} != 0)"),
        _ => format!("{out_t}({v})"),
    }
}

fn source(spec: &MapSpec<'_>, kinds: &[InKind], flat: bool) -> String {
    let k = kinds.len();
    let e = spec.extras.len();
    let header = 3 + k + e;
    let mut s = String::new();
    s.push_str("@group(0) @binding(0) var<storage, read> p: array<u32>;\n");
    let _ = writeln!(
        s,
        "@group(0) @binding(1) var<storage, read_write> out: array<{}>;",
        spec.out_dtype.wgsl()
    );
    let mut binding = 2;
    for (j, kind) in kinds.iter().enumerate() {
        if let InKind::Buffer(dt) = kind {
            let _ = writeln!(
                s,
                "@group(0) @binding({binding}) var<storage, read> in{j}: array<{}>;",
                dt.wgsl()
            );
            binding += 1;
        }
    }
    s.push_str(prelude::INDEX);
    s.push_str(prelude::MATH);
    s.push_str("@compute @workgroup_size(256)\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {\n");
    s.push_str("    let i = flat_index(wid, nwg, lid);\n    if (i >= p[0]) { return; }\n");
    if flat {
        s.push_str("    let oo = sp(2u) + i32(i);\n");
        for j in 0..k {
            let _ = writeln!(s, "    let o{j} = sp({}u) + i32(i);", 3 + j);
        }
    } else {
        s.push_str("    let rank = p[1];\n    var rem = i;\n    var oo = sp(2u);\n");
        for j in 0..k {
            let _ = writeln!(s, "    var o{j} = sp({}u);", 3 + j);
        }
        s.push_str("    for (var d = i32(rank) - 1; d >= 0; d = d - 1) {\n");
        let _ = writeln!(
            s,
            "        let ud = u32(d);\n        let n = p[{header}u + ud];\n        let c = i32(rem % n);\n        rem = rem / n;\n        oo = oo + c * sp({header}u + rank + ud);"
        );
        for j in 0..k {
            let _ = writeln!(
                s,
                "        o{j} = o{j} + c * sp({header}u + {}u * rank + ud);",
                2 + j
            );
        }
        s.push_str("    }\n");
    }
    let names = ["a", "b", "c"];
    let ct = spec.compute;
    for (j, kind) in kinds.iter().enumerate() {
        let load = match kind {
            InKind::Buffer(dt) => convert(&format!("in{j}[o{j}]"), *dt, ct),
            InKind::Alias(dt) => convert(&format!("out[o{j}]"), *dt, ct),
            InKind::Scalar(dt) => {
                convert(&format!("bitcast<{}>(p[{}u])", dt.wgsl(), 3 + j), *dt, ct)
            }
        };
        let _ = writeln!(s, "    let {} = {load};", names[j]);
    }
    for x in 0..e {
        let _ = writeln!(
            s,
            "    let k{x} = bitcast<{}>(p[{}u]);",
            compute_wgsl(ct),
            3 + k + x
        );
    }
    let _ = writeln!(s, "    let v = {};", spec.expr);
    let _ = writeln!(
        s,
        "    out[oo] = {};\n}}",
        store("v", ct, spec.result_bool, spec.out_dtype)
    );
    s
}

/// The pipeline key: one string written in place (this runs for every elementwise op).
fn map_key(spec: &MapSpec<'_>, kinds: &[InKind], flat: bool) -> String {
    let mut key = String::with_capacity(48 + spec.expr.len());
    let _ = write!(
        key,
        "map|{}|{:?}|{}|{:?}|{}|[",
        spec.expr, spec.compute, spec.result_bool, spec.out_dtype, flat
    );
    for (i, k) in kinds.iter().enumerate() {
        let (tag, d) = match k {
            InKind::Buffer(d) => ('b', d),
            InKind::Alias(d) => ('a', d),
            InKind::Scalar(d) => ('s', d),
        };
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(key, "{sep}\"{tag}{}\"", d.name());
    }
    let _ = write!(key, "]|e{}", spec.extras.len());
    key
}

/// Run an elementwise kernel; `srcs` broadcast against each other (and against the destination).
pub(crate) fn map(spec: &MapSpec<'_>, srcs: &[Operand], dest: Dest<'_>) -> Result<Tensor> {
    let device = match srcs.iter().find_map(|s| match s {
        Operand::Tensor(t) => Some(t.device().clone()),
        Operand::Scalar(_) => None,
    }) {
        Some(d) => d,
        None => device()?,
    };
    for s in srcs {
        if let Operand::Tensor(t) = s {
            t.check_same_device_as(&device)?;
        }
    }
    let (out, shape) = match dest {
        Dest::New(shape) => (
            Tensor::uninit(&device, shape, spec.out_dtype)?,
            shape.to_vec(),
        ),
        Dest::Into(t) => {
            if t.dtype() != spec.out_dtype {
                return runtime(format!(
                    "result type {} can't be cast to the desired output type {}",
                    spec.out_dtype.scalar_type_name(),
                    t.dtype().scalar_type_name()
                ));
            }
            (t.clone(), t.shape().to_vec())
        }
    };
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let rank = shape.len();
    let mut kinds = Vec::with_capacity(srcs.len());
    let mut layouts: Vec<Option<Layout>> = Vec::with_capacity(srcs.len());
    let mut bound: Vec<Tensor> = vec![out.clone()];
    for s in srcs {
        match s {
            Operand::Scalar(v) => {
                kinds.push(InKind::Scalar(v.dtype()));
                layouts.push(None);
            }
            Operand::Tensor(t) => {
                let mut t = t.clone();
                if t.shares_storage(&out) && t.layout() != out.layout() {
                    t = t.clone_contiguous()?;
                }
                let layout = t.layout().broadcast_to(&shape)?;
                if t.shares_storage(&out) {
                    kinds.push(InKind::Alias(t.dtype()));
                } else {
                    kinds.push(InKind::Buffer(t.dtype()));
                    bound.push(t.clone());
                }
                layouts.push(Some(layout));
            }
        }
    }
    let flat = out.is_contiguous() && layouts.iter().flatten().all(Layout::is_contiguous);
    let mut params: Vec<u32> = vec![n as u32, rank as u32, out.storage_offset() as u32];
    for (s, l) in srcs.iter().zip(&layouts) {
        params.push(match (s, l) {
            (Operand::Scalar(v), _) => v.bits_as(v.dtype())?,
            (_, Some(l)) => l.offset as u32,
            _ => 0,
        });
    }
    for x in spec.extras {
        params.push(x.bits_saturating(spec.compute));
    }
    if !flat {
        params.extend(shape.iter().map(|&d| d as u32));
        params.extend(out.layout().strides.iter().map(|&st| w(st)));
        for l in &layouts {
            match l {
                Some(l) => params.extend(l.strides.iter().map(|&st| w(st))),
                None => params.extend(std::iter::repeat_n(0, rank)),
            }
        }
    }
    let key = map_key(spec, &kinds, flat);
    let make_source = || source(spec, &kinds, flat);
    let kernel = Kernel {
        key: &key,
        source: &make_source,
        bounds_checked: true,
    };
    let refs: Vec<&Tensor> = bound.iter().collect();
    launch(&device, &kernel, &refs, &params, groups_for(n))?;
    Ok(out)
}

/// The WGSL of every table op for every input dtype it accepts, strided and flat, for
/// validation without a GPU.
pub(crate) fn table_sources() -> Vec<(String, String)> {
    use crate::ops::elementwise::resolve;
    use crate::ops::table::ALL;
    let mut out = Vec::new();
    for op in ALL {
        for dtype in [DType::Float32, DType::Int64, DType::Bool] {
            let Ok((compute, expr, out_dtype)) = resolve(op, dtype) else {
                continue;
            };
            let extras: Vec<Scalar> = op.params.iter().map(|&(_, d)| Scalar::Float(d)).collect();
            let spec = MapSpec {
                expr,
                compute,
                result_bool: op.predicate,
                out_dtype,
                extras: &extras,
            };
            let mut kinds = vec![InKind::Buffer(dtype); op.arity];
            for flat in [false, true] {
                out.push((
                    format!("{}:{dtype}:{flat}", op.name),
                    source(&spec, &kinds, flat),
                ));
            }
            if out_dtype != dtype {
                continue;
            }
            kinds[0] = InKind::Alias(dtype);
            if op.arity > 1 {
                kinds[op.arity - 1] = InKind::Scalar(DType::Int64);
            }
            out.push((
                format!("{}:{dtype}:alias+scalar", op.name),
                source(&spec, &kinds, false),
            ));
        }
    }
    out
}
