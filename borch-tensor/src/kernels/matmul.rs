//! The tiled matrix-multiply kernel behind mm, bmm, matmul, addmm, mv and dot.
//!
//! One workgroup computes a `BM x BN` tile of one matrix of the batch; each thread owns
//! `rows x cols` outputs, held in `vec4` accumulators. Per step of `BK` along K, the workgroup
//! stages an `BM x BK` tile of A and a `BK x BN` tile of B in workgroup memory, both stored
//! `[k][m or n]` with `vec4`s along m or n, so the inner loop reads one `vec4` per four outputs.
//! Thread `(tx, ty)` owns the row groups `ty + g * TY` and column groups `tx + j * TX` (groups of
//! four): neighbouring threads read neighbouring words of workgroup memory and write neighbouring
//! words of the output.
//!
//! Operands are read through their strides (offset, row stride, column stride and one stride per
//! batch dim, 0 where broadcast), so transposed, sliced and expanded inputs need no copy. Where
//! the innermost stride is 1 and sizes, strides and offset are multiples of 4, the operand is
//! bound as `array<vec4<T>>` and read four elements at a time.
//!
//! Bounds: every global read and write is guarded by explicit comparisons against M, N and K
//! (and the batch index comes from the dispatch, which never exceeds the batch), so indices are
//! in range by construction; workgroup-memory indices are compile-time bounded. That is why the
//! kernel is compiled with `bounds_checked: false`; tests/matmul.rs proves odd shapes (1x1,
//! 65x33x17, K not a multiple of the tile, K = 0, broadcast batches, every load mode) correct.

use std::fmt::Write;

use borch_device::Kernel;

use crate::dtype::DType;
use crate::error::{Result, not_impl};
use crate::layout::Layout;
use crate::tensor::Tensor;

/// A kernel shape. Staged (`bk > 0`): `threads_x * threads_y` threads, each owning
/// `rows x cols` outputs (multiples of 4), stepping `bk` along K through workgroup memory.
/// Strip (`bk == 0`, `threads_y == 1`): no workgroup memory; each thread owns `rows` rows of
/// `cols` (1 or 4) neighbouring columns, and the A values of a step, the same for every thread
/// of the workgroup, are read as uniform loads. The strip suits CPU adapters (lavapipe runs 8
/// invocations per SIMD step; a uniform load is one scalar load there, a per-invocation load a
/// loop over lanes), the staged tile suits GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatmulTile {
    /// Threads of a workgroup along the output's columns.
    pub threads_x: u32,
    /// Threads of a workgroup along the output's rows.
    pub threads_y: u32,
    /// Output rows each thread computes.
    pub rows: u32,
    /// Output columns each thread computes.
    pub cols: u32,
    /// The step along K: the depth of the staged tiles.
    pub bk: u32,
    /// Two copies of the staged tiles in workgroup memory, alternating per step of K, so a
    /// step needs one barrier instead of two.
    pub double_buffer: bool,
}

impl MatmulTile {
    /// A staged tile.
    pub const fn new(threads_x: u32, threads_y: u32, rows: u32, cols: u32, bk: u32) -> Self {
        MatmulTile {
            threads_x,
            threads_y,
            rows,
            cols,
            bk,
            double_buffer: false,
        }
    }

    /// The same tile with its workgroup memory doubled (one barrier per step of K).
    pub const fn double_buffered(self) -> Self {
        MatmulTile {
            double_buffer: true,
            ..self
        }
    }

    /// Copies of the staged tiles held in workgroup memory.
    fn buffers(self) -> u32 {
        if self.double_buffer { 2 } else { 1 }
    }

    /// A register strip of `threads` threads, each `rows x cols`.
    pub const fn strip(threads: u32, rows: u32, cols: u32) -> Self {
        MatmulTile::new(threads, 1, rows, cols, 0)
    }

    fn staged(self) -> bool {
        self.bk > 0
    }

    /// Output rows of one workgroup's block.
    pub(crate) fn bm(self) -> u32 {
        self.threads_y * self.rows
    }

    /// Output columns of one workgroup's block.
    pub(crate) fn bn(self) -> u32 {
        self.threads_x * self.cols
    }

    pub(crate) fn threads(self) -> u32 {
        self.threads_x * self.threads_y
    }

    /// Workgroup memory of the staged A and B tiles (all their copies), in bytes.
    pub(crate) fn staged_bytes(self) -> u32 {
        (self.bm() + self.bn()) * self.bk * 4 * self.buffers()
    }

    /// Whether this tile can be compiled within `limits` (and the generator's assumptions).
    pub fn check(self, limits: &borch_device::wgpu::Limits) -> Result<()> {
        let shape_ok = if self.staged() {
            [
                self.threads_x,
                self.threads_y,
                self.rows,
                self.cols,
                self.bk,
            ]
            .iter()
            .all(|v| v.is_power_of_two())
                && self.rows >= 4
                && self.cols >= 4
                && self.bk >= 4
        } else {
            !self.double_buffer
                && self.threads_y == 1
                && (self.cols == 1 || self.cols == 4)
                && (1..=64).contains(&self.rows)
        };
        let shared = self.staged_bytes();
        if !shape_ok
            || self.threads() == 0
            || self.threads() > limits.max_compute_invocations_per_workgroup
            || self.threads_x > limits.max_compute_workgroup_size_x
            || self.threads_y > limits.max_compute_workgroup_size_y
            || shared > limits.max_compute_workgroup_storage_size
        {
            return not_impl(format!(
                "matmul tile {self:?} does not fit this adapter or the kernel's shapes"
            ));
        }
        Ok(())
    }

