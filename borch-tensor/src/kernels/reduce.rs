//! The one reduction kernel: each output element folds the elements of a strided input over the
//! reduced dims, described as "map, combine, finalize" WGSL snippets (source in reduce_wgsl.rs).
//! An optional first pass (the max for logsumexp and softmax, the mean for var) gives the second
//! pass `pre`. Rows longer than `THREAD_ROW_MAX` are folded by one workgroup of 256 threads
//! (strided loop, then a shared-memory tree); shorter rows by one thread each. When a few rows
//! are very long, each row is cut into chunks folded by their own workgroups, and a second
//! dispatch combines the chunks' partial results. Softmax-like ops write every element of the
//! row (`Output::Elementwise`) instead of one value.

use borch_device::Kernel;

use super::reduce_wgsl::{HEADER, Stage, key, source};
use super::{groups_for, launch, w};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// Rows up to this length are reduced by one thread each, longer ones by a workgroup.
const THREAD_ROW_MAX: usize = 64;
/// Rows at least this long are split into chunks when there are fewer than `SPLIT_MAX_OUT`.
const SPLIT_MIN_ROW: usize = 32768;
const SPLIT_MAX_OUT: usize = 128;
/// Elements per chunk, and the most chunks per row.
const CHUNK: usize = 8192;
const MAX_CHUNKS: usize = 1024;

/// How elements fold into an accumulator of WGSL type `acc`.
pub(crate) struct Fold {
    pub acc: &'static str,
    pub init: String,
    /// Of `x` (the element converted to the spec's compute type) and `pre`.
    pub map: String,
    pub combine: Combine,
}

pub(crate) enum Combine {
    /// A new accumulator from `a` and `b`.
    Expr(String),
    /// Keep the value with an index: whether `(b, ib)` replaces `(a, ia)`; an empty slot has
    /// index -1 and never wins.
    Take(String),
}

/// The first pass: an f32 fold and its finalizer (of `acc` and `n`), giving `pre`.
pub(crate) struct Pre {
    pub fold: Fold,
    pub finalize: String,
}

pub(crate) enum Output {
    /// One value per output: `finalize` of `acc`, `n` (the row length as f32) and `pre`,
    /// yielding `dtype`'s WGSL type; with `index`, also the winning index (int64).
    Value {
        dtype: DType,
        finalize: String,
        index: bool,
    },
    /// Only the winning index (argmax).
    Index,
    /// Every element of the row: `expr` of `x`, `acc`, `n` and `pre`.
    Elementwise { dtype: DType, expr: String },
}

/// A whole reduction. Snippets may read the float extras as `k(0u)`, `k(1u)`, ….
pub(crate) struct ReduceSpec {
    pub compute: DType,
    pub pre: Option<Pre>,
    pub fold: Fold,
    pub output: Output,
    pub extras: Vec<f32>,
}

/// Dims of one side (kept or reduced) after dropping size-1 dims and merging neighbours.
#[derive(Default)]
struct Dims {
    shape: Vec<usize>,
    strides: Vec<isize>,
    out_strides: Vec<isize>,
}

impl Dims {
    fn push(&mut self, n: usize, stride: isize, out_stride: isize) {
        if n == 1 {
            return;
        }
        if let (Some(last_n), Some(last_s), Some(last_o)) = (
            self.shape.last_mut(),
            self.strides.last_mut(),
            self.out_strides.last_mut(),
        ) {
            if *last_s == stride * n as isize && *last_o == out_stride * n as isize {
                *last_n *= n;
                *last_s = stride;
                *last_o = out_stride;
                return;
            }
        }
        self.shape.push(n);
        self.strides.push(stride);
        self.out_strides.push(out_stride);
    }
}

/// The kept and reduced dims of a reduction, merged where strides allow.
struct Plan {
    kept: Dims,
    red: Dims,
    n_out: usize,
    n_red: usize,
    offset: usize,
}

impl Plan {
    /// With `elementwise`, out-strides (of a contiguous output of the input's shape) are kept,
    /// and dims merge only where both strides allow.
    fn new(layout: &Layout, reduced: &[bool], elementwise: bool) -> Plan {
        let out_layout = Layout::contiguous(&layout.shape);
        let (mut kept, mut red) = (Dims::default(), Dims::default());
        let (mut n_out, mut n_red) = (1usize, 1usize);
        for (d, &is_reduced) in reduced.iter().enumerate() {
            let n = layout.shape[d];
            let st = layout.strides[d];
            let ost = if elementwise {
                out_layout.strides[d]
            } else {
                0
            };
            if is_reduced {
                n_red *= n;
                red.push(n, st, ost);
            } else {
                n_out *= n;
                kept.push(n, st, ost);
            }
        }
        if n_red == 0 {
            red = Dims::default();
        }
        Plan {
            kept,
            red,
            n_out,
            n_red,
            offset: layout.offset,
        }
    }

    /// Params for a dispatch whose rows are cut into `chunks` chunks of `chunk` elements;
    /// finalizers see `n` as the row length.
    fn params(&self, extras: &[f32], n: usize, chunks: usize, chunk: usize, out: bool) -> Vec<u32> {
        let mut p: Vec<u32> = vec![
            self.n_out as u32,
            self.n_red as u32,
            self.offset as u32,
            self.kept.shape.len() as u32,
            self.red.shape.len() as u32,
            n as u32,
            chunks as u32,
            chunk.max(1) as u32,
        ];
        debug_assert_eq!(p.len(), HEADER);
        p.extend(extras.iter().map(|x| x.to_bits()));
        p.extend(self.kept.shape.iter().map(|&n| n as u32));
        p.extend(self.kept.strides.iter().map(|&s| w(s)));
        p.extend(self.red.shape.iter().map(|&n| n as u32));
        p.extend(self.red.strides.iter().map(|&s| w(s)));
        if out {
            p.extend(self.kept.out_strides.iter().map(|&s| w(s)));
            p.extend(self.red.out_strides.iter().map(|&s| w(s)));
        }
        p
    }
}

