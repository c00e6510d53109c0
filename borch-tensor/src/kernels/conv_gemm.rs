//! Convolution without im2col: the forward pass, the input gradient and the weight gradient
//! of a 2-D convolution (1-D ones as planes of height 1) as implicit GEMMs over the NCHW
//! tensors (the WGSL is in `conv_gemm_wgsl.rs`). One dispatch per product, or two with
//! split-K (partial sums into a scratch buffer of `S x` the output, then one reduction) where
//! the output grid is too small to fill the GPU. On request (`set_conv_sliced`) such a grid
//! runs instead as one dispatch: lanes (a register strip copied along K, `conv_strip_wgsl.rs`)
//! or, for a staged tile given as an override, copies of that tile; the copies' sums are added
//! in workgroup memory. Fewer dispatches, but slower on the GPUs measured (see `plan`).

use std::sync::Mutex;

use borch_device::{Device, Kernel, grid_for};

use super::conv_gemm_wgsl::{Epilogue, GEOMETRY, PARAMS, Pass, Spec, reduce_key, reduce_source};
use super::matmul::MatmulTile;
use super::{dispatch_grid, groups_for};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::unfold::Window2d;
use crate::tensor::Tensor;

/// A 2-D convolution's sizes: batch, channels, planes, kernel, stride, padding before,
/// dilation and groups (the output size already includes 'same''s extra padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ConvGeom {
    pub batch: usize,
    pub c_in: usize,
    pub c_out: usize,
    pub groups: usize,
    pub window: Window2d,
}

impl ConvGeom {
    fn taps(&self) -> usize {
        self.window.taps()
    }

    /// (M, N, K) of `pass`'s GEMM, per group.
    pub fn gemm(&self, pass: Pass) -> [usize; 3] {
        let (cg, mg, t) = (
            self.c_in / self.groups,
            self.c_out / self.groups,
            self.taps(),
        );
        let (plane, out_plane) = (
            self.window.input[0] * self.window.input[1],
            self.window.windows(),
        );
        match pass {
            Pass::Forward => [mg, self.batch * out_plane, cg * t],
            Pass::GradInput => [cg, self.batch * plane, mg * t],
            Pass::GradWeight => [mg, cg * t, self.batch * out_plane],
        }
    }
}

/// Overrides of the kernel choice, for benchmarks and tests (`cargo xtask bench conv` sets
/// them from `BORCH_CONV_TILE` / `BORCH_CONV_SPLITS`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Overrides {
    pub tile: Option<MatmulTile>,
    pub splits: Option<usize>,
    /// Bake the geometry into the shader (`None`: on GPUs, not on software adapters).
    pub baked: Option<bool>,
    /// Where the plan splits K: slices in one dispatch (`true`), or split-K's two dispatches
    /// (`false`, and borch's pick `None`).
    pub sliced: Option<bool>,
}

pub(crate) static OVERRIDES: Mutex<Overrides> = Mutex::new(Overrides {
    tile: None,
    splits: None,
    baked: None,
    sliced: None,
});

/// The geometry words (`GEOMETRY`'s order) when this pass's kernel bakes them in: the forward
/// and input gradient on GPUs, where a pipeline per convolution shape costs little to compile and
/// the constant divisions fold (H200, 2026-12-02: +5-30% forward, +0-25% input gradient);
/// not weight gradients (there it measured 0.7-1.05x), nor software adapters, where each compile
/// costs seconds (SwiftShader).
fn baked(device: &Device, pass: Pass, params: &[u32]) -> Option<[u32; 15]> {
    let bake = overrides()
        .baked
        .unwrap_or(!device.adapter_info().is_software && pass != Pass::GradWeight);
    bake.then(|| GEOMETRY.map(|g| params[PARAMS.iter().position(|p| *p == g).unwrap_or(0)]))
}

fn overrides() -> Overrides {
    *OVERRIDES.lock().unwrap_or_else(|p| p.into_inner())
}