    fn key(self) -> String {
        format!(
            "{}x{}t{}x{}k{}{}",
            self.threads_x,
            self.threads_y,
            self.rows,
            self.cols,
            self.bk,
            if self.double_buffer { "d" } else { "" }
        )
    }
}

/// `TXxTYxRxCxK`, the form `cargo xtask bench matmul --tile` reads.
impl std::fmt::Display for MatmulTile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{}x{}x{}x{}{}",
            self.threads_x,
            self.threads_y,
            self.rows,
            self.cols,
            self.bk,
            if self.double_buffer { "d" } else { "" }
        )
    }
}

/// Reads the `Display` form back: `TXxTYxRxCxK`, a trailing `d` for double buffering.
impl std::str::FromStr for MatmulTile {
    type Err = String;

    fn from_str(spec: &str) -> std::result::Result<Self, String> {
        let (dims, double) = match spec.strip_suffix('d') {
            Some(dims) => (dims, true),
            None => (spec, false),
        };
        let d: Vec<u32> = dims.split('x').filter_map(|x| x.parse().ok()).collect();
        let [tx, ty, r, c, k] = <[u32; 5]>::try_from(d).map_err(|_| {
            format!("bad tile {spec} (want TXxTYxRxCxK, `d` at the end to double-buffer)")
        })?;
        let tile = MatmulTile::new(tx, ty, r, c, k);
        Ok(if double { tile.double_buffered() } else { tile })
    }
}

/// The tile borch picks for `batch` products of `m x k` by `k x n` on an adapter.
pub(crate) fn default_tile(
    software: bool,
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
) -> MatmulTile {
    let work = batch * m * n * k;
    if software {
        // Measured with `cargo xtask bench matmul --tile ...` on lavapipe (2 cores), where every
        // per-invocation load is a loop over the 8 SIMD lanes: outputs per load decide the
        // speed, so big products get 32 x 32 outputs per thread (about 4.5 GFLOP/s at 1024^3,
        // but about 10 s to compile the first time; Mesa caches it on disk), middling ones
        // 16 x 16 (about 2 s to compile), and small ones the strip (40 ms to compile).
        return if work >= 1 << 24 && m >= 256 && n >= 256 {
            MatmulTile::new(8, 8, 32, 32, 8)
        } else if work >= 1 << 22 && m >= 128 && n >= 128 {
            MatmulTile::new(8, 8, 16, 16, 8)
        } else {
            MatmulTile::strip(8, 16, 4)
        };
    }
    let tiles_128 = m.div_ceil(128) * n.div_ceil(128) * batch;
    // A product of at most 64 x 64 outputs would leave 3/4 of a 128 x 128 block idle (the
    // Winograd weight gradient's slices of layer 1: 1,024 products of 64 x 256 x 64).
    if m <= 16 || n <= 16 || tiles_128 < 128 || (m <= 64 && n <= 64) {
        MatmulTile::new(16, 16, 4, 4, 16)
    } else if tiles_128 <= 1152 && k <= 2048 {
        // A grid of few 128 x 128 blocks over a short K (a transformer's 16384 x 384 outputs):
        // 256 threads with 8 x 8 each, 16 deep. H200, 2026-12-04 (`bench matmul --tiles`):
        // 16384 x K x 384 for K = 384 / 1152 / 1536 at 30.0 / 32.4 / 32.5 TFLOP/s against 24.2
        // / 25.6 / 25.5 on the 128-thread tile below, 16384 x 384 x 1152 at 31.2 against 29.7.
        MatmulTile::new(16, 16, 8, 8, 16)
    } else {
        // 128 threads with 16 x 8 outputs each: 33.9 TFLOP/s at 4096^3 on an H200 against
        // 30.9 for 256 threads with 8 x 8 (2026-12-02, `bench matmul --tiles`); 33.1 against
        // 31.5 at 16384 x 384 x 1536 (2026-12-04).
        MatmulTile::new(16, 8, 16, 8, 8)
    }
}

/// How one operand's tile is read. The operand is seen as `P x K` (A: m x k; B: n x k).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Load {
    /// `vec4` reads along P (stride 1 along P).
    PVec,
    /// `vec4` reads along K (stride 1 along K).
    KVec,
    /// Scalar reads, neighbouring threads along P.
    PFast,
    /// Scalar reads, neighbouring threads along K.
    KFast,
}

impl Load {
    fn is_vec(self) -> bool {
        matches!(self, Load::PVec | Load::KVec)
    }
}

