//! Scaled dot-product attention as the fused kernels of `kernels/sdpa.rs`, recorded for
//! autograd as one op that brings its own backward (4 dispatches; the probabilities are
//! recomputed from q, k and the saved logsumexp). borch-nn's `F.scaled_dot_product_attention`
//! validates the call (torch's messages) and routes here where [`sdpa_fusable`] says so; the
//! rest (dropout, a float mask that requires grad, head dims above 128, empty tensors) takes
//! the math path. While a backward builds a graph (`create_graph`), the gradients come from the
//! caller's composed function instead (borch-nn: the math path with a graph).

use std::sync::{Arc, Mutex};

use crate::autograd::{BackwardFn, Node, Op, is_grad_enabled, record};
use crate::dtype::DType;
use crate::error::{Result, runtime};
use crate::kernels::sdpa::{self as k, Mask4, MaskKind, Problem, View4};
use crate::layout::broadcast_shapes;
use crate::scalar::Operand;
use crate::tensor::Tensor;

/// Which algorithm `F.scaled_dot_product_attention` uses (for benchmarks and tests).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SdpaPath {
    /// The fused kernels wherever they take the call.
    Auto,
    /// torch's math path (composed ops, the `L x S` matrix materialised).
    Math,
    /// The fused kernels, but the one-row-per-thread forward where the tiled one would run.
    Rows,
    /// The fused kernels with the tiled forward's 32-key blocks where it runs (tests).
    TiledBlock32,
}

static PATH: Mutex<SdpaPath> = Mutex::new(SdpaPath::Auto);

/// Choose the attention algorithm (process-wide).
#[doc(hidden)]
pub fn set_sdpa_path(path: SdpaPath) {
    *PATH.lock().unwrap_or_else(|p| p.into_inner()) = path;
}

/// The attention algorithm chosen (process-wide).
#[doc(hidden)]
pub fn sdpa_path() -> SdpaPath {
    *PATH.lock().unwrap_or_else(|p| p.into_inner())
}

/// The gradients of `(query, key, value)` from differentiable ops, for a backward that builds
/// a graph: called with the recorded inputs (with their graph) and the output's gradient.
pub type SdpaComposed =
    Arc<dyn Fn(&[Tensor], &Tensor) -> Result<Vec<Option<Tensor>>> + Send + Sync>;

/// The options past query, key and value (validated by the caller; dropout is not fused).
#[derive(Clone, Copy)]
pub struct SdpaOptions<'a> {
    /// torch's `attn_mask`: a bool mask (true attends) or a float bias added to the scores.
    pub attn_mask: Option<&'a Tensor>,
    /// torch's `is_causal`: each query attends to the keys at or before its position.
    pub is_causal: bool,
    /// torch's `scale`, resolved (`1/sqrt(E)` when torch's is None).
    pub scale: f64,
    /// torch's `enable_gqa`: key and value heads shared by groups of query heads.
    pub enable_gqa: bool,
}

/// How the operands line up: the broadcast batch dims (before the heads), the heads of query,
/// key and value, and the sizes.
#[derive(Clone, Debug)]
struct Plan {
    outer: Vec<usize>,
    heads: [usize; 3],
    l: usize,
    s: usize,
    e: usize,
    ev: usize,
    bc: u32,
    /// The tiled forward's key block, where it runs.
    tiled: Option<u32>,
    /// The output's shape as torch's math path gives it (no heads dim for 2-D inputs).
    out_shape: Vec<usize>,
}

impl Plan {
    fn b(&self) -> usize {
        self.outer.iter().product()
    }

    /// The full shape of operand `i` (0 q, 1 k, 2 v) before flattening the batch.
    fn full(&self, i: usize) -> Vec<usize> {
        let (rows, cols) = match i {
            0 => (self.l, self.e),
            1 => (self.s, self.e),
            _ => (self.s, self.ev),
        };
        let mut s = self.outer.clone();
        s.extend([self.heads[i], rows, cols]);
        s
    }
}