/// The tile borch picks for a conv GEMM of `m x n` outputs per group, `k` deep (a starting
/// point: `cargo xtask bench conv --tile ...` measures others).
pub(crate) fn default_tile(software: bool, pass: Pass, m: usize, n: usize, k: usize) -> MatmulTile {
    if software {
        // SwiftShader (Chromium's software WebGPU) and lavapipe: the register strip, no
        // workgroup memory and no barriers, 8 (M <= 8) or 16 rows by 4 columns per thread. On
        // SwiftShader natively (2026-12-04, CIFAR ResNet-18 at width 8, batch 16) it took the
        // train step from 1.35 s on 4 x 4 staged tiles (32 x 32 blocks) to 0.84 s, on lavapipe
        // from 0.81 to 0.30 s; at full width on lavapipe (`bench conv --batches 2`) it ran
        // 1.0-2x the 8 x 8 staged tile's rate but for the strided input gradients (0.9x). The
        // staged tiles' unrolled gathers also took SwiftShader seconds to compile (8x8x16x16x8
        // minutes, 16x2x4x4x32 more than 24 GB). Fewer threads where the columns are few
        // (batch 1 on a 4 x 4 plane: 16), or half the workgroup idles: 2.5-2.7 against 1.3-1.4
        // GFLOP/s on SwiftShader for those forwards.
        let threads = n.div_ceil(4).next_power_of_two().clamp(1, 8) as u32;
        return MatmulTile::strip(threads, if m <= 8 { 8 } else { 16 }, 4);
    }
    if m <= 16 {
        // Few output channels per group (depthwise): 16 x 128 blocks.
        MatmulTile::new(32, 4, 4, 4, 16)
    } else if n <= 16 {
        // Few columns (batch 1 on 4 x 4 planes): 128 x 16 blocks.
        MatmulTile::new(4, 32, 4, 4, 16)
    } else if n <= 32 {
        MatmulTile::new(8, 16, 4, 4, 16)
    } else if pass == Pass::GradWeight && m * n >= 1 << 19 {
        // H200, 2026-12-03 (ResNet-18's b64 train step, GPU timestamps per kernel): 128 x 128
        // blocks ran the big weight gradients at 1.0-1.25x the 64 x 64 tile's rate. H100,
        // 2026-12-05 (`bench conv --batches 64 --tile ...`): 14.1 / 13.3 against 12.3 / 10.7
        // TFLOP/s for layers 3-4's 3 x 3 weight gradients, but 64 x 64 blocks ahead where
        // M x N is smaller: the stride-2 ones of layers 2-3 (11.4 / 11.1 against 9.8 / 10.6)
        // and the 1 x 1 shortcuts (5.1 against 2.7 at N = 64).
        MatmulTile::new(16, 16, 8, 8, 8)
    } else if pass != Pass::GradWeight
        && m >= 256
        && k >= 1024
        && m.div_ceil(128) * n.div_ceil(128) >= 32
    {
        // 256 threads with 8 x 8 outputs each over a long K: H100, 2026-12-05, b64, layers
        // 3-4's 3 x 3 forwards at 21.0 / 21.0 TFLOP/s against 18.8 / 17.4 on 64 x 64 blocks,
        // their input gradients 20.3 / 20.4 against 19.2 / 18.1 on the 128-thread tile below.
        MatmulTile::new(16, 16, 8, 8, 8)
    } else if pass == Pass::GradInput && m >= 128 && k >= 2048 {
        // 128 threads with 16 x 8 outputs each (the matmul's big tile): 1.13-1.16x the 64 x 64
        // tile on the input gradients of layers 3-4 (H200, 2026-12-03, b64).
        MatmulTile::new(16, 8, 16, 8, 8)
    } else if m >= 128 && k >= 256 && m.div_ceil(128) * n.div_ceil(128) >= 128 {
        MatmulTile::new(16, 16, 8, 8, 8)
    } else {
        // Double-buffered: 3-5% faster on an H200 at 64 x 64 blocks (2026-12-02); short K
        // (1 x 1 shortcuts) ran at ~2x the 128 x 128 tile's speed here.
        MatmulTile::new(16, 16, 4, 4, 16).double_buffered()
    }
}

