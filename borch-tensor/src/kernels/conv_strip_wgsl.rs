//! The register-strip form of the implicit-GEMM convolution (a `MatmulTile::strip`, `bk == 0`),
//! for software adapters: no workgroup memory and no barriers. A workgroup of `TX` threads owns
//! `R` rows (output channels, or input channels for the input gradient) and `TX * C`
//! neighbouring columns; each thread gathers, per element of K, its `R` values of A (the same
//! for every thread of the workgroup) and its `C` values of B, and adds their `R x C` products.
//!
//! Why: on a CPU running the shaders (SwiftShader, lavapipe), every `workgroupBarrier` switches
//! between all of a workgroup's invocations, and the staged tile unrolls one gather per staging
//! slot, which SwiftShader compiles slowly. K's position is carried from one element to the
//! next (channel and tap, or sample, row and column of the output) without a division.
//!
//! Bounds: rows and columns past the edge read the last row's or column's values (clamped, no
//! branch), the forward's gathered position is clamped into the plane and its value kept only
//! inside (`select`, no branch), K stays within the split's slice, and every store is guarded
//! by m < M and col < N. Branch-free slots took SwiftShader's forwards from 1.6 to 2.3-2.6
//! GFLOP/s (batch 1, 16 x 16 x 128, native, 2026-12-06).
//!
//! Lanes (`slices = L > 1`, opt-in through `set_conv_sliced`): `L` copies of the strip's
//! threads in one workgroup, each over every `L`-th element of K, their sums added through
//! workgroup memory in a fixed order before the stores (split-K's parallelism in one dispatch).

use std::fmt::Write;

use super::conv_gemm_wgsl::{Pass, Spec, epilogue_store, gather, indent, lets, strip_element};

/// K's position at the thread's first element `gk0`, its advance by `step` elements (`1`, or
/// the lanes' count), and what the loop's top decomposes anew (a weight gradient's lanes).
fn walk(pass: Pass, step: u32) -> [String; 3] {
    let fresh = String::new;
    match pass {
        Pass::Forward | Pass::GradInput if step == 1 => [
            "    var kq0 = gk0 / T; var kr0 = gk0 % T;\n".into(),
            fresh(),
            "        kr0 = kr0 + 1u;\n        if (kr0 == T) { kr0 = 0u; kq0 = kq0 + 1u; }\n".into(),
        ],
        Pass::Forward | Pass::GradInput => [
            format!(
                "    var kq0 = gk0 / T; var kr0 = gk0 % T;\n    let DQ = {step}u / T; let DR = {step}u % T;\n"
            ),
            fresh(),
            "        kr0 = kr0 + DR; kq0 = kq0 + DQ;\n        \
             if (kr0 >= T) { kr0 = kr0 - T; kq0 = kq0 + 1u; }\n"
                .into(),
        ],
        Pass::GradWeight if step == 1 => [
            "    var q0 = gk0 / OHW; var oy0 = (gk0 % OHW) / OW; var ox0 = gk0 % OW;\n".into(),
            fresh(),
            "        ox0 = ox0 + 1u;\n        if (ox0 == OW) {\n            ox0 = 0u; oy0 = oy0 + 1u;\n\
             \x20           if (oy0 == OH) { oy0 = 0u; q0 = q0 + 1u; }\n        }\n"
                .into(),
        ],
        Pass::GradWeight => [
            fresh(),
            "        let q0 = gk / OHW; let oy0 = (gk % OHW) / OW; let ox0 = gk % OW;\n".into(),
            fresh(),
        ],
    }
}

