//! torch's `F.multi_head_attention_forward` (sequence-first inputs), step by step as torch:
//! shape checks, in-projection, masks (bool masks mean "not allowed", made -inf as torch's
//! `_canonical_mask`), bias_k/bias_v and zero attention, then either the explicit path that
//! returns the weights (`need_weights`) or `scaled_dot_product_attention`.

use borch_tensor::{BorchError, DType, Result, Tensor, cat, zeros};

use super::attention::{Sdpa, scaled_dot_product_attention};
use super::dropout::dropout;
use super::linear::linear;

/// The weights of one multi-head attention (borrowed from `nn.MultiheadAttention`).
pub struct MhaWeights<'a> {
    /// torch's `embed_dim`.
    pub embed_dim: usize,
    /// torch's `num_heads`.
    pub num_heads: usize,
    /// `(3E, E)`, or `None` with the three separate projections below.
    pub in_proj_weight: Option<&'a Tensor>,
    /// torch's `q_proj_weight` (when key or value have other sizes).
    pub q_proj_weight: Option<&'a Tensor>,
    /// torch's `k_proj_weight` (when key or value have other sizes).
    pub k_proj_weight: Option<&'a Tensor>,
    /// torch's `v_proj_weight` (when key or value have other sizes).
    pub v_proj_weight: Option<&'a Tensor>,
    /// torch's `in_proj_bias`.
    pub in_proj_bias: Option<&'a Tensor>,
    /// torch's `bias_k` (with `add_bias_kv`).
    pub bias_k: Option<&'a Tensor>,
    /// torch's `bias_v` (with `add_bias_kv`).
    pub bias_v: Option<&'a Tensor>,
    /// torch's `add_zero_attn`: a batch of zeros appended to key and value.
    pub add_zero_attn: bool,
    /// torch's `dropout_p`.
    pub dropout_p: f64,
    /// torch's `out_proj_weight`.
    pub out_proj_weight: &'a Tensor,
    /// torch's `out_proj_bias`.
    pub out_proj_bias: Option<&'a Tensor>,
}

/// `forward`'s options, torch's defaults from `Default` but `need_weights` and
/// `average_attn_weights`, which torch defaults to true.
#[derive(Clone, Copy, Debug)]
pub struct MhaOptions<'a> {
    /// torch's `training`: dropout is applied.
    pub training: bool,
    /// torch's `key_padding_mask`: keys to ignore, per batch element.
    pub key_padding_mask: Option<&'a Tensor>,
    /// torch's `need_weights`: also return the attention weights.
    pub need_weights: bool,
    /// torch's `attn_mask`.
    pub attn_mask: Option<&'a Tensor>,
    /// torch's `average_attn_weights`: average the weights over heads.
    pub average_attn_weights: bool,
    /// torch's `is_causal`: a causal mask is applied.
    pub is_causal: bool,
}

impl Default for MhaOptions<'_> {
    fn default() -> Self {
        MhaOptions {
            training: true,
            key_padding_mask: None,
            need_weights: true,
            attn_mask: None,
            average_attn_weights: true,
            is_causal: false,
        }
    }
}

/// torch raises AssertionError for these; borch's nearest kind is RuntimeError (same message).
fn assertion<T>(msg: String) -> Result<T> {
    Err(BorchError::Runtime(msg))
}

/// Python's `torch.Size([a, b])`.
fn torch_size(shape: &[usize]) -> String {
    let items: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("torch.Size([{}])", items.join(", "))
}

/// torch's `F._canonical_mask`: a bool mask (true: not allowed) as 0 / -inf floats, a float
/// mask as it is, any other dtype refused.
pub fn canonical_mask(mask: Option<&Tensor>, name: &str) -> Result<Option<Tensor>> {
    let Some(m) = mask else { return Ok(None) };
    match m.dtype() {
        DType::Float32 => Ok(Some(m.clone())),
        DType::Bool => Ok(Some(
            zeros(m.shape(), DType::Float32)?.masked_fill(m, f64::NEG_INFINITY)?,
        )),
        _ => assertion(format!(
            "only bool and floating types of {name} are supported"
        )),
    }
}

/// torch's `_mha_shape_check`: whether the input is batched.
fn shape_check(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    kpm: Option<&Tensor>,
    mask: Option<&Tensor>,
    num_heads: usize,
) -> Result<bool> {
    let (kind, want, kpm_dim) = match q.dim() {
        3 => ("batched (3-D)", 3, 2),
        2 => ("unbatched (2-D)", 2, 1),
        d => {
            return assertion(format!(
                "query should be unbatched 2D or batched 3D tensor but received {d}-D query tensor"
            ));
        }
    };
    if k.dim() != want || v.dim() != want {
        return assertion(format!(
            "For {kind} `query`, expected `key` and `value` to be {want}-D but found {}-D and \
             {}-D tensors respectively",
            k.dim(),
            v.dim()
        ));
    }
    if let Some(p) = kpm
        && p.dim() != kpm_dim
    {
        return assertion(format!(
            "For {kind} `query`, expected `key_padding_mask` to be `None` or {kpm_dim}-D but \
             found {}-D tensor instead",
            p.dim()
        ));
    }
    if let Some(m) = mask {
        if m.dim() != 2 && m.dim() != 3 {
            return assertion(format!(
                "For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found \
                 {}-D tensor instead",
                m.dim()
            ));
        }
        let expected = [num_heads, q.shape()[0], k.shape()[0]];
        if want == 2 && m.dim() == 3 && m.shape() != expected {
            return assertion(format!(
                "Expected `attn_mask` shape to be ({}, {}, {}) but got {}",
                expected[0],
                expected[1],
                expected[2],
                torch_size(m.shape())
            ));
        }
    }
    Ok(want == 3)
}