fn split(t: &Tensor) -> (Vec<usize>, usize) {
    let s = t.shape();
    let n = s.len();
    if n >= 3 {
        (s[..n - 3].to_vec(), s[n - 3])
    } else {
        (Vec::new(), 1)
    }
}

/// The plan of a fusable call, or None where the math path must take it.
fn plan(q: &Tensor, k: &Tensor, v: &Tensor, o: &SdpaOptions<'_>) -> Option<Plan> {
    let d = |t: &Tensor, i: usize| t.shape()[t.dim() - i];
    let (l, s, e, ev) = (d(q, 2), d(k, 2), d(q, 1), d(v, 1));
    if d(k, 1) != e || d(v, 2) != s || l == 0 || s == 0 || e == 0 || ev == 0 {
        return None;
    }
    if e > k::MAX_HEAD_DIM || ev > k::MAX_HEAD_DIM {
        return None;
    }
    let (heads, outer, out_lead) = if o.enable_gqa {
        if q.dim() < 3 || k.dim() < 3 || v.dim() < 3 {
            return None;
        }
        let ((oq, hq), (ok, hk), (ov, hv)) = (split(q), split(k), split(v));
        if hk == 0 || hv == 0 || hq % hk != 0 || hq % hv != 0 {
            return None;
        }
        let outer = broadcast_shapes(&broadcast_shapes(&oq, &ok).ok()?, &ov).ok()?;
        let mut lead = outer.clone();
        lead.push(hq);
        ([hq, hk, hv], outer, lead)
    } else {
        let lead = |t: &Tensor| t.shape()[..t.dim() - 2].to_vec();
        let batch = broadcast_shapes(&broadcast_shapes(&lead(q), &lead(k)).ok()?, &lead(v)).ok()?;
        match batch.split_last() {
            Some((&h, outer)) => ([h, h, h], outer.to_vec(), batch.clone()),
            None => ([1, 1, 1], Vec::new(), Vec::new()),
        }
    };
    let dev = q.device();
    let limit = dev.limits().max_compute_workgroup_storage_size;
    let bc = k::block_for(e, ev, limit)?;
    let tiled = match sdpa_path() {
        SdpaPath::Rows => None,
        SdpaPath::TiledBlock32 => k::tiled_block(e, ev, limit, &[32]),
        _ => k::tiled_block(e, ev, limit, &[64, 32]),
    };
    let mut out_shape = out_lead;
    out_shape.extend([l, ev]);
    let plan = Plan {
        out_shape,
        outer,
        heads,
        l,
        s,
        e,
        ev,
        bc,
        tiled,
    };
    let max = dev.limits().max_compute_workgroups_per_dimension as usize;
    let rows = l.max(s).div_ceil(k::T as usize);
    let words = [
        plan.b() * heads[0] * l * ev.max(e),
        2 * plan.b() * heads[0] * l,
    ];
    if plan.b() * heads[0] > max || rows > max || words.iter().any(|&w| w >= u32::MAX as usize / 2)
    {
        return None;
    }
    if let Some(m) = o.attn_mask {
        let mut scores = plan.outer.clone();
        scores.extend([heads[0], l, s]);
        if broadcast_shapes(&scores, m.shape()).ok()? != scores {
            return None;
        }
    }
    Some(plan)
}

/// Whether the fused kernels take this call (f32 operands, no dropout, a bool mask or a float
/// mask that needs no gradient, head dims up to 128 — up to 64 on GPUs —, no empty dims).
pub fn sdpa_fusable(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    dropout_p: f64,
    o: &SdpaOptions<'_>,
) -> bool {
    if sdpa_path() == SdpaPath::Math || dropout_p > 0.0 {
        return false;
    }
    if [q, k, v]
        .iter()
        .any(|t| t.dtype() != DType::Float32 || t.dim() < 2)
    {
        return false;
    }
    if let Some(m) = o.attn_mask {
        let grad = m.requires_grad() && is_grad_enabled();
        if !(m.dtype() == DType::Bool || (m.dtype() == DType::Float32 && !grad)) {
            return false;
        }
    }
    // On GPUs, head dims above 64 run the math path: measured on an H200 (2026-12-02, `bench
    // sdpa`), (8, 8, 512, 128) took 5.0 ms fused against 0.93 ms math forward (one query row
    // per thread holds too many registers at 128).
    let head_dim = q.shape()[q.dim() - 1].max(v.shape()[v.dim() - 1]);
    if head_dim > 64 && !q.device().adapter_info().is_software {
        return false;
    }
    plan(q, k, v, o).is_some()
}

