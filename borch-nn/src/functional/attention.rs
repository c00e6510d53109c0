//! torch's `F.scaled_dot_product_attention`. Where borch-tensor's fused kernels take the call
//! (`sdpa_fusable`: f32, no dropout, a bool mask or a float mask that needs no gradient, head
//! dims up to 128) it runs there: one dispatch forward, four backward, no `L x S` matrix.
//! Otherwise it is composed as torch's math path (`_scaled_dot_product_attention_math`) from
//! recorded ops, so autograd gives torch's gradients: `q·√s @ (kᵀ·√s) + mask`, `_safe_softmax`
//! (a row every key of which is masked gives zeros, not NaN), dropout as `F.dropout` (torch's
//! CPU draw), then `@ v`. The math path is also the fused op's backward when the backward
//! builds a graph (`create_graph`).

use std::sync::Arc;

use borch_tensor::op_trace::{Attr, Span};
use borch_tensor::{BorchError, DType, Result, SdpaOptions, Tensor, sdpa_fusable, sdpa_fused};

use super::dropout::dropout;

/// Arguments of [`scaled_dot_product_attention`] past query, key and value, with torch's
/// defaults.
#[derive(Clone, Debug, Default)]
pub struct Sdpa<'a> {
    /// A bool mask (true: takes part) or a float mask added to the scores, broadcast to
    /// `(…, L, S)`.
    pub attn_mask: Option<&'a Tensor>,
    /// torch's `dropout_p`: the attention dropout probability.
    pub dropout_p: f64,
    /// torch's `is_causal`: a causal mask is applied.
    pub is_causal: bool,
    /// `None`: `1 / sqrt(E)`.
    pub scale: Option<f64>,
    /// torch's `enable_gqa`: grouped-query attention.
    pub enable_gqa: bool,
}

fn runtime<T>(msg: String) -> Result<T> {
    Err(BorchError::Runtime(msg))
}

/// torch's `validate_sdpa_input`.
fn validate(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>) -> Result<()> {
    if q.dtype() != k.dtype() || q.dtype() != v.dtype() {
        return runtime(format!(
            "Expected query, key, and value to have the same dtype, but got query.dtype: {} \
             key.dtype: {} and value.dtype: {} instead.",
            q.dtype().cpp_name(),
            k.dtype().cpp_name(),
            v.dtype().cpp_name()
        ));
    }
    if q.dim() < 2 || k.dim() < 2 || v.dim() < 2 {
        return runtime(format!(
            "Expected query, key, and value to all be  at least 2 dimensional, but got \
             query.dim: {} key.dim: {} and value.dim: {} instead.",
            q.dim(),
            k.dim(),
            v.dim()
        ));
    }
    if let Some(m) = mask
        && m.dtype() != DType::Bool
        && m.dtype() != DType::Float32
        && m.dtype() != q.dtype()
    {
        return runtime(format!(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got \
             attn_mask.dtype: {} and  query.dtype: {} instead.",
            m.dtype().cpp_name(),
            q.dtype().cpp_name()
        ));
    }
    Ok(())
}

/// torch's `convert_boolean_attn_mask`: true → 0, false → -inf; a float mask as it is.
fn float_mask(mask: &Tensor) -> Result<Tensor> {
    if mask.dtype() != DType::Bool {
        return Ok(mask.clone());
    }
    mask.zeros_like()?
        .to_dtype(DType::Float32)?
        .masked_fill(&mask.logical_not()?, f64::NEG_INFINITY)
}

/// The `(L, S)` causal mask as torch's math path builds it: `ones(L, S).tril()` as 0 / -inf.
fn causal_mask(l: usize, s: usize) -> Result<Tensor> {
    let data: Vec<f32> = (0..l * s)
        .map(|i| {
            if i % s <= i / s {
                0.0
            } else {
                f32::NEG_INFINITY
            }
        })
        .collect();
    Tensor::from_slice(&data, &[l, s])
}

