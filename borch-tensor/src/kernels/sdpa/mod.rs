//! The fused scaled-dot-product-attention kernels (flash-attention style, f32).
//!
//! Operands are seen as `(B, H, rows, cols)` through an offset and three strides (batch, head,
//! row; the column stride is 1), so broadcast batches and heads (stride 0) need no copy. One
//! thread owns one row; its row of the other side is staged block by block in workgroup memory
//! and read by every thread at the same address (a broadcast). A thread's own vectors are held
//! in `vec4` registers, unrolled by the generator (`q0, q1, …`).
//!
//! - forward (1 dispatch): per query row, one pass over the keys in blocks of `bc` with an
//!   online softmax (running max and sum, the accumulator rescaled once per block); writes the
//!   output and the row's logsumexp (`+inf` for a row with no key, so the backward's
//!   probabilities are 0 there, as torch's `_safe_softmax` gives).
//! - backward (4 dispatches): `delta = rowsum(dO * O)`; dQ per query row; dK and dV per key row,
//!   each looping over the query blocks of every query head that reads that key head (GQA).
//!   The probabilities are recomputed from q, k and the saved logsumexp; nothing `L x S` is
//!   stored.
//!
//! Params (u32 words): 0 L, 1 S, 2 H (query heads), 3 query heads per key head, 4 per value
//! head, 5 scale (f32 bits), 6 causal, 7 B*H*L (the stats' second half: delta), 8..11 q
//! (offset, batch, head, row strides), 12..15 k, 16..19 v, 20..23 dO, 24..28 mask (offset,
//! batch, head, row and column strides). Stats: `[2, B*H*L]`, logsumexp then delta. The
//! output is stored `(B, L, H, Ev)`, as torch's efficient attention stores it.
//!
//! Bounds: every global read is guarded (rows clamped to the last, columns compared with E,
//! keys with S), every write by `i < L` / `j < S`, and workgroup indices are bounded by the
//! loop limits, so the kernels run without wgpu's inserted checks (`tests/sdpa_fused.rs` and
//! the golden family `attention_fused` cross every block edge).

mod problem;
mod rows;
mod tiled;

pub(crate) use problem::{Mask4, Problem, View4};
pub(crate) use tiled::tiled_block;

/// Threads (rows) per workgroup.
pub(crate) const T: u32 = 64;

/// The mask a kernel reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MaskKind {
    None,
    /// Added to the scores.
    Float,
    /// u32 0/1: 0 takes no part (-inf).
    Bool,
}

/// Which kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    Forward,
    /// The forward by 4 x 4 tiles of scores per thread (`tiled.rs`).
    TiledForward,
    Delta,
    GradQ,
    GradK,
    GradV,
}

/// One specialisation: head dims `e` (q, k) and `ev` (v), key/query block `bc`, mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spec {
    pub pass: Pass,
    pub e: u32,
    pub ev: u32,
    pub bc: u32,
    pub mask: MaskKind,
}

/// The largest head dim the fused kernels take (the registers of one row grow with it).
pub(crate) const MAX_HEAD_DIM: usize = 128;

/// The block of staged rows for head dims `e`, `ev` within `limit` bytes of workgroup memory
/// (None: not even 4 rows fit).
pub(crate) fn block_for(e: usize, ev: usize, limit: u32) -> Option<u32> {
    let (e4, v4) = (e.div_ceil(4) as u32, ev.div_ceil(4) as u32);
    [32u32, 16, 8, 4]
        .into_iter()
        .find(|&bc| bc * (e4 + v4) * 16 + bc * T * 4 + 2 * bc * 4 <= limit)
}

impl Spec {
    pub(crate) fn key(&self) -> String {
        format!(
            "sdpa|{:?}|{}|{}|{}|{:?}",
            self.pass, self.e, self.ev, self.bc, self.mask
        )
    }

    fn e4(&self) -> u32 {
        self.e.div_ceil(4)
    }

    fn v4(&self) -> u32 {
        self.ev.div_ceil(4)
    }

    pub(crate) fn source(&self) -> String {
        match self.pass {
            Pass::Forward => rows::forward(self),
            Pass::TiledForward => tiled::forward(self),
            Pass::Delta => rows::delta(self),
            Pass::GradQ => rows::grad_q(self),
            Pass::GradK | Pass::GradV => rows::grad_kv(self),
        }
    }
}

/// Binding declarations numbered from 1.
fn decls(list: &[(&str, bool, &str)]) -> String {
    let mut s = "@group(0) @binding(0) var<storage, read> p: array<u32>;\n".to_string();
    for (i, (name, write, ty)) in list.iter().enumerate() {
        let access = if *write { "read_write" } else { "read" };
        s.push_str(&format!(
            "@group(0) @binding({}) var<storage, {access}> {name}: array<{ty}>;\n",
            i + 1
        ));
    }
    s
}