/// One operand: offset and strides along P, K and each batch dim (all non-negative).
struct Side {
    offset: usize,
    sp: usize,
    sk: usize,
    batch: Vec<usize>,
}

fn choose_load(s: &Side, p: usize, k: usize) -> Load {
    let aligned = |other: usize| {
        s.offset.is_multiple_of(4) && other.is_multiple_of(4) && s.batch.iter().all(|b| b % 4 == 0)
    };
    if s.sk == 1 && k.is_multiple_of(4) && aligned(s.sp) {
        Load::KVec
    } else if s.sp == 1 && p.is_multiple_of(4) && aligned(s.sk) {
        Load::PVec
    } else if s.sp == 1 {
        Load::PFast
    } else {
        Load::KFast
    }
}

/// A layout's strides with size-1 dims given stride 0, or `None` if any stride is negative.
fn strides_of(l: &Layout) -> Option<Vec<usize>> {
    l.shape
        .iter()
        .zip(&l.strides)
        .map(|(&n, &s)| {
            if n == 1 {
                Some(0)
            } else {
                usize::try_from(s).ok()
            }
        })
        .collect()
}

/// `alpha * (a @ b) [+ beta * c]` written into a new contiguous tensor.
pub(crate) struct Gemm<'a> {
    /// `[batch..., M, K]`, batch dims already broadcast to the output's.
    pub a: &'a Tensor,
    /// `[batch..., K, N]`.
    pub b: &'a Tensor,
    /// `(c, beta)`: `c` broadcastable to `[batch..., M, N]`; omitted when beta is 0 (torch
    /// then ignores `c`, NaN included).
    pub c: Option<(&'a Tensor, f64)>,
    pub alpha: f64,
    pub tile: Option<MatmulTile>,
    /// ReLU in the stores (float32 only): `linear_relu`'s epilogue.
    pub relu: bool,
}

/// Run the kernel (over slices of K where the output is too small to fill the GPU); the
/// result has shape `[batch..., M, N]`.
pub(crate) fn gemm(g: &Gemm<'_>) -> Result<Tensor> {
    match super::matmul_split_k::slices(g) {
        Some(slices) => super::matmul_split_k::gemm_split_k(g, slices),
        None => gemm_direct(g),
    }
}

