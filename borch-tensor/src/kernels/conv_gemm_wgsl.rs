//! The WGSL of the implicit-GEMM convolution kernels (see `conv_gemm.rs`): one generator for the
//! three products of a convolution, each a GEMM whose operands are gathered on the fly from
//! the NCHW tensors (no column buffer):
//!
//! | pass | M | N | K | A (M x K) | B (K x N) |
//! |---|---|---|---|---|---|
//! | forward | C_out/G | batch·OH·OW | C_in/G·kh·kw | weight | input windows |
//! | input grad | C_in/G | batch·H·W | C_out/G·kh·kw | weight, transposed | grad_output taps |
//! | weight grad | C_out/G | C_in/G·kh·kw | batch·OH·OW | grad_output | input windows |
//!
//! The tile follows the matmul's staged kernel (`kernels/matmul.rs`): `TX x TY` threads, each
//! owning `R x C` outputs in `vec4` accumulators; per step of `BK` along K the workgroup gathers
//! an A tile and a B tile into workgroup memory (`[k][m]` and `[k][n]`, `vec4`s along m and n),
//! with the next step's reads issued before the current step's math. Each thread's staging
//! slots are fixed, so the part of a gathered index that depends on the slot's row or column
//! (the output pixel, or the weight tap) is decomposed once, before the K loop.
//!
//! Workgroup z is `group * S + split`: with split-K (`S > 1`) each split sums its slice of K
//! into a scratch buffer `[G, S, M, N]` and `reduce_source`'s kernel adds the slices and applies
//! the epilogue; otherwise the epilogue (bias, residual, ReLU) runs in the GEMM's stores.
//! With `L > 1` slices the workgroup is `L` copies of the tile's threads (local z), copy `l`
//! taking every `L`-th step of BK from the `l`-th on; before the stores the copies add their
//! accumulators through workgroup memory, so a small grid gets split-K's parallelism in one
//! dispatch.
//!
//! Bounds: every global read is guarded (row < M or N, k within the split's slice, the gathered
//! position inside the plane), every store by m < M and n < N, and workgroup-memory indices are
//! bounded by construction, so the kernels run with `bounds_checked: false`;
//! `tests/conv_gemm.rs` proves odd shapes (tile edges, groups, dilation, strides, splits).

use std::fmt::Write;

use super::matmul::MatmulTile;

/// Which of a convolution's three products a kernel computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    Forward,
    GradInput,
    GradWeight,
}

/// What the stores add: a bias per output channel, a residual of the output's shape, ReLU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Epilogue {
    pub bias: bool,
    pub residual: bool,
    pub relu: bool,
}

/// The words of the params buffer every conv kernel reads, in order.
pub(crate) const PARAMS: [&str; 27] = [
    "M", "N", "K", "KC", "S", "NB", "CI", "H", "W", "CO", "OH", "OW", "KH", "KW", "SH", "SW", "PH",
    "PW", "DH", "DW", "G", "OA", "OB", "OBIAS", "ORES", "PL", "CT",
];

/// The params that describe the convolution itself (not the batch, the split or where the
/// tensors sit): on GPUs they are baked into the shader as constants, so the gather's divisions
/// and window arithmetic fold.
pub(crate) const GEOMETRY: [&str; 15] = [
    "CI", "H", "W", "CO", "OH", "OW", "KH", "KW", "SH", "SW", "PH", "PW", "DH", "DW", "G",
];

/// WGSL `let`s naming the params (constants for the baked geometry), and the sizes derived
/// from them.
pub(super) fn lets(baked: Option<&[u32; 15]>) -> String {
    let signed = ["SH", "SW", "PH", "PW", "DH", "DW"];
    let mut s = String::new();
    for (i, name) in PARAMS.iter().enumerate() {
        let value = baked.and_then(|b| {
            let j = GEOMETRY.iter().position(|g| g == name)?;
            Some(format!("{}u", b[j]))
        });
        let value = value.unwrap_or_else(|| format!("p[{i}]"));
        if signed.contains(name) {
            let _ = writeln!(s, "    let {name} = i32({value});");
        } else {
            let _ = writeln!(s, "    let {name} = {value};");
        }
    }
    let _ = writeln!(s, "    let TAPS = {TAPS}u;");
    s.push_str(
        "    let T = KH * KW; let HW = H * W; let OHW = OH * OW; let CG = CI / G; \
         let MG = CO / G;\n    let IH = i32(H); let IW = i32(W);\n",
    );
    s
}