/// The number of K slices: enough workgroups to fill the device (`target` of them), each
/// slice at least four steps of BK long (512 elements for a strip, `bk == 0`: a short slice
/// on a CPU costs less than the reduction's dispatch).
pub(crate) fn default_splits(tiles: usize, k: usize, bk: usize, target: usize) -> usize {
    if tiles * 2 >= target {
        return 1;
    }
    let min_slice = if bk == 0 { 512 } else { 4 * bk };
    (target / tiles.max(1))
        .min(k / min_slice)
        .clamp(1, MAX_SPLITS)
}

/// The most K splits of one pass: the stem's weight gradient at batch 64 (one 64 x 64 tile over
/// K = 65,536) ran 122 us on an H100 in 64 splits, 64 workgroups for 132 SMs.
const MAX_SPLITS: usize = 256;

/// Workgroups a pass aims for. On GPUs about two per SM of an H200's 132, four for weight
/// gradients, which have the longest K (batch × output plane) and the smallest grids: measured
/// on an H200 (2026-12-02), ResNet-18's 8×8×256 and 4×4×512 weight gradients at batch 64 (144
/// tiles, unsplit at 264) ran at 6.5–7.7 TFLOP/s whole and 10.8–12.9 in 4 slices. Software
/// adapters split only weight gradients, into 32 workgroups (a CPU runs a workgroup on one core;
/// a narrow layer's weight gradient is a few workgroups over K = batch × plane).
fn split_target(software: bool, pass: Pass) -> usize {
    match (software, pass) {
        (false, Pass::GradWeight) => 1056,
        (false, _) => 264,
        (true, Pass::GradWeight) => 32,
        (true, _) => 0,
    }
}

/// How a pass's GEMM is cut: its tile, the K splits across workgroups (`splits > 1`: a second
/// dispatch adds them) and the copies of the tile in one workgroup (`slices > 1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub tile: MatmulTile,
    pub splits: usize,
    pub slices: u32,
}

fn tiles_of(tile: MatmulTile, m: usize, n: usize, groups: usize) -> usize {
    m.div_ceil(tile.bm() as usize) * n.div_ceil(tile.bn() as usize) * groups
}

/// The plan `pass` runs with on `device`.
pub(crate) fn plan(device: &Device, geom: &ConvGeom, pass: Pass) -> Result<Plan> {
    let software = device.adapter_info().is_software;
    let [m, n, k] = geom.gemm(pass);
    let o = overrides();
    let tile = o
        .tile
        .unwrap_or_else(|| default_tile(software, pass, m, n, k));
    tile.check(device.limits())?;
    let tiles = tiles_of(tile, m, n, geom.groups);
    let splits = o
        .splits
        .unwrap_or_else(|| default_splits(tiles, k, tile.bk as usize, split_target(software, pass)))
        .clamp(1, k.max(1));
    // On GPUs a small forward grid runs as one dispatch of lanes (a register strip whose
    // copies each take part of K, summed in workgroup memory) instead of split-K's two.
    // One dispatch instead of split-K's two stays opt-in: on an H100 (2026-12-06) the lanes
    // (then one row per thread) made the fused CIFAR ResNet-18 eval forward at batch 1 22
    // dispatches but 1.41 ms, against split-K's 40 and 0.67 ms in the same call.
    if o.sliced == Some(true) && splits > 1 {
        let mnkg = [m, n, k, geom.groups];
        return match o.tile {
            Some(t) if t.bk > 0 => sliced_plan(device, t, mnkg, o.splits),
            _ => lanes_plan(device, mnkg, o),
        };
    }
    Ok(Plan {
        tile,
        splits,
        slices: 1,
    })
}

/// Fewest workgroups of a lanes plan with 8 rows per thread (else 4).
const LANES_MIN_GROUPS: usize = 128;