/// Run the kernel once over the whole of K.
pub(crate) fn gemm_direct(g: &Gemm<'_>) -> Result<Tensor> {
    let (a, b) = (g.a, g.b);
    let dtype = a.dtype();
    if !matches!(dtype, DType::Float32 | DType::Int64) {
        return not_impl(format!(
            "borch's matmul kernel has no {} version",
            dtype.scalar_type_name()
        ));
    }
    let device = a.device().clone();
    b.check_same_device_as(&device)?;
    let r = a.dim() - 2;
    let (m, k, n) = (a.shape()[r], a.shape()[r + 1], b.shape()[r + 1]);
    let batch_shape = a.shape()[..r].to_vec();
    let mut out_shape = batch_shape.clone();
    out_shape.extend([m, n]);
    let out = Tensor::uninit(&device, &out_shape, dtype)?;
    let batch: usize = batch_shape.iter().product();
    if out.numel() == 0 {
        return Ok(out);
    }
    let a = match strides_of(a.layout()) {
        Some(_) => a.clone(),
        None => a.clone_contiguous()?,
    };
    let b = match strides_of(b.layout()) {
        Some(_) => b.clone(),
        None => b.clone_contiguous()?,
    };
    let sa = strides_of(a.layout()).unwrap_or_default();
    let sb = strides_of(b.layout()).unwrap_or_default();
    let side_a = Side {
        offset: a.storage_offset(),
        sp: sa[r],
        sk: sa[r + 1],
        batch: sa[..r].to_vec(),
    };
    let side_b = Side {
        offset: b.storage_offset(),
        sp: sb[r + 1],
        sk: sb[r],
        batch: sb[..r].to_vec(),
    };
    // Neither stride 1: a copy makes the reads coalesced, worth it once the matrix is reused.
    let (a, side_a) = if side_a.sp != 1 && side_a.sk != 1 && m > 1 && k > 1 {
        let a = a.clone_contiguous()?;
        let s = strides_of(a.layout()).unwrap_or_default();
        let side = Side {
            offset: 0,
            sp: s[r],
            sk: s[r + 1],
            batch: s[..r].to_vec(),
        };
        (a, side)
    } else {
        (a, side_a)
    };
    let (b, side_b) = if side_b.sp != 1 && side_b.sk != 1 && n > 1 && k > 1 {
        let b = b.clone_contiguous()?;
        let s = strides_of(b.layout()).unwrap_or_default();
        let side = Side {
            offset: 0,
            sp: s[r + 1],
            sk: s[r],
            batch: s[..r].to_vec(),
        };
        (b, side)
    } else {
        (b, side_b)
    };
    let tile = g
        .tile
        .unwrap_or_else(|| default_tile(device.adapter_info().is_software, batch, m, k, n));
    tile.check(device.limits())?;
    let (mut load_a, mut load_b) = (choose_load(&side_a, m, k), choose_load(&side_b, n, k));
    if !tile.staged() {
        // The strip reads A along K (vec4 where possible) and B along N.
        if load_a != Load::KVec {
            load_a = Load::KFast;
        }
        if load_b != Load::PVec || tile.cols != 4 {
            load_b = Load::PFast;
        }
    }
    let c_layout = match g.c {
        Some((c, _)) => {
            c.check_same_device_as(&device)?;
            let l = c.layout().broadcast_to(&out_shape)?;
            Some(strides_of(&l).map(|s| (l.offset, s)))
        }
        None => None,
    };
    let c_owned;
    let (c_tensor, c_strides) = match (g.c, c_layout) {
        (Some((c, _)), Some(Some(l))) => (Some(c), Some(l)),
        (Some((c, _)), Some(None)) => {
            c_owned = c.clone_contiguous()?;
            let l = c_owned.layout().broadcast_to(&out_shape)?;
            let s = strides_of(&l).unwrap_or_default();
            (Some(&c_owned), Some((l.offset, s)))
        }
        _ => (None, None),
    };
    // alpha == 0 skips the product entirely, as BLAS (and so torch) does: inf * 0 stays out.
    let k_eff = if g.alpha == 0.0 { 0 } else { k };
    let out_vec = n.is_multiple_of(4) && tile.cols.is_multiple_of(4);
    let spec = Spec {
        dtype,
        tile,
        load_a,
        load_b,
        out_vec,
        with_c: c_tensor.is_some(),
        scaled: g.alpha != 1.0,
        relu: g.relu && dtype == DType::Float32,
    };
    let words = |x: f64| match dtype {
        DType::Float32 => (x as f32).to_bits(),
        _ => (x.trunc() as i64 as i32) as u32,
    };
    let beta = g.c.map_or(0.0, |(_, beta)| beta);
    let mut params: Vec<u32> = vec![
        m as u32,
        n as u32,
        k_eff as u32,
        r as u32,
        0,
        side_a.offset as u32,
        side_a.sp as u32,
        side_a.sk as u32,
        side_b.offset as u32,
        side_b.sp as u32,
        side_b.sk as u32,
    ];
    let (c_off, c_s) = match &c_strides {
        Some((off, s)) => (*off, s.clone()),
        None => (0, vec![0; r + 2]),
    };
    params.extend([
        c_off as u32,
        c_s[r] as u32,
        c_s[r + 1] as u32,
        words(g.alpha),
        words(beta),
    ]);
    for d in 0..r {
        params.extend([
            batch_shape[d] as u32,
            side_a.batch[d] as u32,
            side_b.batch[d] as u32,
            c_s[d] as u32,
        ]);
    }
    let key = spec.key();
    let make_source = || spec.source();
    let kernel = Kernel {
        key: &key,
        source: &make_source,
        // Every global access is guarded against M, N, K by construction (see the module doc).
        bounds_checked: false,
    };
    let mut bound: Vec<&Tensor> = vec![&out, &a, &b];
    if let Some(c) = c_tensor {
        bound.push(c);
    }
    let buffers = bound
        .iter()
        .map(|t| t.buffer())
        .collect::<Result<Vec<_>>>()?;
    let bindings: Vec<borch_device::Binding<'_>> = buffers
        .iter()
        .map(|buffer| borch_device::Binding { buffer })
        .collect();
    let gx = n.div_ceil(tile.bn() as usize) as u32;
    let gy = m.div_ceil(tile.bm() as usize) as u32;
    let max_z = device.limits().max_compute_workgroups_per_dimension as usize;
    let mut base = 0usize;
    while base < batch {
        let count = (batch - base).min(max_z);
        params[4] = base as u32;
        device.dispatch(&kernel, &bindings, &params, [gx, gy, count as u32])?;
        base += count;
    }
    Ok(out)
}

/// Everything the WGSL depends on; the pipeline key names each part.
struct Spec {
    dtype: DType,
    tile: MatmulTile,
    load_a: Load,
    load_b: Load,
    out_vec: bool,
    with_c: bool,
    scaled: bool,
    relu: bool,
}

const LANES: [&str; 4] = ["x", "y", "z", "w"];

impl Spec {
    fn key(&self) -> String {
        format!(
            "matmul|{}|{}|{:?}|{:?}|{}|{}|{}{}",
            self.dtype.name(),
            self.tile.key(),
            self.load_a,
            self.load_b,
            self.out_vec,
            self.with_c,
            self.scaled,
            if self.relu { "|relu" } else { "" }
        )
    }