/// The epilogue's bindings after `out` and the first operands (numbered from `first`).
fn epilogue_bindings(e: Epilogue, first: u32) -> String {
    let mut s = String::new();
    let mut b = first;
    if e.bias {
        let _ = writeln!(
            s,
            "@group(0) @binding({b}) var<storage, read> bias: array<f32>;"
        );
        b += 1;
    }
    if e.residual {
        let _ = writeln!(
            s,
            "@group(0) @binding({b}) var<storage, read> res: array<f32>;"
        );
    }
    s
}

/// Statements storing `acc` (row `m` of group `g`, column `col`) into `out` with the epilogue.
pub(super) fn epilogue_store(e: Epilogue, acc: &str, pad: &str) -> String {
    let mut s = format!(
        "{pad}let q = col / PL; let r = col % PL;\n\
         {pad}let o = (q * CT + g * M + m) * PL + r;\n\
         {pad}var v = {acc};\n"
    );
    if e.bias {
        let _ = writeln!(s, "{pad}v = v + bias[OBIAS + g * M + m];");
    }
    if e.residual {
        let _ = writeln!(s, "{pad}v = v + res[ORES + o];");
    }
    if e.relu {
        let _ = writeln!(s, "{pad}v = select(v, 0.0, v < 0.0);");
    }
    let _ = writeln!(s, "{pad}out[o] = v;");
    s
}

/// One operand's staging: which of its dims neighbouring threads walk, and how an element is
/// gathered.
struct Side {
    x: &'static str,
    shared: &'static str,
    p0: &'static str,
    pdim: &'static str,
    bp: u32,
    /// Neighbouring threads along P (else along K).
    p_fast: bool,
}

/// Where the tap table starts in the params: word `TAPS + t` is `(ky * DH) << 16 | kx * DW`.
pub(crate) const TAPS: usize = PARAMS.len();

/// Once per staged step, the K origin `kstep` decomposed (the same for every thread): into
/// (channel, tap) for the forward and input-gradient passes, into (sample, row, column) of the
/// output for the weight gradient. Each slot then adds its own fixed offset `kk` with at most a
/// few carries, so the gather needs no division per element.
fn step_lets(pass: Pass) -> &'static str {
    match pass {
        Pass::Forward | Pass::GradInput => "let kq0 = kstep / T; let kr0 = kstep % T;",
        Pass::GradWeight => {
            "let q0 = kstep / OHW; let r0 = kstep % OHW; let oy0 = r0 / OW; let ox0 = r0 % OW;"
        }
    }
}

