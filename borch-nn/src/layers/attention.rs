//! torch's `nn.MultiheadAttention` (with its `out_proj`, a `NonDynamicallyQuantizableLinear`)
//! and the deep copies `TransformerEncoder` / `TransformerDecoder` make of their layer.

use borch_autograd::no_grad;
use borch_tensor::api::Value;
use borch_tensor::{BorchError, Result, Tensor, keep_alive};

use super::{Dropout, LayerNorm, Linear, parameter, present};
use crate::api::forward::ForwardSignature;
use crate::functional::{self as F, MhaOptions, MhaWeights};
use crate::init;
use crate::module::Module;
use crate::{display_as_repr, training_flag};

/// A copy of a parameter with its own storage (torch's `copy.deepcopy` of a `Parameter`).
pub(crate) fn copy_parameter(t: &Tensor) -> Result<Tensor> {
    let c = keep_alive(&no_grad(|| t.clone_contiguous())?);
    if t.requires_grad() {
        c.set_requires_grad(true)?;
    }
    Ok(c)
}

fn copy_opt(t: Option<&Tensor>) -> Result<Option<Tensor>> {
    t.map(copy_parameter).transpose()
}

/// A deep copy of a Linear (its parameters copied).
pub(crate) fn copy_linear(l: &Linear) -> Result<Linear> {
    let mut c = Linear::from_tensors(copy_parameter(&l.weight)?, copy_opt(l.bias.as_ref())?)?;
    c.train(l.is_training());
    Ok(c)
}

/// A deep copy of a LayerNorm.
pub(crate) fn copy_layer_norm(n: &LayerNorm) -> Result<LayerNorm> {
    let mut c = LayerNorm::with_options(
        &n.normalized_shape,
        n.eps,
        n.elementwise_affine,
        n.bias.is_some(),
    )?;
    c.weight = copy_opt(n.weight.as_ref())?;
    c.bias = copy_opt(n.bias.as_ref())?;
    c.train(n.is_training());
    Ok(c)
}

/// A deep copy of a Dropout.
pub(crate) fn copy_dropout(d: &Dropout) -> Result<Dropout> {
    let mut c = Dropout::new(d.p)?;
    c.train(d.is_training());
    Ok(c)
}

/// torch's `NonDynamicallyQuantizableLinear`: a Linear under another name (MultiheadAttention's
/// `out_proj`).
pub struct NonDynamicallyQuantizableLinear(pub Linear);

impl Module for NonDynamicallyQuantizableLinear {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        self.0.forward(input)
    }
    fn name(&self) -> String {
        "NonDynamicallyQuantizableLinear".into()
    }
    fn extra_repr(&self) -> String {
        self.0.extra_repr()
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        self.0.own_parameters()
    }
    fn is_training(&self) -> bool {
        self.0.is_training()
    }
    fn set_training(&mut self, mode: bool) {
        self.0.set_training(mode)
    }
}

/// `MultiheadAttention`'s constructor options past `embed_dim` and `num_heads`, torch's
/// defaults.
#[derive(Clone, Copy, Debug)]
pub struct MhaConfig {
    /// torch's `dropout`.
    pub dropout: f64,
    /// torch's `bias`: whether to learn an additive bias.
    pub bias: bool,
    /// torch's `add_bias_kv`: learnable biases appended to key and value.
    pub add_bias_kv: bool,
    /// torch's `add_zero_attn`: a batch of zeros appended to key and value.
    pub add_zero_attn: bool,
    /// torch's `kdim`: the features of keys.
    pub kdim: Option<usize>,
    /// torch's `vdim`: the features of values.
    pub vdim: Option<usize>,
    /// torch's `batch_first`: inputs and outputs are `(batch, seq, feature)`.
    pub batch_first: bool,
}

impl Default for MhaConfig {
    fn default() -> Self {
        MhaConfig {
            dropout: 0.0,
            bias: true,
            add_bias_kv: false,
            add_zero_attn: false,
            kdim: None,
            vdim: None,
            batch_first: false,
        }
    }
}