/// `t` expanded to `full` and seen as `(B, heads, rows, cols)` with unit column stride.
fn view4(t: &Tensor, full: &[usize]) -> Result<Tensor> {
    let n = full.len();
    let shape: Vec<isize> = full.iter().map(|&d| d as isize).collect();
    let mut x = t.detach().expand(&shape)?;
    let b: usize = full[..n - 3].iter().product();
    let flat = [b as isize, shape[n - 3], shape[n - 2], shape[n - 1]];
    x = x.reshape(&flat)?;
    if x.stride()[3] != 1 && full[n - 1] > 1 {
        x = x.contiguous()?;
    }
    Ok(x)
}

fn strides3(t: &Tensor) -> [usize; 3] {
    let s = t.stride();
    [s[0] as usize, s[1] as usize, s[2] as usize]
}

/// The normalised operands of one call.
struct Views {
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Option<(Tensor, MaskKind)>,
}

fn views(plan: &Plan, q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Result<Views> {
    let mask = match mask {
        Some(m) => {
            let mut full = plan.outer.clone();
            full.extend([plan.heads[0], plan.l, plan.s]);
            let shape: Vec<isize> = full.iter().map(|&d| d as isize).collect();
            let x = m.detach().expand(&shape)?.reshape(&[
                plan.b() as isize,
                plan.heads[0] as isize,
                plan.l as isize,
                plan.s as isize,
            ])?;
            let kind = if m.dtype() == DType::Bool {
                MaskKind::Bool
            } else {
                MaskKind::Float
            };
            Some((x, kind))
        }
        None => None,
    };
    Ok(Views {
        q: view4(q, &plan.full(0))?,
        k: view4(k, &plan.full(1))?,
        v: view4(v, &plan.full(2))?,
        mask,
    })
}

fn view_of(t: &Tensor) -> View4<'_> {
    View4 {
        t,
        offset: t.storage_offset(),
        strides: strides3(t),
    }
}

fn problem<'a>(plan: &Plan, w: &'a Views, o: &Opts) -> Problem<'a> {
    let [hq, hk, hv] = plan.heads;
    Problem {
        b: plan.b(),
        h: hq,
        l: plan.l,
        s: plan.s,
        e: plan.e,
        ev: plan.ev,
        gk: hq / hk,
        gv: hq / hv,
        scale: o.scale as f32,
        causal: o.causal,
        bc: plan.bc,
        tiled: plan.tiled,
        q: view_of(&w.q),
        k: view_of(&w.k),
        v: view_of(&w.v),
        mask: w.mask.as_ref().map(|(m, kind)| {
            let s = m.stride();
            Mask4 {
                t: m,
                kind: *kind,
                offset: m.storage_offset(),
                strides: [s[0] as usize, s[1] as usize, s[2] as usize, s[3] as usize],
            }
        }),
    }
}

#[derive(Clone, Copy)]
struct Opts {
    scale: f64,
    causal: bool,
}