    fn source(&self) -> String {
        if !self.tile.staged() {
            return self.strip_source();
        }
        let t = self.dtype.wgsl();
        let tile = self.tile;
        let (bm, bn, bk) = (tile.bm(), tile.bn(), tile.bk);
        let (tx_n, ty_n) = (tile.threads_x, tile.threads_y);
        let (rg, cg) = (tile.rows / 4, tile.cols / 4);
        // A read along K is staged as it lies, `[m][k]` with vec4s along k: no transposing
        // stores, and the inner loop takes four steps of K per read of A.
        let a_mk = self.load_a == Load::KVec;
        let mut s = String::new();
        s.push_str(&self.bindings());
        let _ = writeln!(
            s,
            "var<workgroup> As: array<vec4<{t}>, {}>;\nvar<workgroup> Bs: array<vec4<{t}>, {}>;",
            bk * bm / 4 * tile.buffers(),
            bk * bn / 4 * tile.buffers()
        );
        s.push_str(&self.prologue());
        let _ = writeln!(s, "    let tx = lid.x; let ty = lid.y;");
        for g in 0..rg * 4 {
            for j in 0..cg {
                let _ = writeln!(s, "    var acc{g}_{j} = vec4<{t}>();");
            }
        }
        let stage_a = Stage {
            x: "a",
            shared: "As",
            p0: "m0",
            pdim: "M",
            bp: bm,
            bk,
            threads: tile.threads(),
            mode: self.load_a,
            keep_mk: a_mk,
            base: "abuf",
            t,
            off: "oa",
            sp: "sap",
            sk: "sak",
        };
        let stage_b = Stage {
            x: "b",
            shared: "Bs",
            p0: "n0",
            pdim: "N",
            bp: bn,
            bk,
            threads: tile.threads(),
            mode: self.load_b,
            keep_mk: false,
            base: "bbuf",
            t,
            off: "ob",
            sp: "sbp",
            sk: "sbk",
        };
        s.push_str(&stage_a.decls());
        s.push_str(&stage_b.decls());
        s.push_str(&stage_a.fetch("0u"));
        s.push_str(&stage_b.fetch("0u"));
        let _ = writeln!(s, "    for (var k0 = 0u; k0 < K; k0 = k0 + {bk}u) {{");
        if tile.double_buffer {
            let _ = writeln!(
                s,
                "        let abuf = ((k0 / {bk}u) & 1u) * {}u; let bbuf = ((k0 / {bk}u) & 1u) * {}u;",
                bk * bm / 4,
                bk * bn / 4
            );
        } else {
            s.push_str("        let abuf = 0u; let bbuf = 0u;\n");
        }
        s.push_str(&stage_a.store());
        s.push_str(&stage_b.store());
        s.push_str("        workgroupBarrier();\n");
        // The next step's global reads go out before this step's math.
        let next = format!("k0 + {bk}u");
        s.push_str(&stage_a.fetch(&next));
        s.push_str(&stage_b.fetch(&next));
        if a_mk {
            s.push_str(&self.inner_mk());
        } else {
            s.push_str(&self.inner_km());
        }
        // Double-buffered, the next step writes the other copy: the barrier at its top is the
        // only one needed.
        if !tile.double_buffer {
            s.push_str("        workgroupBarrier();\n");
        }
        s.push_str("    }\n");
        s.push_str("    let obase = batch * M * N;\n");
        s.push_str(&self.scalars());
        for g in 0..rg {
            for (c, _) in LANES.iter().enumerate() {
                let row = g * 4 + c as u32;
                let _ = writeln!(
                    s,
                    "    {{\n    let m = m0 + (ty + {}u) * 4u + {c}u;\n    if (m < M) {{",
                    g * ty_n
                );
                for j in 0..cg {
                    let n = format!("n0 + (tx + {}u) * 4u", j * tx_n);
                    s.push_str(&self.store(&format!("acc{row}_{j}"), &n, true));
                }
                s.push_str("    }\n    }\n");
            }
        }
        s.push_str("}\n");
        s
    }

    /// The inner loop over one staged step, A staged `[k][m]`: per step of K, one vec4 of A
    /// per four rows and one vec4 of B per four columns.
    fn inner_km(&self) -> String {
        let tile = self.tile;
        let (bm, bn, bk) = (tile.bm(), tile.bn(), tile.bk);
        let (tx_n, ty_n) = (tile.threads_x, tile.threads_y);
        let (rg, cg) = (tile.rows / 4, tile.cols / 4);
        let mut s = String::new();
        let _ = writeln!(s, "        for (var kk = 0u; kk < {bk}u; kk = kk + 1u) {{");
        for g in 0..rg {
            let _ = writeln!(
                s,
                "            let a{g} = As[abuf + kk * {}u + ty + {}u];",
                bm / 4,
                g * ty_n
            );
        }
        for j in 0..cg {
            let _ = writeln!(
                s,
                "            let b{j} = Bs[bbuf + kk * {}u + tx + {}u];",
                bn / 4,
                j * tx_n
            );
        }
        for g in 0..rg {
            for (c, lane) in LANES.iter().enumerate() {
                for j in 0..cg {
                    let row = g * 4 + c as u32;
                    let _ = writeln!(
                        s,
                        "            acc{row}_{j} = acc{row}_{j} + a{g}.{lane} * b{j};"
                    );
                }
            }
        }
        s.push_str("        }\n");
        s
    }