/// torch's `nn.MultiheadAttention`.
pub struct MultiheadAttention {
    /// torch's `embed_dim`.
    pub embed_dim: usize,
    /// torch's `kdim`: the features of keys.
    pub kdim: usize,
    /// torch's `vdim`: the features of values.
    pub vdim: usize,
    /// torch's `num_heads`.
    pub num_heads: usize,
    /// torch's `head_dim`: `embed_dim / num_heads`.
    pub head_dim: usize,
    /// torch's `dropout`.
    pub dropout: f64,
    /// torch's `batch_first`: inputs and outputs are `(batch, seq, feature)`.
    pub batch_first: bool,
    /// torch's `add_zero_attn`: a batch of zeros appended to key and value.
    pub add_zero_attn: bool,
    /// torch's `in_proj_weight` (when query, key and value have the same size).
    pub in_proj_weight: Option<Tensor>,
    /// torch's `q_proj_weight` (when key or value have other sizes).
    pub q_proj_weight: Option<Tensor>,
    /// torch's `k_proj_weight` (when key or value have other sizes).
    pub k_proj_weight: Option<Tensor>,
    /// torch's `v_proj_weight` (when key or value have other sizes).
    pub v_proj_weight: Option<Tensor>,
    /// torch's `in_proj_bias`.
    pub in_proj_bias: Option<Tensor>,
    /// torch's `bias_k` (with `add_bias_kv`).
    pub bias_k: Option<Tensor>,
    /// torch's `bias_v` (with `add_bias_kv`).
    pub bias_v: Option<Tensor>,
    /// torch's `out_proj`.
    pub out_proj: NonDynamicallyQuantizableLinear,
    training: bool,
}

/// torch's `MultiheadAttention.forward` parameters.
pub static MHA_FORWARD: ForwardSignature = ForwardSignature::returning(
    "MultiheadAttention.forward",
    "query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor = None, \
     need_weights: Bool = True, attn_mask: Tensor = None, average_attn_weights: Bool = True, \
     is_causal: Bool = False",
    "(Tensor, Tensor?)",
);

impl MultiheadAttention {
    /// `MultiheadAttention(embed_dim, num_heads, …)`, parameters drawn in torch's order:
    /// out_proj's Linear init, xavier_uniform_ on the in-projection, biases zero, xavier_normal_
    /// on bias_k and bias_v.
    pub fn new(embed_dim: usize, num_heads: usize, c: MhaConfig) -> Result<MultiheadAttention> {
        if embed_dim == 0 || num_heads == 0 {
            return Err(BorchError::Value(format!(
                "embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and \
                 num_heads={num_heads} instead"
            )));
        }
        let (kdim, vdim) = (c.kdim.unwrap_or(embed_dim), c.vdim.unwrap_or(embed_dim));
        let head_dim = embed_dim / num_heads;
        if head_dim * num_heads != embed_dim {
            // torch: AssertionError.
            return Err(BorchError::Runtime(
                "embed_dim must be divisible by num_heads".into(),
            ));
        }
        let same = kdim == embed_dim && vdim == embed_dim;
        let (e, e3) = (embed_dim, 3 * embed_dim);
        let packed = if same {
            Some(parameter(&[e3, e])?)
        } else {
            None
        };
        let separate = |d: usize| {
            if same {
                Ok(None)
            } else {
                parameter(&[e, d]).map(Some)
            }
        };
        let (qw, kw, vw) = (separate(e)?, separate(kdim)?, separate(vdim)?);
        let in_proj_bias = if c.bias {
            Some(parameter(&[e3])?)
        } else {
            None
        };
        let out_proj = NonDynamicallyQuantizableLinear(Linear::with_bias(e, e, c.bias)?);
        let (bias_k, bias_v) = if c.add_bias_kv {
            (Some(parameter(&[1, 1, e])?), Some(parameter(&[1, 1, e])?))
        } else {
            (None, None)
        };
        let m = MultiheadAttention {
            embed_dim,
            kdim,
            vdim,
            num_heads,
            head_dim,
            dropout: c.dropout,
            batch_first: c.batch_first,
            add_zero_attn: c.add_zero_attn,
            in_proj_weight: packed,
            q_proj_weight: qw,
            k_proj_weight: kw,
            v_proj_weight: vw,
            in_proj_bias,
            bias_k,
            bias_v,
            out_proj,
            training: true,
        };
        m.reset_parameters()?;
        Ok(m)
    }

    /// torch's `_reset_parameters`.
    pub fn reset_parameters(&self) -> Result<()> {
        for w in [
            &self.in_proj_weight,
            &self.q_proj_weight,
            &self.k_proj_weight,
            &self.v_proj_weight,
        ]
        .into_iter()
        .flatten()
        {
            init::xavier_uniform_(w, 1.0)?;
        }
        if let Some(b) = &self.in_proj_bias {
            init::constant_(b, 0.0)?;
            if let Some(ob) = &self.out_proj.0.bias {
                init::constant_(ob, 0.0)?;
            }
        }
        for b in [&self.bias_k, &self.bias_v].into_iter().flatten() {
            init::xavier_normal_(b, 1.0)?;
        }
        Ok(())
    }