/// The per-slot part of a gathered index (`@` stands for the slot's suffix: `gp@` is its row
/// or column, `kk@` its offset along K), computed once before the K loop, and the statements
/// that set `v` for the element `gk = kstep + kk@`.
/// `strip`: the register strip's form, where every slot sits at K's current element (no
/// offset `kk`, so no carries) and the element's decomposition (`strip_element`) is made once
/// for all slots.
pub(super) fn gather(
    pass: Pass,
    a: bool,
    unit_stride: bool,
    baked: bool,
    strip: bool,
) -> (String, String) {
    // A baked kernel computes a tap's offsets from the constant window; otherwise they come
    // from the tap table in the params.
    let tap = tap_offsets(baked);
    let ct = if strip {
        String::new()
    } else {
        format!(
            "var c = kq0 + kq@; var t = kr0 + kr@;\n\
             if (t >= T) {{ t = t - T; c = c + 1u; }}\n{tap}\n"
        )
    };
    let ct = ct.as_str();
    let (ct_hoist, qyx) = if strip {
        ("", "")
    } else {
        (
            "let kq@ = kk@ / T; let kr@ = kk@ % T;\n",
            "var ox = ox0 + kk@; var oy = oy0; var q = q0;\n\
             while (ox >= OW) { ox = ox - OW; oy = oy + 1u; }\n\
             while (oy >= OH) { oy = oy - OH; q = q + 1u; }\n",
        )
    };
    let (hoist, body) = match (pass, a) {
        (Pass::Forward, true) => (
            "let row@ = OA + (g * M + gp@) * K;".to_string(),
            "v = a[row@ + gk];".to_string(),
        ),
        (Pass::Forward, false) => (
            format!(
                "{ct_hoist}let q@ = gp@ / OHW; let r@ = gp@ % OHW;\n\
                 let iy@ = i32(r@ / OW) * SH - PH; let ix@ = i32(r@ % OW) * SW - PW;\n\
                 let base@ = OB + (q@ * CI + g * CG) * HW;"
            ),
            if strip {
                // Branch-free: the read clamped into the plane, its value kept only inside.
                "let y = iy@ + dy; let x = ix@ + dx;\n\
                 let inside = y >= 0 && y < IH && x >= 0 && x < IW;\n\
                 let yc = u32(clamp(y, 0, IH - 1)); let xc = u32(clamp(x, 0, IW - 1));\n\
                 v = select(0.0, b[base@ + c * HW + yc * W + xc], inside);"
                    .to_string()
            } else {
                format!(
                    "{ct}let y = iy@ + dy; let x = ix@ + dx;\n\
                     if (y >= 0 && y < IH && x >= 0 && x < IW) {{ v = b[base@ + c * HW + u32(y) * W + u32(x)]; }}"
                )
            },
        ),
        (Pass::GradInput, true) => (
            format!("{ct_hoist}let row@ = OA + (g * MG * CG + gp@) * T;"),
            format!("{ct}v = a[row@ + c * CG * T + t];"),
        ),
        (Pass::GradInput, false) => {
            let pick = if unit_stride {
                "if (ny >= 0 && nx >= 0) {\nlet oy = u32(ny); let ox = u32(nx);\n"
            } else {
                "if (ny >= 0 && nx >= 0 && ny % SH == 0 && nx % SW == 0) {\n\
                 let oy = u32(ny / SH); let ox = u32(nx / SW);\n"
            };
            (
                format!(
                    "{ct_hoist}let q@ = gp@ / HW; let r@ = gp@ % HW;\n\
                     let ty@ = i32(r@ / W) + PH; let tx@ = i32(r@ % W) + PW;\n\
                     let base@ = OB + (q@ * CO + g * MG) * OHW;"
                ),
                format!(
                    "{ct}let ny = ty@ - dy; let nx = tx@ - dx;\n{pick}\
                     if (oy < OH && ox < OW) {{ v = b[base@ + c * OHW + oy * OW + ox]; }}\n}}"
                ),
            )
        }
        (Pass::GradWeight, true) => (
            "let chan@ = OA + (g * MG + gp@) * OHW;".to_string(),
            format!("{qyx}v = a[chan@ + q * CO * OHW + oy * OW + ox];"),
        ),
        (Pass::GradWeight, false) => (
            "let c@ = gp@ / T; let t@ = gp@ % T;\n\
             let dy@ = i32(t@ / KW) * DH - PH; let dx@ = i32(t@ % KW) * DW - PW;\n\
             let base@ = OB + (g * CG + c@) * HW;"
                .to_string(),
            format!(
                "{qyx}let y = i32(oy) * SH + dy@; let x = i32(ox) * SW + dx@;\n\
                 if (y >= 0 && y < IH && x >= 0 && x < IW) {{ v = b[base@ + q * CI * HW + u32(y) * W + u32(x)]; }}"
            ),
        ),
    };
    (hoist, body)
}

/// A tap's offsets within the window, `dy` and `dx`, from its index `t`: computed from the
/// constant window when baked, else read from the tap table in the params.
fn tap_offsets(baked: bool) -> &'static str {
    if baked {
        "let dy = i32(t / KW) * DH; let dx = i32(t % KW) * DW;"
    } else {
        "let tap = p[TAPS + t]; let dy = i32(tap >> 16u); let dx = i32(tap & 0xffffu);"
    }
}

/// The strip's decomposition of K's current element, shared by every slot's gather: channel,
/// tap and its offsets (forward, input gradient), or sample, row and column of the output
/// (weight gradient).
pub(super) fn strip_element(pass: Pass, baked: bool) -> String {
    match pass {
        Pass::Forward | Pass::GradInput => {
            format!("let c = kq0; let t = kr0;\n{}\n", tap_offsets(baked))
        }
        Pass::GradWeight => "let ox = ox0; let oy = oy0; let q = q0;\n".to_string(),
    }
}

pub(super) fn indent(code: &str, pad: &str) -> String {
    code.lines().map(|l| format!("{pad}{l}\n")).collect()
}