/// A small grid's one-dispatch plan as lanes: `C = 4` columns per thread (1 below 16 columns),
/// neighbouring threads on neighbouring columns (up to a warp's 32, as many as the columns
/// need), copies of them along K (up to 256 threads, each copy at least 32 elements of K), and
/// 8 rows per thread, 4 where that leaves fewer than `LANES_MIN_GROUPS` workgroups: on an H100
/// (2026-12-06, batch 1) one row per thread gave 512 workgroups but gathered B once per row,
/// 0.2-0.5x the rate of 4-8 rows. The overrides' tile (a strip) and split count, when set, are
/// the strip and the number of copies.
fn lanes_plan(device: &Device, [m, n, k, groups]: [usize; 4], o: Overrides) -> Result<Plan> {
    let limits = device.limits();
    let cols: u32 = if n >= 16 { 4 } else { 1 };
    let threads_x = (n.div_ceil(cols as usize).next_power_of_two() as u32).clamp(1, 32);
    let mut lanes = 1u32;
    while threads_x * lanes * 2 <= 256 && k >= (lanes as usize) * 2 * 32 {
        lanes *= 2;
    }
    let col_blocks = n.div_ceil((threads_x * cols) as usize) * groups;
    let rows = if m.div_ceil(8) * col_blocks >= LANES_MIN_GROUPS {
        8
    } else {
        4
    };
    let tile = o.tile.unwrap_or(MatmulTile::strip(threads_x, rows, cols));
    // borch's count halves until the sums fit the adapter's workgroup memory.
    let red = |lanes: u32| {
        4 * u64::from(tile.rows * tile.cols) * (u64::from(tile.threads()) * u64::from(lanes) + 1)
    };
    while o.splits.is_none()
        && lanes > 1
        && red(lanes) > u64::from(limits.max_compute_workgroup_storage_size)
    {
        lanes /= 2;
    }
    let lanes = o
        .splits
        .map_or(lanes, |s| u32::try_from(s).unwrap_or(u32::MAX));
    tile.check(limits)?;
    let threads = u64::from(tile.threads()) * u64::from(lanes);
    if threads > u64::from(limits.max_compute_invocations_per_workgroup)
        || threads > u64::from(limits.max_compute_workgroup_size_x)
        || red(lanes) > u64::from(limits.max_compute_workgroup_storage_size)
    {
        return crate::error::not_impl(format!(
            "a conv strip {tile} in {lanes} lanes does not fit this adapter's workgroups"
        ));
    }
    Ok(Plan {
        tile,
        splits: 1,
        slices: lanes,
    })
}

/// Workgroup memory a sliced kernel needs: `slices` copies of the staged tiles and the sums of
/// copies 1.. (bytes).
fn sliced_bytes(tile: MatmulTile, slices: u32) -> u32 {
    slices * tile.staged_bytes() + 4 * (slices - 1) * tile.bm() * tile.bn()
}

/// A small grid's one-dispatch plan with staged tiles: as many copies of `tile` per workgroup
/// (up to 256 threads) as K has steps for, four steps of BK each at least, or `copies`.
fn sliced_plan(
    device: &Device,
    tile: MatmulTile,
    [_, _, k, _]: [usize; 4],
    copies: Option<usize>,
) -> Result<Plan> {
    let limits = device.limits();
    tile.check(limits)?;
    let threads = tile.threads();
    let fits = |slices: u32| {
        slices * threads <= limits.max_compute_invocations_per_workgroup
            && slices <= limits.max_compute_workgroup_size_z
            && sliced_bytes(tile, slices) <= limits.max_compute_workgroup_storage_size
    };
    let slices = match copies {
        Some(s) => u32::try_from(s).unwrap_or(u32::MAX),
        None => {
            let mut slices = 1u32;
            while slices * 2 * threads <= 256
                && (k as u64) >= u64::from(slices * 2 * tile.bk * 4)
                && fits(slices * 2)
            {
                slices *= 2;
            }
            slices
        }
    };
    if !fits(slices) {
        return crate::error::not_impl(format!(
            "a conv tile {tile} with {slices} slices does not fit this adapter's workgroups"
        ));
    }
    Ok(Plan {
        tile,
        splits: 1,
        slices,
    })
}