/// Whether reducing `flags` of `shape` cuts rows into chunks (few, very long rows).
pub(crate) fn splits_rows(shape: &[usize], flags: &[bool]) -> bool {
    let (mut n_out, mut n_red) = (1usize, 1usize);
    for (&n, &r) in shape.iter().zip(flags) {
        if r {
            n_red *= n;
        } else {
            n_out *= n;
        }
    }
    n_red >= SPLIT_MIN_ROW && n_out < SPLIT_MAX_OUT
}

/// The dtype of tensors holding accumulators of WGSL type `acc`.
pub(crate) fn acc_dtype(acc: &str) -> DType {
    match acc {
        "f32" => DType::Float32,
        "i32" => DType::Int64,
        _ => DType::Bool,
    }
}

struct Dispatch<'a> {
    spec: &'a ReduceSpec,
    stage: Stage,
    wg: bool,
    input_dtype: DType,
    groups: u32,
}

impl Dispatch<'_> {
    fn run(&self, bound: &[&Tensor], params: &[u32]) -> Result<()> {
        let key = key(self.spec, self.input_dtype, self.wg, self.stage);
        let make_source = || source(self.spec, self.input_dtype, self.wg, self.stage);
        let kernel = Kernel {
            key: &key,
            source: &make_source,
            bounds_checked: true,
        };
        let device = bound[0].device().clone();
        launch(&device, &kernel, bound, params, self.groups)
    }
}

/// Run `spec` over `input`, reducing the dims marked in `reduced` (one flag per dim).
/// The outputs are new contiguous tensors: for `Value`/`Index` of the kept dims' shape
/// (`out_shape`, which may hold keepdim's 1s), for `Elementwise` of the input's shape.
/// Returns (values, indices), each present when the output kind writes it.
pub(crate) fn reduce(
    spec: &ReduceSpec,
    input: &Tensor,
    reduced: &[bool],
    out_shape: &[usize],
) -> Result<(Option<Tensor>, Option<Tensor>)> {
    let device = input.device().clone();
    let elementwise = matches!(spec.output, Output::Elementwise { .. });
    let (values, indices) = match &spec.output {
        Output::Value { dtype, index, .. } => (
            Some(Tensor::uninit(&device, out_shape, *dtype)?),
            index
                .then(|| Tensor::uninit(&device, out_shape, DType::Int64))
                .transpose()?,
        ),
        Output::Index => (
            None,
            Some(Tensor::uninit(&device, out_shape, DType::Int64)?),
        ),
        Output::Elementwise { dtype, .. } => {
            (Some(Tensor::uninit(&device, input.shape(), *dtype)?), None)
        }
    };
    let plan = Plan::new(input.layout(), reduced, elementwise);
    let (n_out, n_red) = (plan.n_out, plan.n_red);
    if n_out == 0 || (elementwise && n_red == 0) {
        return Ok((values, indices));
    }
    let mut outs: Vec<&Tensor> = values.iter().chain(indices.iter()).collect();
    let split = spec.pre.is_none() && !elementwise && splits_rows(input.shape(), reduced);
    if !split {
        let wg = n_red > THREAD_ROW_MAX;
        let params = plan.params(&spec.extras, n_red, 1, n_red, elementwise);
        outs.push(input);
        let d = Dispatch {
            spec,
            stage: Stage::Whole,
            wg,
            input_dtype: input.dtype(),
            groups: if wg { n_out as u32 } else { groups_for(n_out) },
        };
        d.run(&outs, &params)?;
        return Ok((values, indices));
    }
    let chunks = n_red.div_ceil(CHUNK).min(MAX_CHUNKS);
    let chunk = n_red.div_ceil(chunks);
    let acc_dt = acc_dtype(spec.fold.acc);
    let part = Tensor::uninit(&device, &[n_out, chunks], acc_dt)?;
    let indexed = matches!(spec.fold.combine, Combine::Take(_));
    let part_i = indexed
        .then(|| Tensor::uninit(&device, &[n_out, chunks], DType::Int64))
        .transpose()?;
    let mut bound: Vec<&Tensor> = std::iter::once(&part).chain(part_i.iter()).collect();
    bound.push(input);
    Dispatch {
        spec,
        stage: Stage::Partial,
        wg: true,
        input_dtype: input.dtype(),
        groups: (n_out * chunks) as u32,
    }
    .run(
        &bound,
        &plan.params(&spec.extras, n_red, chunks, chunk, false),
    )?;
    let final_plan = Plan::new(part.layout(), &[false, true], false);
    let wg = chunks > THREAD_ROW_MAX;
    outs.push(&part);
    outs.extend(part_i.iter());
    Dispatch {
        spec,
        stage: Stage::Final,
        wg,
        input_dtype: acc_dt,
        groups: if wg { n_out as u32 } else { groups_for(n_out) },
    }
    .run(
        &outs,
        &final_plan.params(&spec.extras, n_red, 1, chunks, false),
    )?;
    Ok((values, indices))
}