/// torch's `pre_process_group_query_attention_input`: with `enable_gqa`, key and value heads
/// (dim -3) repeated to the query's.
fn grouped(q: &Tensor, k: &Tensor, v: &Tensor, enable_gqa: bool) -> Result<(Tensor, Tensor)> {
    if !enable_gqa {
        return Ok((k.clone(), v.clone()));
    }
    let heads = |t: &Tensor| {
        if t.dim() >= 3 {
            t.shape()[t.dim() - 3]
        } else {
            1
        }
    };
    let (hq, hk, hv) = (heads(q), heads(k), heads(v));
    if hk == 0 || hv == 0 || hq % hk != 0 || hq % hv != 0 {
        return runtime(
            "Number of heads in key and value must divide the number of heads in query".into(),
        );
    }
    let repeat = |t: &Tensor, h: usize| {
        if h == hq || t.dim() < 3 {
            Ok(t.clone())
        } else {
            t.repeat_interleave((hq / h) as i64, Some(-3))
        }
    };
    Ok((repeat(k, hk)?, repeat(v, hv)?))
}

/// torch adds the mask in place (`attn.add_(mask)`): a mask that would grow the scores is an
/// error.
fn check_in_place(scores: &[usize], mask: &[usize]) -> Result<()> {
    let n = scores.len().max(mask.len());
    let dim = |s: &[usize], i: usize| {
        let pad = n - s.len();
        if i < pad { 1 } else { s[i - pad] }
    };
    let b: Vec<usize> = (0..n)
        .map(|i| {
            let (a, m) = (dim(scores, i), dim(mask, i));
            if a == 1 { m } else { a }
        })
        .collect();
    if b != scores {
        return runtime(format!(
            "output with shape {scores:?} doesn't match the broadcast shape {b:?}"
        ));
    }
    Ok(())
}

/// torch's `_safe_softmax(x, -1)`: softmax over the last dim, zero for a row that is all -inf
/// (also in the gradient).
fn safe_softmax(x: &Tensor) -> Result<Tensor> {
    let masked_rows = x.eq(f64::NEG_INFINITY)?.all(Some(&[-1]), true)?;
    let y = x.masked_fill(&masked_rows, 0.0)?.softmax(-1)?;
    y.masked_fill(&masked_rows, 0.0)
}

/// torch's `F.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
/// scale, enable_gqa)`: `(…, L, E)`, `(…, S, E)`, `(…, S, Ev)` → `(…, L, Ev)`.
/// The exporter sees one op (`op_trace::Span`) with the inputs, the mask and the flags, whichever
/// kernels ran it.
pub fn scaled_dot_product_attention(
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    opts: &Sdpa<'_>,
) -> Result<Tensor> {
    let span = Span::begin();
    let out = attention(query, key, value, opts);
    let mut attrs = vec![
        ("dropout_p", Attr::Float(opts.dropout_p)),
        ("is_causal", Attr::Bool(opts.is_causal)),
        ("enable_gqa", Attr::Bool(opts.enable_gqa)),
    ];
    if let Some(scale) = opts.scale {
        attrs.push(("scale", Attr::Float(scale)));
    }
    span.finish(
        "scaled_dot_product_attention",
        &[Some(query), Some(key), Some(value), opts.attn_mask],
        attrs,
        out,
    )
}

fn attention(query: &Tensor, key: &Tensor, value: &Tensor, opts: &Sdpa<'_>) -> Result<Tensor> {
    validate(query, key, value, opts.attn_mask)?;
    if !(0.0..=1.0).contains(&opts.dropout_p) {
        return runtime(format!(
            "dropout probability has to be between 0 and 1, but got {}",
            crate::repr::py_float(opts.dropout_p)
        ));
    }
    let e = query.shape()[query.dim() - 1];
    let scale = opts.scale.unwrap_or(1.0 / (e as f64).sqrt());
    if opts.is_causal && opts.attn_mask.is_some() {
        return runtime(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when \
             is_causal=True"
                .into(),
        );
    }
    let fused = SdpaOptions {
        attn_mask: opts.attn_mask,
        is_causal: opts.is_causal,
        scale,
        enable_gqa: opts.enable_gqa,
    };
    if sdpa_fusable(query, key, value, opts.dropout_p, &fused)
        && math_checks(query, key, value, opts)
    {
        let mask = opts.attn_mask.cloned();
        let (is_causal, scale, enable_gqa) = (opts.is_causal, opts.scale, opts.enable_gqa);
        let composed: borch_tensor::SdpaComposed = Arc::new(move |inputs, grad| {
            let o = Sdpa {
                attn_mask: mask.as_ref(),
                dropout_p: 0.0,
                is_causal,
                scale,
                enable_gqa,
            };
            composed_grads(inputs, grad, &o)
        });
        return sdpa_fused(query, key, value, &fused, composed);
    }
    math(query, key, value, opts, scale)
}