/// The strip's WGSL; with `slices = L > 1` (lanes), `L` copies of its `TX` threads, copy `l`
/// taking every `L`-th element of K from the `l`-th, and the thread's columns `TX` apart (so
/// neighbouring threads read neighbouring columns), the copies' sums added through workgroup
/// memory in a fixed order before the stores: a small grid's split-K in one dispatch.
pub(crate) fn strip_source(spec: &Spec) -> String {
    let t = spec.tile;
    let (tx, rows, cols) = (t.threads_x, t.rows, t.cols);
    let lanes = spec.slices.max(1);
    let threads = tx * lanes;
    let mut s = spec.bindings();
    if lanes > 1 {
        let _ = writeln!(
            s,
            "var<workgroup> Red: array<f32, {}>;",
            rows * cols * (threads + 1)
        );
    }
    let _ = writeln!(
        s,
        "@compute @workgroup_size({threads}, 1, 1)\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, \
         @builtin(local_invocation_index) lidx: u32) {{"
    );
    s.push_str(&lets(spec.baked.as_ref()));
    let (col_step, n0) = if lanes > 1 {
        (tx, format!("wid.x * {}u + lidx % {tx}u", tx * cols))
    } else {
        (1, format!("wid.x * {}u + lidx * {cols}u", tx * cols))
    };
    let _ = writeln!(
        s,
        "    let g = wid.z / S; let sidx = wid.z % S;\n\
         \x20   let kbeg = sidx * KC; let kend = min(K, kbeg + KC);\n\
         \x20   let m0 = wid.y * {rows}u; let n0 = {n0};\n\
         \x20   let gk0 = kbeg + lidx / {tx}u;"
    );
    let baked = spec.baked.is_some();
    // Rows and columns past the edge read the last one's values (M, N >= 1 whenever the kernel
    // runs) and are not stored: no branch per slot and element.
    let slots = [("a", "m0", "M", rows, 1), ("b", "n0", "N", cols, col_step)];
    for (i, (x, p0, pdim, count, step)) in slots.iter().enumerate() {
        let (hoist, _) = gather(spec.pass, i == 0, spec.unit_stride, baked, true);
        for l in 0..*count {
            let sfx = format!("_{x}{l}");
            let _ = writeln!(
                s,
                "    let gp{sfx} = min({p0} + {}u, {pdim} - 1u);",
                l * step
            );
            s.push_str(&indent(&hoist.replace('@', &sfx), "    "));
        }
    }
    for r in 0..rows {
        for c in 0..cols {
            let _ = writeln!(s, "    var acc{r}_{c} = 0.0;");
        }
    }
    let [start, top, advance] = walk(spec.pass, lanes);
    s.push_str(&start);
    let _ = writeln!(
        s,
        "    for (var gk = gk0; gk < kend; gk = gk + {lanes}u) {{"
    );
    s.push_str(&top);
    s.push_str(&indent(&strip_element(spec.pass, baked), "        "));
    for (i, (x, _, _, count, _)) in slots.iter().enumerate() {
        let (_, body) = gather(spec.pass, i == 0, spec.unit_stride, baked, true);
        for l in 0..*count {
            let sfx = format!("_{x}{l}");
            let _ = writeln!(
                s,
                "        var {x}{l} = 0.0;\n        {{\n            var v = 0.0;"
            );
            s.push_str(&indent(&body.replace('@', &sfx), "            "));
            let _ = writeln!(s, "            {x}{l} = v;\n        }}");
        }
    }
    for r in 0..rows {
        for c in 0..cols {
            let _ = writeln!(s, "        acc{r}_{c} = acc{r}_{c} + a{r} * b{c};");
        }
    }
    s.push_str(&advance);
    s.push_str("    }\n");
    if lanes > 1 {
        s.push_str(&lanes_stores(spec, threads));
    } else {
        for r in 0..rows {
            for c in 0..cols {
                let _ = writeln!(
                    s,
                    "    {{\n    let m = m0 + {r}u; let col = n0 + {c}u;\n    if (m < M && col < N) {{"
                );
                s.push_str(&store(spec, &format!("acc{r}_{c}")));
                s.push_str("    }\n    }\n");
            }
        }
    }
    s.push_str("}\n");
    s
}

/// The stores of one output (`m`, `col`, group `g`): split-K's partial sum or the epilogue's.
fn store(spec: &Spec, acc: &str) -> String {
    if spec.split {
        format!("        out[(wid.z * M + m) * N + col] = {acc};\n")
    } else {
        epilogue_store(spec.epilogue, acc, "        ")
    }
}

/// The lanes' sums: every accumulator into `Red` (row `i` of `threads + 1` words, so the reads
/// below fall in different banks), then one thread per output adds its `L` copies in order.
fn lanes_stores(spec: &Spec, threads: u32) -> String {
    let t = spec.tile;
    let (tx, rows, cols, lanes) = (t.threads_x, t.rows, t.cols, spec.slices);
    let stride = threads + 1;
    let mut s = String::new();
    for r in 0..rows {
        for c in 0..cols {
            let _ = writeln!(
                s,
                "    Red[{}u + lidx] = acc{r}_{c};",
                (r * cols + c) * stride
            );
        }
    }
    let outputs = rows * cols * tx;
    let _ = writeln!(
        s,
        "    workgroupBarrier();\n\
         \x20   for (var o = lidx; o < {outputs}u; o = o + {threads}u) {{\n\
         \x20       let lane = o % {tx}u; let rc = o / {tx}u;\n\
         \x20       var sum = 0.0;\n\
         \x20       for (var j = 0u; j < {lanes}u; j = j + 1u) {{\n\
         \x20           sum = sum + Red[rc * {stride}u + j * {tx}u + lane];\n\
         \x20       }}\n\
         \x20       let m = m0 + rc / {cols}u; let col = wid.x * {}u + lane + (rc % {cols}u) * {tx}u;\n\
         \x20       if (m < M && col < N) {{",
        tx * cols
    );
    s.push_str(&store(spec, "sum"));
    s.push_str("        }\n    }\n");
    s
}