    /// A deep copy (parameters copied, no draw).
    pub fn deep_copy(&self) -> Result<MultiheadAttention> {
        Ok(MultiheadAttention {
            in_proj_weight: copy_opt(self.in_proj_weight.as_ref())?,
            q_proj_weight: copy_opt(self.q_proj_weight.as_ref())?,
            k_proj_weight: copy_opt(self.k_proj_weight.as_ref())?,
            v_proj_weight: copy_opt(self.v_proj_weight.as_ref())?,
            in_proj_bias: copy_opt(self.in_proj_bias.as_ref())?,
            bias_k: copy_opt(self.bias_k.as_ref())?,
            bias_v: copy_opt(self.bias_v.as_ref())?,
            out_proj: NonDynamicallyQuantizableLinear(copy_linear(&self.out_proj.0)?),
            ..*self
        })
    }

    /// torch's `forward(query, key, value, key_padding_mask, need_weights, attn_mask,
    /// average_attn_weights, is_causal)`: `(attn_output, attn_weights)` (`None` unless
    /// `need_weights`). `o.training` is taken from the module.
    pub fn forward_mha(
        &self,
        query: &Tensor,
        key: &Tensor,
        value: &Tensor,
        o: MhaOptions<'_>,
    ) -> Result<(Tensor, Option<Tensor>)> {
        let w = MhaWeights {
            embed_dim: self.embed_dim,
            num_heads: self.num_heads,
            in_proj_weight: self.in_proj_weight.as_ref(),
            q_proj_weight: self.q_proj_weight.as_ref(),
            k_proj_weight: self.k_proj_weight.as_ref(),
            v_proj_weight: self.v_proj_weight.as_ref(),
            in_proj_bias: self.in_proj_bias.as_ref(),
            bias_k: self.bias_k.as_ref(),
            bias_v: self.bias_v.as_ref(),
            add_zero_attn: self.add_zero_attn,
            dropout_p: self.dropout,
            out_proj_weight: &self.out_proj.0.weight,
            out_proj_bias: self.out_proj.0.bias.as_ref(),
        };
        let o = MhaOptions {
            training: self.training,
            ..o
        };
        let first = self.batch_first && query.dim() == 3;
        if !first {
            return F::multi_head_attention_forward(query, key, value, &w, &o);
        }
        let (q, k, v) = (
            query.transpose(1, 0)?,
            key.transpose(1, 0)?,
            value.transpose(1, 0)?,
        );
        let (out, weights) = F::multi_head_attention_forward(&q, &k, &v, &w, &o)?;
        Ok((out.transpose(1, 0)?, weights))
    }
}

fn opt_tensor(v: Option<Tensor>) -> Value {
    v.map(Value::Tensor).unwrap_or(Value::None)
}

impl Module for MultiheadAttention {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(BorchError::Type(
            "MultiheadAttention.forward() missing 2 required positional arguments: 'key' and 'value'"
                .into(),
        ))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [_] => Module::forward(self, inputs[0]),
            _ => Err(BorchError::NotImplemented(
                "MultiheadAttention.forward returns a tuple (attn_output, attn_weights): call it \
                 through forward_values"
                    .into(),
            )),
        }
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = MHA_FORWARD.bind(positional, keywords)?;
        let (kpm, mask) = (a.opt_tensor(3)?, a.opt_tensor(5)?);
        let o = MhaOptions {
            training: self.training,
            key_padding_mask: kpm.as_ref(),
            need_weights: a.bool(4)?,
            attn_mask: mask.as_ref(),
            average_attn_weights: a.bool(6)?,
            is_causal: a.bool(7)?,
        };
        let (out, w) = self.forward_mha(&a.tensor(0)?, &a.tensor(1)?, &a.tensor(2)?, o)?;
        Ok(Value::List(vec![Value::Tensor(out), opt_tensor(w)]))
    }
    fn name(&self) -> String {
        "MultiheadAttention".into()
    }
    fn own_parameters(&self) -> Vec<(String, Tensor)> {
        present(&[
            ("in_proj_weight", self.in_proj_weight.as_ref()),
            ("q_proj_weight", self.q_proj_weight.as_ref()),
            ("k_proj_weight", self.k_proj_weight.as_ref()),
            ("v_proj_weight", self.v_proj_weight.as_ref()),
            ("in_proj_bias", self.in_proj_bias.as_ref()),
            ("bias_k", self.bias_k.as_ref()),
            ("bias_v", self.bias_v.as_ref()),
        ])
    }
    crate::child_fields!(out_proj);
    training_flag!();
}

display_as_repr!(NonDynamicallyQuantizableLinear, MultiheadAttention);