/// The shape checks the math path makes on the way (torch's errors come from there): the
/// grouped heads and the mask added in place.
fn math_checks(q: &Tensor, k: &Tensor, v: &Tensor, opts: &Sdpa<'_>) -> bool {
    let heads = |t: &Tensor| {
        if t.dim() >= 3 {
            t.shape()[t.dim() - 3]
        } else {
            1
        }
    };
    let (hq, hk, hv) = (heads(q), heads(k), heads(v));
    if opts.enable_gqa && (hk == 0 || hv == 0 || hq % hk != 0 || hq % hv != 0) {
        return false;
    }
    let Some(m) = opts.attn_mask else {
        return true;
    };
    // The key as the math path multiplies it (its heads repeated to the query's under GQA).
    let mut ks = k.shape()[..k.dim() - 2].to_vec();
    if opts.enable_gqa && k.dim() >= 3 && q.dim() >= 3 {
        let n = ks.len();
        ks[n - 1] = hq;
    }
    let Ok(batch) = borch_tensor::broadcast_shapes(&q.shape()[..q.dim() - 2], &ks) else {
        return false;
    };
    let mut scores = batch;
    scores.extend([q.shape()[q.dim() - 2], k.shape()[k.dim() - 2]]);
    check_in_place(&scores, m.shape()).is_ok()
}

/// The gradients of query, key and value (those that require grad) through the math path,
/// with a graph: the fused op's backward under `create_graph`.
fn composed_grads(
    inputs: &[Tensor],
    grad: &Tensor,
    opts: &Sdpa<'_>,
) -> Result<Vec<Option<Tensor>>> {
    let e = inputs[0].shape()[inputs[0].dim() - 1];
    let scale = opts.scale.unwrap_or(1.0 / (e as f64).sqrt());
    let out = math(&inputs[0], &inputs[1], &inputs[2], opts, scale)?;
    let wanted: Vec<Tensor> = inputs
        .iter()
        .filter(|t| t.requires_grad())
        .cloned()
        .collect();
    let mut grads = borch_autograd::grad(
        &[out],
        &wanted,
        &[Some(grad.clone())],
        Some(false),
        true,
        true,
    )?
    .into_iter();
    Ok(inputs
        .iter()
        .map(|t| {
            if t.requires_grad() {
                grads.next().flatten()
            } else {
                None
            }
        })
        .collect())
}

/// torch's `_scaled_dot_product_attention_math`.
fn math(
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    opts: &Sdpa<'_>,
    scale: f64,
) -> Result<Tensor> {
    let mut mask = opts.attn_mask.map(float_mask).transpose()?;
    let root = scale.abs().sqrt();
    let q = query.mul(if scale < 0.0 { -root } else { root })?;
    if opts.is_causal {
        let (l, s) = (q.shape()[q.dim() - 2], key.shape()[key.dim() - 2]);
        mask = Some(causal_mask(l, s)?);
    }
    let (k, v) = grouped(&q, key, value, opts.enable_gqa)?;
    let mut attn = q.matmul(&k.transpose(-2, -1)?.mul(root)?)?;
    let attn = match &mask {
        Some(m) => {
            check_in_place(attn.shape(), m.shape())?;
            attn = attn.add(m)?;
            safe_softmax(&attn)?
        }
        None => attn.softmax(-1)?,
    };
    let attn = if opts.dropout_p > 0.0 {
        dropout(&attn, opts.dropout_p, true)?
    } else {
        attn
    };
    attn.matmul(&v)
}