/// Everything a GEMM kernel's WGSL depends on; `key` names each part.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spec {
    pub pass: Pass,
    pub tile: MatmulTile,
    /// Partial sums into the scratch buffer (split-K) instead of the epilogue's stores.
    pub split: bool,
    /// Copies of the tile's threads in one workgroup, each over every `slices`-th step of K.
    pub slices: u32,
    pub epilogue: Epilogue,
    /// Stride 1 in both dims (the input gradient's gather skips its divisions).
    pub unit_stride: bool,
    /// The geometry (`GEOMETRY`'s order) baked into the shader, or read from the params.
    pub baked: Option<[u32; 15]>,
}

impl Spec {
    pub fn key(&self) -> String {
        let e = self.epilogue;
        format!(
            "conv_gemm|{:?}|{}|{}|{}|{}{}{}|{}{}",
            self.pass,
            self.tile,
            self.split,
            self.slices,
            e.bias as u8,
            e.residual as u8,
            e.relu as u8,
            self.unit_stride,
            self.baked.map_or(String::new(), |b| format!("|{b:?}"))
        )
    }

    fn sides(&self) -> [Side; 2] {
        let t = self.tile;
        [
            Side {
                x: "a",
                shared: "As",
                p0: "m0",
                pdim: "M",
                bp: t.threads_y * t.rows,
                p_fast: false,
            },
            Side {
                x: "b",
                shared: "Bs",
                p0: "n0",
                pdim: "N",
                bp: t.threads_x * t.cols,
                p_fast: self.pass != Pass::GradWeight,
            },
        ]
    }

    /// The params, the output (or split-K's scratch), the two operands, the epilogue's inputs.
    pub(super) fn bindings(&self) -> String {
        let mut s = String::from(
            "@group(0) @binding(0) var<storage, read> p: array<u32>;\n\
             @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
             @group(0) @binding(2) var<storage, read> a: array<f32>;\n\
             @group(0) @binding(3) var<storage, read> b: array<f32>;\n",
        );
        if !self.split {
            s.push_str(&epilogue_bindings(self.epilogue, 4));
        }
        s
    }