/// Whether `pass`'s grid fits the device's dispatch limits (x: columns, y: rows, z: groups x
/// splits).
pub(crate) fn fits(device: &Device, geom: &ConvGeom, pass: Pass) -> Result<bool> {
    let Plan { tile, splits, .. } = plan(device, geom, pass)?;
    let [m, n, _] = geom.gemm(pass);
    let max = device.limits().max_compute_workgroups_per_dimension as usize;
    // The tap table packs each tap's offsets in 16 bits.
    let w = &geom.window;
    let spans_fit = (0..2).all(|i| w.dilation[i] * (w.kernel[i] - 1) < 1 << 16);
    Ok(spans_fit
        && n.div_ceil(tile.bn() as usize) <= max
        && m.div_ceil(tile.bm() as usize) <= max
        && geom.groups * splits <= max)
}

/// The most samples one dispatch of every pass can take: the grid's x dimension (blocks of
/// columns) stays within the device's limit (at least 1; `fits` checks one sample).
pub(crate) fn max_batch(device: &Device, geom: &ConvGeom) -> Result<usize> {
    let max = device.limits().max_compute_workgroups_per_dimension as usize;
    let one = ConvGeom { batch: 1, ..*geom };
    let mut rows = usize::MAX;
    for pass in [Pass::Forward, Pass::GradInput] {
        // The whole batch's tile: a software strip narrows only for a few columns in all.
        let tile = plan(device, geom, pass)?.tile;
        let per_sample = one.gemm(pass)[1].max(1);
        rows = rows.min(max * tile.bn() as usize / per_sample);
    }
    Ok(rows.max(1))
}

/// The tensors a pass reads: its two operands (contiguous), and the epilogue's.
pub(crate) struct Operands<'a> {
    pub a: &'a Tensor,
    pub b: &'a Tensor,
    pub bias: Option<&'a Tensor>,
    pub residual: Option<&'a Tensor>,
    pub relu: bool,
}