    /// The inner loop over one staged step, A staged `[m][k]`: per four steps of K, one vec4
    /// of A per row and four vec4s of B per four columns.
    fn inner_mk(&self) -> String {
        let tile = self.tile;
        let (bn, bk) = (tile.bn(), tile.bk);
        let (tx_n, ty_n) = (tile.threads_x, tile.threads_y);
        let (rg, cg) = (tile.rows / 4, tile.cols / 4);
        let kq = bk / 4;
        let mut s = String::new();
        let _ = writeln!(s, "        for (var kq = 0u; kq < {kq}u; kq = kq + 1u) {{");
        for (e, _) in LANES.iter().enumerate() {
            for j in 0..cg {
                let _ = writeln!(
                    s,
                    "            let b{e}_{j} = Bs[bbuf + (kq * 4u + {e}u) * {}u + tx + {}u];",
                    bn / 4,
                    j * tx_n
                );
            }
        }
        for g in 0..rg {
            for c in 0..4 {
                let row = g * 4 + c;
                let _ = writeln!(
                    s,
                    "            let a{row} = As[abuf + ((ty + {}u) * 4u + {c}u) * {kq}u + kq];",
                    g * ty_n
                );
                for j in 0..cg {
                    let _ = writeln!(
                        s,
                        "            acc{row}_{j} = acc{row}_{j} + a{row}.x * b0_{j} + a{row}.y * b1_{j} \
                         + a{row}.z * b2_{j} + a{row}.w * b3_{j};"
                    );
                }
            }
        }
        s.push_str("        }\n");
        s
    }

    /// Bindings: params, out, a, b (each `vec4` where read four at a time), c.
    fn bindings(&self) -> String {
        let t = self.dtype.wgsl();
        let arr = |vec: bool| {
            if vec {
                format!("vec4<{t}>")
            } else {
                t.to_string()
            }
        };
        let mut s = format!(
            "@group(0) @binding(0) var<storage, read> p: array<u32>;\n\
             @group(0) @binding(1) var<storage, read_write> out: array<{}>;\n\
             @group(0) @binding(2) var<storage, read> a: array<{}>;\n\
             @group(0) @binding(3) var<storage, read> b: array<{}>;\n",
            arr(self.out_vec),
            arr(self.load_a.is_vec()),
            arr(self.load_b.is_vec())
        );
        if self.with_c {
            let _ = writeln!(s, "@group(0) @binding(4) var<storage, read> c: array<{t}>;");
        }
        if self.relu {
            // ReLU keeps NaN, as torch's does.
            s.push_str(
                "fn relu_f(v: f32) -> f32 { return select(v, 0.0, v < 0.0); }
                 fn relu_v(v: vec4<f32>) -> vec4<f32> { return select(v, vec4<f32>(), v < vec4<f32>()); }
",
            );
        }
        s
    }

    /// The entry point's opening: sizes, strides, this workgroup's batch offsets and tile origin.
    fn prologue(&self) -> String {
        let (bm, bn) = (self.tile.bm(), self.tile.bn());
        let (tx, ty) = (self.tile.threads_x, self.tile.threads_y);
        format!(
            "@compute @workgroup_size({tx}, {ty}, 1)\n\
             fn main(@builtin(workgroup_id) wid: vec3<u32>, \
             @builtin(local_invocation_id) lid: vec3<u32>, \
             @builtin(local_invocation_index) tid: u32) {{\n\
             \x20   let M = p[0]; let N = p[1]; let K = p[2]; let R = p[3];\n\
             \x20   let batch = wid.z + p[4];\n\
             \x20   var oa = p[5]; let sap = p[6]; let sak = p[7];\n\
             \x20   var ob = p[8]; let sbp = p[9]; let sbk = p[10];\n\
             \x20   var oc = p[11]; let scm = p[12]; let scn = p[13];\n\
             \x20   var rem = batch;\n\
             \x20   for (var d = 0u; d < R; d = d + 1u) {{\n\
             \x20       let q = 16u + (R - 1u - d) * 4u;\n\
             \x20       let i = rem % p[q];\n\
             \x20       rem = rem / p[q];\n\
             \x20       oa = oa + i * p[q + 1u]; ob = ob + i * p[q + 2u]; oc = oc + i * p[q + 3u];\n\
             \x20   }}\n\
             \x20   let m0 = wid.y * {bm}u; let n0 = wid.x * {bn}u;\n"
        )
    }