/// `fn ld_NAME(base, c) -> vec4<f32>`: columns `4c..4c+4` of a row of `n` columns at `base`
/// (zero past `n`).
fn loader(name: &str, n: u32) -> String {
    let body = if n.is_multiple_of(4) {
        format!(
            "    return vec4<f32>({name}[b], {name}[b + 1u], {name}[b + 2u], {name}[b + 3u]);\n"
        )
    } else {
        let mut s = "    var x = vec4<f32>(0.0);\n".to_string();
        for lane in 0..4 {
            s.push_str(&format!(
                "    if (c * 4u + {lane}u < {n}u) {{ x[{lane}] = {name}[b + {lane}u]; }}\n"
            ));
        }
        s.push_str("    return x;\n");
        s
    };
    format!(
        "fn ld_{name}(base: u32, c: u32) -> vec4<f32> {{\n    let b = base + c * 4u;\n{body}}}\n"
    )
}

/// Stores of the `vec4` registers `{reg}0..` scaled by `mul` into a row of `n` columns.
fn store(buf: &str, reg: &str, n: u32, base: &str, mul: &str) -> String {
    let mut s = String::new();
    for c in 0..n.div_ceil(4) {
        for lane in 0..4 {
            let col = c * 4 + lane;
            if col < n {
                s.push_str(&format!(
                    "        {buf}[{base} + {col}u] = {reg}{c}[{lane}] * {mul};\n"
                ));
            }
        }
    }
    s
}

/// `{reg}0 = …; {reg}1 = …` for `n` vec4 registers.
fn regs(n: u32, f: impl Fn(u32) -> String) -> String {
    (0..n).map(|c| format!("    {}\n", f(c))).collect()
}

/// `dot(a0, sh[o + 0u]) + …`.
fn dot_sum(reg: &str, sh: &str, o: &str, n: u32) -> String {
    (0..n)
        .map(|c| format!("dot({reg}{c}, {sh}[{o} + {c}u])"))
        .collect::<Vec<_>>()
        .join(" + ")
}

const HELPERS: &str = r#"
fn pf(i: u32) -> f32 { return bitcast<f32>(p[i]); }
fn ninf() -> f32 { var bits = 0xff800000u; return bitcast<f32>(bits); }
fn pinf() -> f32 { var bits = 0x7f800000u; return bitcast<f32>(bits); }
"#;

/// `fn mval(b, h, i, j) -> f32`: the mask's term for a score (none: no function).
fn mask_fn(mask: MaskKind) -> String {
    let index = "p[24] + b * p[25] + h * p[26] + i * p[27] + j * p[28]";
    match mask {
        MaskKind::None => String::new(),
        MaskKind::Float => {
            format!("fn mval(b: u32, h: u32, i: u32, j: u32) -> f32 {{ return mk[{index}]; }}\n")
        }
        MaskKind::Bool => format!(
            "fn mval(b: u32, h: u32, i: u32, j: u32) -> f32 {{ return select(ninf(), 0.0, mk[{index}] != 0u); }}\n"
        ),
    }
}

fn mask_binding(mask: MaskKind) -> Option<(&'static str, bool, &'static str)> {
    match mask {
        MaskKind::None => None,
        MaskKind::Float => Some(("mk", false, "f32")),
        MaskKind::Bool => Some(("mk", false, "u32")),
    }
}

/// Every specialisation the tests compile, for validation by naga.
pub(crate) fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let passes = [
        Pass::Forward,
        Pass::Delta,
        Pass::GradQ,
        Pass::GradK,
        Pass::GradV,
    ];
    for (e, ev) in [
        (4, 6),
        (8, 8),
        (64, 64),
        (3, 5),
        (128, 128),
        (80, 96),
        (64, 20),
        (36, 64),
    ] {
        for mask in [MaskKind::None, MaskKind::Float, MaskKind::Bool] {
            for pass in passes {
                let bc = block_for(e, ev, 16384).unwrap_or(4);
                let spec = Spec {
                    pass,
                    e: e as u32,
                    ev: ev as u32,
                    bc,
                    mask,
                };
                out.push((spec.key(), spec.source()));
            }
            for bc in [32, 64] {
                if e <= 64 && ev <= 64 {
                    let spec = Spec {
                        pass: Pass::TiledForward,
                        e: e as u32,
                        ev: ev as u32,
                        bc,
                        mask,
                    };
                    out.push((spec.key(), spec.source()));
                }
            }
        }
    }
    out
}