/// A zero column appended on the last dim (torch's `pad(mask, (0, 1))`).
fn pad_last(m: &Tensor) -> Result<Tensor> {
    let mut shape = m.shape().to_vec();
    *shape.last_mut().expect("a mask has dims") = 1;
    cat(&[m.clone(), zeros(&shape, m.dtype())?], -1)
}

/// The in-projection: torch's `_in_projection_packed` (chunks of the packed weight) or
/// `_in_projection` (separate weights).
fn in_projection(w: &MhaWeights<'_>, q: &Tensor, k: &Tensor, v: &Tensor) -> Result<[Tensor; 3]> {
    let biases = match w.in_proj_bias {
        Some(b) => b.chunk(3, 0)?.into_iter().map(Some).collect(),
        None => vec![None, None, None],
    };
    let weights = match w.in_proj_weight {
        Some(packed) => packed.chunk(3, 0)?,
        None => {
            let get = |t: Option<&Tensor>| t.cloned().expect("separate projection weights");
            vec![
                get(w.q_proj_weight),
                get(w.k_proj_weight),
                get(w.v_proj_weight),
            ]
        }
    };
    Ok([
        linear(q, &weights[0], biases[0].as_ref())?,
        linear(k, &weights[1], biases[1].as_ref())?,
        linear(v, &weights[2], biases[2].as_ref())?,
    ])
}