/// `F.scaled_dot_product_attention` by the fused kernels, recorded for autograd (inputs query,
/// key, value). The caller checked [`sdpa_fusable`]; `composed` gives the gradients of a
/// backward that builds a graph.
pub fn sdpa_fused(
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    o: &SdpaOptions<'_>,
    composed: SdpaComposed,
) -> Result<Tensor> {
    let Some(plan) = plan(query, key, value, o) else {
        return runtime("internal: sdpa_fused called on a call it does not take");
    };
    let opts = Opts {
        scale: o.scale,
        causal: o.is_causal,
    };
    let w = views(&plan, query, key, value, o.attn_mask)?;
    let (out, st) = problem(&plan, &w, &opts).forward()?;
    let shape: Vec<isize> = plan.out_shape.iter().map(|&d| d as isize).collect();
    let result = out.permute(&[0, 2, 1, 3])?.reshape(&shape)?;
    let inputs = [query, key, value].map(|t| Operand::Tensor(t.clone()));
    let backward = SdpaBackward {
        plan,
        opts,
        out,
        st,
        mask: w.mask.map(|(m, _)| m),
        mask_bool: o.attn_mask.is_some_and(|m| m.dtype() == DType::Bool),
        composed,
    };
    Ok(record(Op::Custom(Arc::new(backward)), &inputs, result))
}

struct SdpaBackward {
    plan: Plan,
    opts: Opts,
    out: Tensor,
    st: Tensor,
    /// The normalised mask `(B, H, L, S)` (a view, possibly with zero strides).
    mask: Option<Tensor>,
    mask_bool: bool,
    composed: SdpaComposed,
}

/// `g` summed over the dims that `shape` broadcast from (torch's `sum_to_size`).
fn sum_to(g: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let extra = g.dim() - shape.len();
    let mut dims: Vec<isize> = (0..extra)
        .filter(|&d| g.shape()[d] != 1)
        .map(|d| d as isize)
        .collect();
    for (i, &d) in shape.iter().enumerate() {
        if d == 1 && g.shape()[extra + i] != 1 {
            dims.push((extra + i) as isize);
        }
    }
    let r = if dims.is_empty() {
        g.clone()
    } else {
        g.sum(Some(&dims), true)?
    };
    let target: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    r.reshape(&target)
}

impl BackwardFn for SdpaBackward {
    fn name(&self) -> &str {
        "scaled_dot_product_fused_attention"
    }

    fn backward(&self, _: &Tensor) -> Result<Vec<Option<Tensor>>> {
        runtime("internal: sdpa's backward needs its node")
    }

    fn backward_node(&self, node: &Node, grad: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let want: [bool; 3] = std::array::from_fn(
            |i| matches!(node.inputs.get(i), Some(Operand::Tensor(t)) if t.requires_grad()),
        );
        if is_grad_enabled() {
            node.check_saved()?;
            let originals = node
                .inputs
                .iter()
                .map(|i| match i {
                    Operand::Tensor(t) => Ok(t.clone()),
                    Operand::Scalar(_) => runtime("internal: sdpa input is a scalar"),
                })
                .collect::<Result<Vec<_>>>()?;
            for i in 0..3 {
                node.saved_input(i)?;
            }
            return (self.composed)(&originals, grad);
        }
        node.output()?;
        let (q, k, v) = (
            node.saved_input(0)?,
            node.saved_input(1)?,
            node.saved_input(2)?,
        );
        let mut w = views(&self.plan, &q, &k, &v, None)?;
        if let Some(m) = &self.mask {
            let kind = if self.mask_bool {
                MaskKind::Bool
            } else {
                MaskKind::Float
            };
            w.mask = Some((m.clone(), kind));
        }
        let p = problem(&self.plan, &w, &self.opts);
        let b = self.plan.b() as isize;
        let (h, l, ev) = (
            self.plan.heads[0] as isize,
            self.plan.l as isize,
            self.plan.ev as isize,
        );
        let mut g = grad.detach().reshape(&[b, h, l, ev])?;
        if g.stride()[3] != 1 && ev > 1 {
            g = g.contiguous()?;
        }
        let gv = view_of(&g);
        let grads = p.backward(&self.out, &self.st, &gv, want)?;
        let originals = [&q, &k, &v];
        let mut result = Vec::with_capacity(3);
        for (i, gi) in grads.into_iter().enumerate() {
            result.push(match gi {
                Some(gi) => {
                    let full: Vec<isize> = self.plan.full(i).iter().map(|&d| d as isize).collect();
                    Some(sum_to(&gi.reshape(&full)?, originals[i].shape())?)
                }
                None => None,
            });
        }
        Ok(result)
    }
}