    pub fn source(&self) -> String {
        let t = self.tile;
        if t.bk == 0 {
            return super::conv_strip_wgsl::strip_source(self);
        }
        let (bk, threads) = (t.bk, t.threads_x * t.threads_y);
        let (bm, bn) = (t.threads_y * t.rows, t.threads_x * t.cols);
        let (rg, cg) = (t.rows / 4, t.cols / 4);
        let copies = if t.double_buffer { 2 } else { 1 };
        let slices = self.slices.max(1);
        // One copy of the tile's staged A and B, in vec4s.
        let (a_size, b_size) = (bk * bm / 4, bk * bn / 4);
        let mut s = self.bindings();
        let _ = writeln!(
            s,
            "var<workgroup> As: array<vec4<f32>, {}>;\nvar<workgroup> Bs: array<vec4<f32>, {}>;",
            a_size * copies * slices,
            b_size * copies * slices
        );
        if slices > 1 {
            let _ = writeln!(
                s,
                "var<workgroup> Sums: array<vec4<f32>, {}>;",
                (slices - 1) * bm * bn / 4
            );
        }
        let _ = writeln!(
            s,
            "@compute @workgroup_size({}, {}, {slices})\n\
             fn main(@builtin(workgroup_id) wid: vec3<u32>, \
             @builtin(local_invocation_id) lid: vec3<u32>, \
             @builtin(local_invocation_index) lidx: u32) {{\n\
             \x20   let tid = lidx % {threads}u; let sl = lid.z;",
            t.threads_x, t.threads_y
        );
        s.push_str(&lets(self.baked.as_ref()));
        let _ = writeln!(
            s,
            "    let g = wid.z / S; let sidx = wid.z % S;\n\
             \x20   let kbeg = sidx * KC; let kend = min(K, kbeg + KC);\n\
             \x20   let m0 = wid.y * {bm}u; let n0 = wid.x * {bn}u;\n\
             \x20   let tx = lid.x; let ty = lid.y;"
        );
        for r in 0..rg * 4 {
            for j in 0..cg {
                let _ = writeln!(s, "    var acc{r}_{j} = vec4<f32>();");
            }
        }
        let sides = self.sides();
        for (i, side) in sides.iter().enumerate() {
            let (hoist, _) = gather(
                self.pass,
                i == 0,
                self.unit_stride,
                self.baked.is_some(),
                false,
            );
            let units = side.bp * bk;
            for l in 0..units.div_ceil(threads) {
                let sfx = format!("_{}{l}", side.x);
                let split = if side.p_fast {
                    format!("let pp = idx % {}u; let kk = idx / {}u;", side.bp, side.bp)
                } else {
                    format!("let kk = idx % {bk}u; let pp = idx / {bk}u;")
                };
                let _ = writeln!(
                    s,
                    "    let idx{sfx} = {}u + tid;\n    var slot{sfx} = 0u; var lane{sfx} = 0u; \
                     var kk{sfx} = 0u; var gp{sfx} = 0u;\n    {{ let idx = idx{sfx}; {split}\n\
                     \x20   slot{sfx} = kk * {}u + pp / 4u; lane{sfx} = pp % 4u; kk{sfx} = kk; \
                     gp{sfx} = {} + pp; }}\n\
                     \x20   let ok{sfx} = idx{sfx} < {units}u && gp{sfx} < {};\n\
                     \x20   var {}f{l} = 0.0;",
                    l * threads,
                    side.bp / 4,
                    side.p0,
                    side.pdim,
                    side.x
                );
                s.push_str(&indent(&hoist.replace('@', &sfx), "    "));
            }
        }
        let fetch = |k: &str| -> String {
            let mut f = format!(
                "        {{\n        let kstep = {k};\n        {}\n",
                step_lets(self.pass)
            );
            for (i, side) in sides.iter().enumerate() {
                let (_, body) = gather(
                    self.pass,
                    i == 0,
                    self.unit_stride,
                    self.baked.is_some(),
                    false,
                );
                for l in 0..(side.bp * bk).div_ceil(threads) {
                    let sfx = format!("_{}{l}", side.x);
                    let _ = writeln!(
                        f,
                        "        {{\n        let gk = kstep + kk{sfx};\n        var v = 0.0;\n\
                         \x20       if (ok{sfx} && gk < kend) {{"
                    );
                    f.push_str(&indent(&body.replace('@', &sfx), "            "));
                    let _ = writeln!(f, "        }}\n        {}f{l} = v;\n        }}", side.x);
                }
            }
            f.push_str("        }\n");
            f
        };
        // Copy `sl`'s steps start at `kbeg + sl * BK` and advance by `slices * BK`; every copy
        // runs the same iterations (the barriers stay uniform), the reads past `kend` giving 0.
        let stride = slices * bk;
        s.push_str(&fetch(&format!("kbeg + sl * {bk}u")));
        let _ = writeln!(
            s,
            "    for (var k0 = kbeg; k0 < kend; k0 = k0 + {stride}u) {{"
        );
        // Double-buffered, steps alternate between two copies of the tiles, so the barrier
        // after the math is not needed.
        if t.double_buffer {
            let _ = writeln!(
                s,
                "        let cp = sl * 2u + (((k0 - kbeg) / {stride}u) & 1u); \
                 let abuf = cp * {a_size}u; let bbuf = cp * {b_size}u;",
            );
        } else {
            let _ = writeln!(
                s,
                "        let abuf = sl * {a_size}u; let bbuf = sl * {b_size}u;"
            );
        }
        for (side, base) in sides.iter().zip(["abuf", "bbuf"]) {
            let units = side.bp * bk;
            for l in 0..units.div_ceil(threads) {
                let sfx = format!("_{}{l}", side.x);
                let _ = writeln!(
                    s,
                    "        if (idx{sfx} < {units}u) {{ {}[{base} + slot{sfx}][lane{sfx}] = {}f{l}; }}",
                    side.shared, side.x
                );
            }
        }
        s.push_str("        workgroupBarrier();\n");
        s.push_str(&fetch(&format!("k0 + {stride}u + sl * {bk}u")));
        let _ = writeln!(s, "        for (var kk = 0u; kk < {bk}u; kk = kk + 1u) {{");
        for gr in 0..rg {
            let _ = writeln!(
                s,
                "            let a{gr} = As[abuf + kk * {}u + ty + {}u];",
                bm / 4,
                gr * t.threads_y
            );
        }
        for j in 0..cg {
            let _ = writeln!(
                s,
                "            let b{j} = Bs[bbuf + kk * {}u + tx + {}u];",
                bn / 4,
                j * t.threads_x
            );
        }
        for gr in 0..rg {
            for (c, lane) in ["x", "y", "z", "w"].iter().enumerate() {
                for j in 0..cg {
                    let r = gr * 4 + c as u32;
                    let _ = writeln!(
                        s,
                        "            acc{r}_{j} = acc{r}_{j} + a{gr}.{lane} * b{j};"
                    );
                }
            }
        }
        s.push_str("        }\n");
        if !t.double_buffer {
            s.push_str("        workgroupBarrier();\n");
        }
        s.push_str("    }\n");
        if slices > 1 {
            s.push_str(&slice_sums(t, slices));
        }
        for gr in 0..rg {
            for c in 0..4 {
                let r = gr * 4 + c;
                let _ = writeln!(
                    s,
                    "    {{\n    let m = m0 + (ty + {}u) * 4u + {c}u;\n    if (m < M && sl == 0u) {{",
                    gr * t.threads_y
                );
                for j in 0..cg {
                    for (e, lane) in ["x", "y", "z", "w"].iter().enumerate() {
                        let _ = writeln!(
                            s,
                            "        {{\n        let col = n0 + (tx + {}u) * 4u + {e}u;\n        \
                             if (col < N) {{",
                            j * t.threads_x
                        );
                        let acc = format!("acc{r}_{j}.{lane}");
                        if self.split {
                            let _ =
                                writeln!(s, "            out[(wid.z * M + m) * N + col] = {acc};");
                        } else {
                            s.push_str(&epilogue_store(self.epilogue, &acc, "            "));
                        }
                        s.push_str("        }\n        }\n");
                    }
                }
                s.push_str("    }\n    }\n");
            }
        }
        s.push_str("}\n");
        s
    }
}