/// Run `pass` of the convolution `geom`; the result has shape `out_shape` (contiguous).
pub(crate) fn run(
    pass: Pass,
    geom: &ConvGeom,
    ops: &Operands<'_>,
    out_shape: &[usize],
) -> Result<Tensor> {
    let device = ops.a.device().clone();
    let out = Tensor::uninit(&device, out_shape, DType::Float32)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let Plan {
        tile,
        splits,
        slices,
    } = plan(&device, geom, pass)?;
    let [m, n, k] = geom.gemm(pass);
    // A strip (bk 0) steps one element of K at a time.
    let bk = (tile.bk as usize).max(1);
    let kc = k.div_ceil(splits).div_ceil(bk) * bk;
    let splits = if k == 0 { 1 } else { k.div_ceil(kc.max(1)) };
    let w = &geom.window;
    // The stores' plane and channel count: out[(q * CT + g * M + m) * PL + col % PL].
    let (plane, channels) = match pass {
        Pass::Forward => (w.windows(), geom.c_out),
        Pass::GradInput => (w.input[0] * w.input[1], geom.c_in),
        Pass::GradWeight => (n, 0),
    };
    let epilogue = Epilogue {
        bias: ops.bias.is_some(),
        residual: ops.residual.is_some(),
        relu: ops.relu,
    };
    let words: [usize; 27] = [
        m,
        n,
        k,
        kc.max(bk),
        splits,
        geom.batch,
        geom.c_in,
        w.input[0],
        w.input[1],
        geom.c_out,
        w.output[0],
        w.output[1],
        w.kernel[0],
        w.kernel[1],
        w.stride[0],
        w.stride[1],
        w.padding[0],
        w.padding[1],
        w.dilation[0],
        w.dilation[1],
        geom.groups,
        ops.a.storage_offset(),
        ops.b.storage_offset(),
        ops.bias.map_or(0, Tensor::storage_offset),
        ops.residual.map_or(0, Tensor::storage_offset),
        plane,
        channels,
    ];
    debug_assert_eq!(words.len(), PARAMS.len());
    let mut params: Vec<u32> = words.iter().map(|&x| x as u32).collect();
    // The tap table (`TAPS` in the WGSL): each tap's offset within the window.
    for ky in 0..w.kernel[0] {
        for kx in 0..w.kernel[1] {
            params.push(((ky * w.dilation[0]) << 16 | (kx * w.dilation[1])) as u32);
        }
    }
    let split = splits > 1;
    let scratch = if split {
        Some(Tensor::uninit(
            &device,
            &[geom.groups * splits * m * n],
            DType::Float32,
        )?)
    } else {
        None
    };
    let spec = Spec {
        pass,
        tile,
        split,
        slices,
        epilogue,
        unit_stride: w.stride == [1, 1],
        baked: baked(&device, pass, &params),
    };
    let key = spec.key();
    let source = || spec.source();
    let kernel = Kernel {
        key: &key,
        source: &source,
        // Every global access is guarded by construction (see conv_gemm_wgsl.rs).
        bounds_checked: false,
    };
    let target = scratch.as_ref().unwrap_or(&out);
    let mut bound: Vec<&Tensor> = vec![target, ops.a, ops.b];
    if !split {
        bound.extend(ops.bias);
        bound.extend(ops.residual);
    }
    let gx = n.div_ceil(tile.bn() as usize) as u32;
    let gy = m.div_ceil(tile.bm() as usize) as u32;
    dispatch_grid(
        &device,
        &kernel,
        &bound,
        &params,
        [gx, gy, (geom.groups * splits) as u32],
    )?;
    if let Some(part) = &scratch {
        let key = reduce_key(epilogue);
        let source = || reduce_source(epilogue);
        let kernel = Kernel {
            key: &key,
            source: &source,
            // One guarded thread per output element; reads stay inside the scratch buffer.
            bounds_checked: false,
        };
        let mut bound: Vec<&Tensor> = vec![&out, part];
        bound.extend(ops.bias);
        bound.extend(ops.residual);
        let total = geom.groups * m * n;
        let max_x = device.limits().max_compute_workgroups_per_dimension;
        let grid = grid_for(groups_for(total), max_x);
        dispatch_grid(&device, &kernel, &bound, &params, grid)?;
    }
    Ok(out)
}

/// The WGSL of every specialisation the tests and the golden runs compile, for validation.
pub(crate) fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let tiles = [
        MatmulTile::new(8, 8, 4, 4, 8),
        MatmulTile::new(16, 16, 4, 4, 16),
        MatmulTile::new(32, 4, 4, 4, 16),
        MatmulTile::new(16, 16, 8, 8, 8),
        MatmulTile::new(8, 8, 8, 8, 8),
        MatmulTile::new(4, 32, 4, 4, 16),
        MatmulTile::new(8, 16, 4, 4, 16),
        MatmulTile::strip(8, 16, 4),
        MatmulTile::strip(8, 8, 4),
        MatmulTile::strip(4, 3, 1),
    ];
    for pass in [Pass::Forward, Pass::GradInput, Pass::GradWeight] {
        for tile in tiles {
            for split in [false, true] {
                let epilogue = Epilogue {
                    bias: true,
                    residual: pass == Pass::Forward,
                    relu: pass == Pass::Forward,
                };
                let spec = Spec {
                    pass,
                    tile,
                    split,
                    // Slices for small unsplit tiles (split-K and slices never run together).
                    // Lanes for strips (any of them, split or not).
                    slices: if tile.bk == 0 {
                        if split { 3 } else { 16 }
                    } else if !split && tile.threads_x * tile.threads_y <= 64 {
                        4
                    } else {
                        1
                    },
                    epilogue,
                    unit_stride: split,
                    baked: split.then_some([3, 9, 8, 4, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1]),
                };
                out.push((spec.key(), spec.source()));
            }
        }
    }
    let e = Epilogue {
        bias: true,
        residual: true,
        relu: true,
    };
    out.push((reduce_key(e), reduce_source(e)));
    out.push((
        reduce_key(Epilogue::default()),
        reduce_source(Epilogue::default()),
    ));
    out
}