/// torch's `F.multi_head_attention_forward(query, key, value, …)` for `(L, N, E)` / `(L, E)`
/// inputs: `(attn_output, attn_weights)`, the weights `None` unless `need_weights`.
pub fn multi_head_attention_forward(
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    w: &MhaWeights<'_>,
    o: &MhaOptions<'_>,
) -> Result<(Tensor, Option<Tensor>)> {
    let kpm = canonical_mask(o.key_padding_mask, "key_padding_mask")?;
    let mut attn_mask = canonical_mask(o.attn_mask, "attn_mask")?;
    let batched = shape_check(
        query,
        key,
        value,
        kpm.as_ref(),
        attn_mask.as_ref(),
        w.num_heads,
    )?;
    let (query, key, value, mut kpm) = if batched {
        (query.clone(), key.clone(), value.clone(), kpm)
    } else {
        let kpm = kpm.map(|p| p.unsqueeze(0)).transpose()?;
        (
            query.unsqueeze(1)?,
            key.unsqueeze(1)?,
            value.unsqueeze(1)?,
            kpm,
        )
    };
    let (tgt_len, bsz, embed_dim) = (query.shape()[0], query.shape()[1], query.shape()[2]);
    let mut is_causal = o.is_causal;
    if is_causal && attn_mask.is_none() {
        return Err(BorchError::Runtime(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module \
             method `generate_square_subsequent_mask` to create this mask."
                .into(),
        ));
    }
    if is_causal && kpm.is_none() && !o.need_weights {
        attn_mask = None;
    } else if kpm.is_some() {
        is_causal = false;
    }
    if embed_dim != w.embed_dim {
        return assertion(format!(
            "was expecting embedding dimension of {}, but got {embed_dim}",
            w.embed_dim
        ));
    }
    let heads = w.num_heads;
    let head_dim = embed_dim / heads;
    if head_dim * heads != embed_dim {
        return assertion(format!(
            "embed_dim {embed_dim} not divisible by num_heads {heads}"
        ));
    }
    if w.in_proj_weight.is_none() {
        if key.shape()[..2] != value.shape()[..2] {
            return assertion(format!(
                "key's sequence and batch dims {} do not match value's {}",
                torch_size(&key.shape()[..2]),
                torch_size(&value.shape()[..2])
            ));
        }
    } else if key.shape() != value.shape() {
        return assertion(format!(
            "key shape {} does not match value shape {}",
            torch_size(key.shape()),
            torch_size(value.shape())
        ));
    }
    let [q, mut k, mut v] = in_projection(w, &query, &key, &value)?;
    let src_len = key.shape()[0];
    if let Some(m) = &attn_mask {
        attn_mask = Some(match m.dim() {
            2 => {
                if m.shape() != [tgt_len, src_len] {
                    return Err(BorchError::Runtime(format!(
                        "The shape of the 2D attn_mask is {}, but should be ({tgt_len}, {src_len}).",
                        torch_size(m.shape())
                    )));
                }
                m.unsqueeze(0)?
            }
            3 => {
                if m.shape() != [bsz * heads, tgt_len, src_len] {
                    return Err(BorchError::Runtime(format!(
                        "The shape of the 3D attn_mask is {}, but should be ({}, {tgt_len}, {src_len}).",
                        torch_size(m.shape()),
                        bsz * heads
                    )));
                }
                m.clone()
            }
            d => {
                return Err(BorchError::Runtime(format!(
                    "attn_mask's dimension {d} is not supported"
                )));
            }
        });
    }
    if let (Some(bk), Some(bv)) = (w.bias_k, w.bias_v) {
        k = cat(&[k, bk.repeat(&[1, bsz, 1])?], 0)?;
        v = cat(&[v, bv.repeat(&[1, bsz, 1])?], 0)?;
        attn_mask = attn_mask.as_ref().map(pad_last).transpose()?;
        kpm = kpm.as_ref().map(pad_last).transpose()?;
    }
    let bh = (bsz * heads) as isize;
    let hd = head_dim as isize;
    let q = q.reshape(&[tgt_len as isize, bh, hd])?.transpose(0, 1)?;
    let k_len = k.shape()[0] as isize;
    k = k.reshape(&[k_len, bh, hd])?.transpose(0, 1)?;
    let v_len = v.shape()[0] as isize;
    v = v.reshape(&[v_len, bh, hd])?.transpose(0, 1)?;
    if w.add_zero_attn {
        let z = zeros(&[bsz * heads, 1, head_dim], DType::Float32)?;
        k = cat(&[k, z.clone()], 1)?;
        v = cat(&[v, z], 1)?;
        attn_mask = attn_mask.as_ref().map(pad_last).transpose()?;
        kpm = kpm.as_ref().map(pad_last).transpose()?;
    }
    let src_len = k.shape()[1];
    if let Some(p) = &kpm {
        if p.shape()[0] != bsz {
            return assertion(format!(
                "Expected key_padded_mask.shape[0] to be {bsz}, but got {}",
                p.shape()[0]
            ));
        }
        if p.shape()[1] != src_len {
            return assertion(format!(
                "Expected key_padded_mask.shape[1] to be {src_len}, but got {}",
                p.shape()[1]
            ));
        }
        let s = src_len as isize;
        let p = p
            .reshape(&[bsz as isize, 1, 1, s])?
            .expand(&[-1, heads as isize, -1, -1])?
            .reshape(&[bh, 1, s])?;
        attn_mask = Some(match &attn_mask {
            None => p,
            Some(m) => m.add(&p)?,
        });
    }
    let dropout_p = if o.training { w.dropout_p } else { 0.0 };
    let e = embed_dim as isize;
    let (t, b) = (tgt_len as isize, bsz as isize);
    let project = |out: &Tensor| -> Result<Tensor> {
        let y = linear(out, w.out_proj_weight, w.out_proj_bias)?.reshape(&[t, b, e])?;
        if batched { Ok(y) } else { y.squeeze_dims(&[1]) }
    };
    if o.need_weights {
        let q_scaled = q.mul((1.0 / head_dim as f64).sqrt())?;
        let kt = k.transpose(-2, -1)?;
        let scores = match &attn_mask {
            Some(m) => m.baddbmm(&q_scaled, &kt, 1.0, 1.0)?,
            None => q_scaled.bmm(&kt)?,
        };
        let mut weights = scores.softmax(-1)?;
        if dropout_p > 0.0 {
            weights = dropout(&weights, dropout_p, true)?;
        }
        let out = weights.bmm(&v)?.transpose(0, 1)?.reshape(&[t * b, e])?;
        let out = project(&out)?;
        let mut weights = weights.reshape(&[b, heads as isize, t, src_len as isize])?;
        if o.average_attn_weights {
            weights = weights.mean(Some(&[1]), false)?;
        }
        if !batched {
            weights = weights.squeeze_dims(&[0])?;
        }
        return Ok((out, Some(weights)));
    }
    let s = src_len as isize;
    let attn_mask = match attn_mask {
        Some(m) if m.shape()[0] == 1 && m.dim() == 3 => Some(m.unsqueeze(0)?),
        Some(m) => Some(m.reshape(&[b, heads as isize, -1, s])?),
        None => None,
    };
    let q = q.reshape(&[b, heads as isize, t, hd])?;
    let k = k.reshape(&[b, heads as isize, s, hd])?;
    let v = v.reshape(&[b, heads as isize, s, hd])?;
    let opts = Sdpa {
        attn_mask: attn_mask.as_ref(),
        dropout_p,
        is_causal,
        ..Sdpa::default()
    };
    let out = scaled_dot_product_attention(&q, &k, &v, &opts)?
        .permute(&[2, 0, 1, 3])?
        .reshape(&[b * t, e])?;
    Ok((project(&out)?, None))
}