/// Copies 1.. of the tile's threads leave their accumulators in `Sums`; copy 0 adds them (in
/// the copies' order, so the result does not depend on timing) before its stores.
fn slice_sums(t: MatmulTile, slices: u32) -> String {
    let per = t.rows * t.cols / 4;
    let threads = t.threads_x * t.threads_y;
    let accs: Vec<String> = (0..t.rows)
        .flat_map(|r| (0..t.cols / 4).map(move |j| format!("acc{r}_{j}")))
        .collect();
    let mut s = String::from("    workgroupBarrier();\n    if (sl > 0u) {\n");
    let _ = writeln!(
        s,
        "        let at = ((sl - 1u) * {threads}u + tid) * {per}u;"
    );
    for (i, acc) in accs.iter().enumerate() {
        let _ = writeln!(s, "        Sums[at + {i}u] = {acc};");
    }
    s.push_str("    }\n    workgroupBarrier();\n    if (sl == 0u) {\n");
    let _ = writeln!(
        s,
        "        for (var c = 1u; c < {slices}u; c = c + 1u) {{\n\
         \x20           let at = ((c - 1u) * {threads}u + tid) * {per}u;"
    );
    for (i, acc) in accs.iter().enumerate() {
        let _ = writeln!(s, "            {acc} = {acc} + Sums[at + {i}u];");
    }
    s.push_str("        }\n    }\n");
    s
}

/// The split-K reduction: one thread per output element `(g, m, col)` adds the `S` partial
/// sums of the scratch buffer `[G, S, M, N]`, then applies the epilogue and stores.
pub(crate) fn reduce_source(e: Epilogue) -> String {
    let mut s = String::from(
        "@group(0) @binding(0) var<storage, read> p: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
         @group(0) @binding(2) var<storage, read> part: array<f32>;\n",
    );
    s.push_str(&epilogue_bindings(e, 3));
    s.push_str(
        "fn flat_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {\n\
         \x20   return (wid.y * nwg.x + wid.x) * 256u + lid;\n}\n\
         @compute @workgroup_size(256)\n\
         fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, \
         @builtin(local_invocation_index) lid: u32) {\n\
         \x20   let i = flat_index(wid, nwg, lid);\n",
    );
    s.push_str(&lets(None));
    s.push_str(
        "    let mn = M * N;\n    if (i >= G * mn) { return; }\n\
         \x20   let g = i / mn; let rem = i % mn; let m = rem / N; let col = rem % N;\n\
         \x20   var acc = 0.0;\n\
         \x20   for (var s = 0u; s < S; s = s + 1u) { acc = acc + part[((g * S + s) * M + m) * N + col]; }\n",
    );
    s.push_str(&epilogue_store(e, "acc", "    "));
    s.push_str("}\n");
    s
}

/// Reduction keys.
pub(crate) fn reduce_key(e: Epilogue) -> String {
    format!(
        "conv_gemm_reduce|{}{}{}",
        e.bias as u8, e.residual as u8, e.relu as u8
    )
}