    /// The register strip: thread `tx` owns columns `n0 + tx * cols ..` of rows `m0 .. m0 +
    /// rows`. Reads clamp their row and column into the matrix (M, N >= 1 whenever the kernel
    /// runs), so they need no branch; rows and columns past the edge are computed and not
    /// stored.
    fn strip_source(&self) -> String {
        let t = self.dtype.wgsl();
        let (rows, cols) = (self.tile.rows, self.tile.cols);
        let mut s = self.bindings();
        s.push_str(&self.prologue());
        let _ = writeln!(s, "    let n = n0 + lid.x * {cols}u;");
        let acc_t = if cols == 4 {
            format!("vec4<{t}>")
        } else {
            t.to_string()
        };
        for i in 0..rows {
            let _ = writeln!(
                s,
                "    let r{i} = oa + min(m0 + {i}u, M - 1u) * sap;\n    var acc{i} = {acc_t}();"
            );
        }
        // B's columns for this thread, clamped into the matrix.
        let b_load = |k: &str| -> String {
            match (cols, self.load_b) {
                (4, Load::PVec) => format!("b[(ob + ({k}) * sbk + min(n, N - 4u)) / 4u]"),
                (4, _) => format!(
                    "vec4<{t}>(b[ob + ({k}) * sbk + min(n, N - 1u) * sbp], \
                     b[ob + ({k}) * sbk + min(n + 1u, N - 1u) * sbp], \
                     b[ob + ({k}) * sbk + min(n + 2u, N - 1u) * sbp], \
                     b[ob + ({k}) * sbk + min(n + 3u, N - 1u) * sbp])"
                ),
                _ => format!("b[ob + ({k}) * sbk + min(n, N - 1u) * sbp]"),
            }
        };
        if self.load_a == Load::KVec {
            // K is a multiple of 4 here: four steps per vec4 of each A row.
            let _ = writeln!(s, "    for (var k = 0u; k < K; k = k + 4u) {{");
            for (e, _) in LANES.iter().enumerate() {
                let _ = writeln!(s, "        let b{e} = {};", b_load(&format!("k + {e}u")));
            }
            for i in 0..rows {
                let _ = writeln!(s, "        let a{i} = a[(r{i} + k) / 4u];");
                for (e, lane) in LANES.iter().enumerate() {
                    let _ = writeln!(s, "        acc{i} = acc{i} + a{i}.{lane} * b{e};");
                }
            }
        } else {
            let _ = writeln!(s, "    for (var k = 0u; k < K; k = k + 1u) {{");
            let _ = writeln!(s, "        let bk = {};", b_load("k"));
            for i in 0..rows {
                let _ = writeln!(s, "        acc{i} = acc{i} + a[r{i} + k * sak] * bk;");
            }
        }
        s.push_str("    }\n    let obase = batch * M * N;\n");
        s.push_str(&self.scalars());
        for i in 0..rows {
            let _ = writeln!(s, "    {{\n    let m = m0 + {i}u;\n    if (m < M) {{");
            s.push_str(&self.store(&format!("acc{i}"), "n", cols == 4));
            s.push_str("    }\n    }\n");
        }
        s.push_str("}\n");
        s
    }

    /// alpha and beta, where the epilogue uses them.
    fn scalars(&self) -> String {
        let t = self.dtype.wgsl();
        let mut s = String::new();
        if self.scaled || self.with_c {
            let _ = writeln!(s, "    let alpha = bitcast<{t}>(p[14]);");
        }
        if self.with_c {
            let _ = writeln!(s, "    let beta = bitcast<{t}>(p[15]);");
        }
        s
    }

    /// Store accumulator `v` (a `vec4` of columns `n ..= n + 3`, or one column `n`) of row `m`.
    fn store(&self, v: &str, n: &str, vec: bool) -> String {
        let mut s = format!("        {{\n        let n = {n};\n");
        if !vec {
            let val = self.epilogue(v, "n");
            let _ = writeln!(
                s,
                "        if (n < N) {{ out[obase + m * N + n] = {val}; }}"
            );
        } else if self.out_vec {
            let val = self.epilogue_vec(v);
            let _ = writeln!(
                s,
                "        if (n < N) {{ out[(obase + m * N + n) / 4u] = {val}; }}"
            );
        } else {
            for (e, lane) in LANES.iter().enumerate() {
                let val = self.epilogue(&format!("{v}.{lane}"), &format!("n + {e}u"));
                let _ = writeln!(
                    s,
                    "        if (n + {e}u < N) {{ out[obase + m * N + n + {e}u] = {val}; }}"
                );
            }
        }
        s.push_str("        }\n");
        s
    }

    fn epilogue(&self, v: &str, n: &str) -> String {
        let e = self.epilogue_linear(v, n);
        if self.relu { format!("relu_f({e})") } else { e }
    }

    fn epilogue_linear(&self, v: &str, n: &str) -> String {
        match (self.with_c, self.scaled) {
            (true, _) => format!("beta * c[oc + m * scm + ({n}) * scn] + alpha * {v}"),
            (false, true) => format!("alpha * {v}"),
            (false, false) => v.to_string(),
        }
    }

    fn epilogue_vec(&self, v: &str) -> String {
        let e = self.epilogue_vec_linear(v);
        if self.relu { format!("relu_v({e})") } else { e }
    }

    fn epilogue_vec_linear(&self, v: &str) -> String {
        let t = self.dtype.wgsl();
        match (self.with_c, self.scaled) {
            (true, _) => format!(
                "beta * vec4<{t}>(c[oc + m * scm + n * scn], c[oc + m * scm + (n + 1u) * scn], \
                 c[oc + m * scm + (n + 2u) * scn], c[oc + m * scm + (n + 3u) * scn]) + alpha * {v}"
            ),
            (false, true) => format!("alpha * {v}"),
            (false, false) => v.to_string(),
        }
    }
}

