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

use std::fmt::Write;

use super::conv_gemm_wgsl::{Pass, Spec, epilogue_store, gather, indent, lets, strip_element};

/// K's position at `kbeg`, and its advance by one element.
fn walk(pass: Pass) -> (&'static str, &'static str) {
    match pass {
        Pass::Forward | Pass::GradInput => (
            "    var kq0 = kbeg / T; var kr0 = kbeg % T;\n",
            "        kr0 = kr0 + 1u;\n        if (kr0 == T) { kr0 = 0u; kq0 = kq0 + 1u; }\n",
        ),
        Pass::GradWeight => (
            "    var q0 = kbeg / OHW; var oy0 = (kbeg % OHW) / OW; var ox0 = kbeg % OW;\n",
            "        ox0 = ox0 + 1u;\n        if (ox0 == OW) {\n            ox0 = 0u; oy0 = oy0 + 1u;\n\
             \x20           if (oy0 == OH) { oy0 = 0u; q0 = q0 + 1u; }\n        }\n",
        ),
    }
}

pub(crate) fn strip_source(spec: &Spec) -> String {
    let t = spec.tile;
    let (tx, rows, cols) = (t.threads_x, t.rows, t.cols);
    let mut s = spec.bindings();
    let _ = writeln!(
        s,
        "@compute @workgroup_size({tx}, 1, 1)\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, \
         @builtin(local_invocation_id) lid: vec3<u32>) {{"
    );
    s.push_str(&lets(spec.baked.as_ref()));
    let _ = writeln!(
        s,
        "    let g = wid.z / S; let sidx = wid.z % S;\n\
         \x20   let kbeg = sidx * KC; let kend = min(K, kbeg + KC);\n\
         \x20   let m0 = wid.y * {rows}u; let n0 = wid.x * {}u + lid.x * {cols}u;",
        tx * cols
    );
    let baked = spec.baked.is_some();
    // Rows and columns past the edge read the last one's values (M, N >= 1 whenever the kernel
    // runs) and are not stored: no branch per slot and element.
    let slots = [("a", "m0", "M", rows), ("b", "n0", "N", cols)];
    for (i, (x, p0, pdim, count)) in slots.iter().enumerate() {
        let (hoist, _) = gather(spec.pass, i == 0, spec.unit_stride, baked, true);
        for l in 0..*count {
            let sfx = format!("_{x}{l}");
            let _ = writeln!(s, "    let gp{sfx} = min({p0} + {l}u, {pdim} - 1u);");
            s.push_str(&indent(&hoist.replace('@', &sfx), "    "));
        }
    }
    for r in 0..rows {
        for c in 0..cols {
            let _ = writeln!(s, "    var acc{r}_{c} = 0.0;");
        }
    }
    let (start, advance) = walk(spec.pass);
    s.push_str(start);
    s.push_str("    for (var gk = kbeg; gk < kend; gk = gk + 1u) {\n");
    s.push_str(&indent(&strip_element(spec.pass, baked), "        "));
    for (i, (x, _, _, count)) in slots.iter().enumerate() {
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
    s.push_str(advance);
    s.push_str("    }\n");
    for r in 0..rows {
        for c in 0..cols {
            let _ = writeln!(
                s,
                "    {{\n    let m = m0 + {r}u; let col = n0 + {c}u;\n    if (m < M && col < N) {{"
            );
            if spec.split {
                let _ = writeln!(s, "        out[(wid.z * M + m) * N + col] = acc{r}_{c};");
            } else {
                s.push_str(&epilogue_store(
                    spec.epilogue,
                    &format!("acc{r}_{c}"),
                    "        ",
                ));
            }
            s.push_str("    }\n    }\n");
        }
    }
    s.push_str("}\n");
    s
}