/// WGSL that stages one operand's `BP x BK` tile into workgroup memory (`[k][p]` with vec4s
/// along p, or `[p][k]` with vec4s along k when `keep_mk`), zero outside the matrix, in two
/// halves: `fetch` reads global memory into registers (`{x}f0`, `{x}f1`, …) and `store` writes
/// them to workgroup memory, so the next step's reads can be issued before this step's math.
struct Stage<'a> {
    x: &'a str,
    shared: &'a str,
    p0: &'a str,
    pdim: &'a str,
    bp: u32,
    bk: u32,
    threads: u32,
    mode: Load,
    keep_mk: bool,
    /// The variable holding the offset of this step's copy in workgroup memory.
    base: &'a str,
    t: &'a str,
    off: &'a str,
    sp: &'a str,
    sk: &'a str,
}

impl Stage<'_> {
    fn units(&self) -> u32 {
        if self.mode.is_vec() {
            self.bp * self.bk / 4
        } else {
            self.bp * self.bk
        }
    }

    fn rounds(&self) -> u32 {
        self.units().div_ceil(self.threads)
    }

    fn zero(&self) -> String {
        if self.mode.is_vec() {
            format!("vec4<{}>()", self.t)
        } else {
            format!("{}(0)", self.t)
        }
    }

    /// Where element `idx` of the tile sits: `pp` (or the group `pg`) along P, `kk` (or `kg`).
    fn split(&self) -> String {
        let (bp, bk, q, kq) = (self.bp, self.bk, self.bp / 4, self.bk / 4);
        match self.mode {
            Load::PVec => format!("let pg = idx % {q}u; let kk = idx / {q}u;"),
            Load::KVec => format!("let kg = idx % {kq}u; let pp = idx / {kq}u;"),
            Load::PFast => format!("let pp = idx % {bp}u; let kk = idx / {bp}u;"),
            Load::KFast => format!("let kk = idx % {bk}u; let pp = idx / {bk}u;"),
        }
    }

    fn decls(&self) -> String {
        let mut s = String::new();
        for l in 0..self.rounds() {
            let _ = writeln!(s, "    var {}f{l} = {};", self.x, self.zero());
        }
        s
    }

    /// Read the tile whose K origin is `k` into the registers.
    fn fetch(&self, k: &str) -> String {
        let Stage {
            x,
            p0,
            pdim,
            off,
            sp,
            sk,
            ..
        } = *self;
        let (units, threads) = (self.units(), self.threads);
        let mut s = String::new();
        for l in 0..self.rounds() {
            let (gp, gk, load) = match self.mode {
                Load::PVec => (
                    format!("{p0} + pg * 4u"),
                    format!("{k} + kk"),
                    format!("{x}[({off} + gp + gk * {sk}) / 4u]"),
                ),
                Load::KVec => (
                    format!("{p0} + pp"),
                    format!("{k} + kg * 4u"),
                    format!("{x}[({off} + gp * {sp} + gk) / 4u]"),
                ),
                Load::PFast | Load::KFast => (
                    format!("{p0} + pp"),
                    format!("{k} + kk"),
                    format!("{x}[{off} + gp * {sp} + gk * {sk}]"),
                ),
            };
            let within = if (l + 1) * threads > units {
                format!("idx < {units}u && ")
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "        {{\n        let idx = {}u + tid; {}\n\
                 \x20       let gp = {gp}; let gk = {gk};\n\
                 \x20       {x}f{l} = {};\n\
                 \x20       if ({within}gp < {pdim} && gk < K) {{ {x}f{l} = {load}; }}\n        }}",
                l * threads,
                self.split(),
                self.zero()
            );
        }
        s
    }

    /// Write the registers to workgroup memory.
    fn store(&self) -> String {
        let Stage {
            x, shared, base, ..
        } = *self;
        let (units, threads, q, kq) = (self.units(), self.threads, self.bp / 4, self.bk / 4);
        let mut s = String::new();
        for l in 0..self.rounds() {
            let v = format!("{x}f{l}");
            let body = match self.mode {
                Load::PVec => format!("{shared}[{base} + kk * {q}u + pg] = {v};"),
                Load::KVec if self.keep_mk => {
                    format!("{shared}[{base} + pp * {kq}u + kg] = {v};")
                }
                Load::KVec => format!(
                    "let kb = {base} + kg * {}u + pp / 4u; let c = pp % 4u;\n\
                     \x20       {shared}[kb][c] = {v}.x;\n\
                     \x20       {shared}[kb + {q}u][c] = {v}.y;\n\
                     \x20       {shared}[kb + {}u][c] = {v}.z;\n\
                     \x20       {shared}[kb + {}u][c] = {v}.w;",
                    4 * q,
                    2 * q,
                    3 * q
                ),
                Load::PFast | Load::KFast => {
                    format!("{shared}[{base} + kk * {q}u + pp / 4u][pp % 4u] = {v};")
                }
            };
            let (open, close) = if (l + 1) * threads > units {
                (format!("if (idx < {units}u) {{ "), " }")
            } else {
                (String::new(), "")
            };
            let _ = writeln!(
                s,
                "        {{\n        let idx = {}u + tid; {}\n        {open}{body}{close}\n        }}",
                l * threads,
                self.split()
            );
        }
        s
    }
}
