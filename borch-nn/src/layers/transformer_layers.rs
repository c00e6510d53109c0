//! torch's `nn.TransformerEncoderLayer` and `nn.TransformerDecoderLayer`: self-attention (and
//! cross-attention) blocks and a feed-forward block, post-norm or pre-norm (`norm_first`).

use borch_tensor::api::{Args, Value};
use borch_tensor::{BorchError, Result, Tensor};

use super::attention::{MhaConfig, MultiheadAttention, copy_dropout, copy_layer_norm, copy_linear};
use super::{Dropout, LayerNorm, Linear};
use crate::api::forward::ForwardSignature;
use crate::functional::{self as F, MhaOptions};
use crate::module::Module;
use crate::{display_as_repr, training_flag};

/// The feed-forward activation: torch's `"relu"` or `"gelu"` (a callable is not taken).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `"relu"` (torch's default).
    Relu,
    /// `"gelu"`.
    Gelu,
}

impl Activation {
    /// torch's `_get_activation_fn`.
    pub fn parse(name: &str) -> Result<Activation> {
        match name {
            "relu" => Ok(Activation::Relu),
            "gelu" => Ok(Activation::Gelu),
            other => Err(BorchError::Runtime(format!(
                "activation should be relu/gelu, not {other}"
            ))),
        }
    }

    fn apply(self, x: &Tensor) -> Result<Tensor> {
        match self {
            Activation::Relu => F::relu(x),
            Activation::Gelu => F::gelu(x, "none"),
        }
    }
}

/// The constructor options the two layers share (torch's defaults).
#[derive(Clone, Copy, Debug)]
pub struct LayerConfig {
    /// torch's `dim_feedforward`: the feedforward block's width.
    pub dim_feedforward: usize,
    /// torch's `dropout`.
    pub dropout: f64,
    /// torch's `activation` of the feedforward block.
    pub activation: Activation,
    /// torch's `layer_norm_eps`.
    pub layer_norm_eps: f64,
    /// torch's `batch_first`: inputs and outputs are `(batch, seq, feature)`.
    pub batch_first: bool,
    /// torch's `norm_first`: layer norm before attention and feedforward instead of after.
    pub norm_first: bool,
    /// torch's `bias`: whether to learn an additive bias.
    pub bias: bool,
}

impl Default for LayerConfig {
    fn default() -> Self {
        LayerConfig {
            dim_feedforward: 2048,
            dropout: 0.1,
            activation: Activation::Relu,
            layer_norm_eps: 1e-5,
            batch_first: false,
            norm_first: false,
            bias: true,
        }
    }
}

fn attention(d_model: usize, nhead: usize, c: &LayerConfig) -> Result<MultiheadAttention> {
    let mha = MhaConfig {
        dropout: c.dropout,
        bias: c.bias,
        batch_first: c.batch_first,
        ..MhaConfig::default()
    };
    MultiheadAttention::new(d_model, nhead, mha)
}

fn norm(d_model: usize, c: &LayerConfig) -> Result<LayerNorm> {
    LayerNorm::with_options(&[d_model], c.layer_norm_eps, true, c.bias)
}

/// `self_attn(x, x, x, attn_mask, key_padding_mask, need_weights=False, is_causal)[0]`.
fn attend(
    attn: &MultiheadAttention,
    x: &Tensor,
    mem: &Tensor,
    mask: Option<&Tensor>,
    kpm: Option<&Tensor>,
    is_causal: bool,
) -> Result<Tensor> {
    let o = MhaOptions {
        key_padding_mask: kpm,
        need_weights: false,
        attn_mask: mask,
        is_causal,
        ..MhaOptions::default()
    };
    Ok(attn.forward_mha(x, mem, mem, o)?.0)
}

/// An optional tensor argument of a bound forward.
pub(crate) fn opt(a: &Args, i: usize) -> Result<Option<Tensor>> {
    a.opt_tensor(i)
}

/// A `Bool = None` argument of a bound forward (`None`: false, as torch's mask detection gives
/// the same values either way).
pub(crate) fn opt_flag(a: &Args, i: usize) -> Result<bool> {
    if a.get(i).is_none() {
        Ok(false)
    } else {
        a.bool(i)
    }
}

/// torch's `nn.TransformerEncoderLayer`.
pub struct TransformerEncoderLayer {
    /// torch's `self_attn`.
    pub self_attn: MultiheadAttention,
    /// torch's `linear1`.
    pub linear1: Linear,
    /// torch's `dropout`.
    pub dropout: Dropout,
    /// torch's `linear2`.
    pub linear2: Linear,
    /// torch's `norm1`.
    pub norm1: LayerNorm,
    /// torch's `norm2`.
    pub norm2: LayerNorm,
    /// torch's `dropout1`.
    pub dropout1: Dropout,
    /// torch's `dropout2`.
    pub dropout2: Dropout,
    /// torch's `norm_first`: layer norm before attention and feedforward instead of after.
    pub norm_first: bool,
    /// torch's `activation` of the feedforward block.
    pub activation: Activation,
    training: bool,
}

/// torch's `TransformerEncoderLayer.forward` parameters.
pub static ENCODER_LAYER_FORWARD: ForwardSignature = ForwardSignature::new(
    "TransformerEncoderLayer.forward",
    "src: Tensor, src_mask: Tensor = None, src_key_padding_mask: Tensor = None, is_causal: Bool = False",
);

impl TransformerEncoderLayer {
    /// `TransformerEncoderLayer(d_model, nhead, …)`, its children built (and drawn) in torch's
    /// order.
    pub fn new(d_model: usize, nhead: usize, c: LayerConfig) -> Result<TransformerEncoderLayer> {
        Ok(TransformerEncoderLayer {
            self_attn: attention(d_model, nhead, &c)?,
            linear1: Linear::with_bias(d_model, c.dim_feedforward, c.bias)?,
            dropout: Dropout::new(c.dropout)?,
            linear2: Linear::with_bias(c.dim_feedforward, d_model, c.bias)?,
            norm1: norm(d_model, &c)?,
            norm2: norm(d_model, &c)?,
            dropout1: Dropout::new(c.dropout)?,
            dropout2: Dropout::new(c.dropout)?,
            norm_first: c.norm_first,
            activation: c.activation,
            training: true,
        })
    }

    /// A deep copy (torch's `copy.deepcopy`): equal parameters, their own storage.
    pub fn deep_copy(&self) -> Result<TransformerEncoderLayer> {
        Ok(TransformerEncoderLayer {
            self_attn: self.self_attn.deep_copy()?,
            linear1: copy_linear(&self.linear1)?,
            dropout: copy_dropout(&self.dropout)?,
            linear2: copy_linear(&self.linear2)?,
            norm1: copy_layer_norm(&self.norm1)?,
            norm2: copy_layer_norm(&self.norm2)?,
            dropout1: copy_dropout(&self.dropout1)?,
            dropout2: copy_dropout(&self.dropout2)?,
            ..*self
        })
    }

    fn ff_block(&self, x: &Tensor) -> Result<Tensor> {
        let h = self.activation.apply(&self.linear1.forward(x)?)?;
        let y = self.linear2.forward(&self.dropout.forward(&h)?)?;
        self.dropout2.forward(&y)
    }

    fn sa_block(
        &self,
        x: &Tensor,
        mask: Option<&Tensor>,
        kpm: Option<&Tensor>,
        causal: bool,
    ) -> Result<Tensor> {
        self.dropout1
            .forward(&attend(&self.self_attn, x, x, mask, kpm, causal)?)
    }

    /// torch's `forward(src, src_mask, src_key_padding_mask, is_causal)`.
    pub fn forward_layer(
        &self,
        src: &Tensor,
        src_mask: Option<&Tensor>,
        src_key_padding_mask: Option<&Tensor>,
        is_causal: bool,
    ) -> Result<Tensor> {
        let kpm = F::canonical_mask(src_key_padding_mask, "src_key_padding_mask")?;
        let mask = F::canonical_mask(src_mask, "src_mask")?;
        let (mask, kpm) = (mask.as_ref(), kpm.as_ref());
        let x = src;
        if self.norm_first {
            let x = x.add(&self.sa_block(&self.norm1.forward(x)?, mask, kpm, is_causal)?)?;
            x.add(&self.ff_block(&self.norm2.forward(&x)?)?)
        } else {
            let x = self
                .norm1
                .forward(&x.add(&self.sa_block(x, mask, kpm, is_causal)?)?)?;
            self.norm2.forward(&x.add(&self.ff_block(&x)?)?)
        }
    }
}

impl Module for TransformerEncoderLayer {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        self.forward_layer(input, None, None, false)
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = ENCODER_LAYER_FORWARD.bind(positional, keywords)?;
        let (m, p) = (opt(&a, 1)?, opt(&a, 2)?);
        let y = self.forward_layer(&a.tensor(0)?, m.as_ref(), p.as_ref(), a.bool(3)?)?;
        Ok(Value::Tensor(y))
    }
    fn name(&self) -> String {
        "TransformerEncoderLayer".into()
    }
    crate::child_fields!(
        self_attn, linear1, dropout, linear2, norm1, norm2, dropout1, dropout2
    );
    training_flag!();
}

/// torch's `nn.TransformerDecoderLayer`.
pub struct TransformerDecoderLayer {
    /// torch's `self_attn`.
    pub self_attn: MultiheadAttention,
    /// torch's `multihead_attn`: attention over the memory.
    pub multihead_attn: MultiheadAttention,
    /// torch's `linear1`.
    pub linear1: Linear,
    /// torch's `dropout`.
    pub dropout: Dropout,
    /// torch's `linear2`.
    pub linear2: Linear,
    /// torch's `norm1`.
    pub norm1: LayerNorm,
    /// torch's `norm2`.
    pub norm2: LayerNorm,
    /// torch's `norm3`.
    pub norm3: LayerNorm,
    /// torch's `dropout1`.
    pub dropout1: Dropout,
    /// torch's `dropout2`.
    pub dropout2: Dropout,
    /// torch's `dropout3`.
    pub dropout3: Dropout,
    /// torch's `norm_first`: layer norm before attention and feedforward instead of after.
    pub norm_first: bool,
    /// torch's `activation` of the feedforward block.
    pub activation: Activation,
    training: bool,
}

/// torch's `TransformerDecoderLayer.forward` parameters.
pub static DECODER_LAYER_FORWARD: ForwardSignature = ForwardSignature::new(
    "TransformerDecoderLayer.forward",
    "tgt: Tensor, memory: Tensor, tgt_mask: Tensor = None, memory_mask: Tensor = None, \
     tgt_key_padding_mask: Tensor = None, memory_key_padding_mask: Tensor = None, \
     tgt_is_causal: Bool = False, memory_is_causal: Bool = False",
);

/// The masks and flags of a decoder forward.
#[derive(Clone, Copy, Debug, Default)]
pub struct DecoderMasks<'a> {
    /// torch's `tgt_mask`.
    pub tgt_mask: Option<&'a Tensor>,
    /// torch's `memory_mask`.
    pub memory_mask: Option<&'a Tensor>,
    /// torch's `tgt_key_padding_mask`.
    pub tgt_key_padding_mask: Option<&'a Tensor>,
    /// torch's `memory_key_padding_mask`.
    pub memory_key_padding_mask: Option<&'a Tensor>,
    /// torch's `tgt_is_causal`.
    pub tgt_is_causal: bool,
    /// torch's `memory_is_causal`.
    pub memory_is_causal: bool,
}

impl DecoderMasks<'_> {
    /// The masks of a bound decoder forward, from argument 2 on.
    pub(crate) fn tensors(a: &Args, first: usize) -> Result<[Option<Tensor>; 4]> {
        Ok([
            opt(a, first)?,
            opt(a, first + 1)?,
            opt(a, first + 2)?,
            opt(a, first + 3)?,
        ])
    }
}

pub(crate) fn decoder_masks<'a>(
    t: &'a [Option<Tensor>; 4],
    tgt_causal: bool,
    mem_causal: bool,
) -> DecoderMasks<'a> {
    DecoderMasks {
        tgt_mask: t[0].as_ref(),
        memory_mask: t[1].as_ref(),
        tgt_key_padding_mask: t[2].as_ref(),
        memory_key_padding_mask: t[3].as_ref(),
        tgt_is_causal: tgt_causal,
        memory_is_causal: mem_causal,
    }
}

impl TransformerDecoderLayer {
    /// `TransformerDecoderLayer(d_model, nhead, …)`, children drawn in torch's order.
    pub fn new(d_model: usize, nhead: usize, c: LayerConfig) -> Result<TransformerDecoderLayer> {
        Ok(TransformerDecoderLayer {
            self_attn: attention(d_model, nhead, &c)?,
            multihead_attn: attention(d_model, nhead, &c)?,
            linear1: Linear::with_bias(d_model, c.dim_feedforward, c.bias)?,
            dropout: Dropout::new(c.dropout)?,
            linear2: Linear::with_bias(c.dim_feedforward, d_model, c.bias)?,
            norm1: norm(d_model, &c)?,
            norm2: norm(d_model, &c)?,
            norm3: norm(d_model, &c)?,
            dropout1: Dropout::new(c.dropout)?,
            dropout2: Dropout::new(c.dropout)?,
            dropout3: Dropout::new(c.dropout)?,
            norm_first: c.norm_first,
            activation: c.activation,
            training: true,
        })
    }

    /// A deep copy (torch's `copy.deepcopy`).
    pub fn deep_copy(&self) -> Result<TransformerDecoderLayer> {
        Ok(TransformerDecoderLayer {
            self_attn: self.self_attn.deep_copy()?,
            multihead_attn: self.multihead_attn.deep_copy()?,
            linear1: copy_linear(&self.linear1)?,
            dropout: copy_dropout(&self.dropout)?,
            linear2: copy_linear(&self.linear2)?,
            norm1: copy_layer_norm(&self.norm1)?,
            norm2: copy_layer_norm(&self.norm2)?,
            norm3: copy_layer_norm(&self.norm3)?,
            dropout1: copy_dropout(&self.dropout1)?,
            dropout2: copy_dropout(&self.dropout2)?,
            dropout3: copy_dropout(&self.dropout3)?,
            ..*self
        })
    }

    fn ff_block(&self, x: &Tensor) -> Result<Tensor> {
        let h = self.activation.apply(&self.linear1.forward(x)?)?;
        let y = self.linear2.forward(&self.dropout.forward(&h)?)?;
        self.dropout3.forward(&y)
    }

    fn sa_block(&self, x: &Tensor, m: &DecoderMasks<'_>) -> Result<Tensor> {
        let y = attend(
            &self.self_attn,
            x,
            x,
            m.tgt_mask,
            m.tgt_key_padding_mask,
            m.tgt_is_causal,
        )?;
        self.dropout1.forward(&y)
    }

    fn mha_block(&self, x: &Tensor, mem: &Tensor, m: &DecoderMasks<'_>) -> Result<Tensor> {
        let y = attend(
            &self.multihead_attn,
            x,
            mem,
            m.memory_mask,
            m.memory_key_padding_mask,
            m.memory_is_causal,
        )?;
        self.dropout2.forward(&y)
    }

    /// torch's `forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
    /// memory_key_padding_mask, tgt_is_causal, memory_is_causal)`.
    pub fn forward_layer(
        &self,
        tgt: &Tensor,
        memory: &Tensor,
        m: &DecoderMasks<'_>,
    ) -> Result<Tensor> {
        let x = tgt;
        if self.norm_first {
            let x = x.add(&self.sa_block(&self.norm1.forward(x)?, m)?)?;
            let x = x.add(&self.mha_block(&self.norm2.forward(&x)?, memory, m)?)?;
            x.add(&self.ff_block(&self.norm3.forward(&x)?)?)
        } else {
            let x = self.norm1.forward(&x.add(&self.sa_block(x, m)?)?)?;
            let x = self
                .norm2
                .forward(&x.add(&self.mha_block(&x, memory, m)?)?)?;
            self.norm3.forward(&x.add(&self.ff_block(&x)?)?)
        }
    }
}

impl Module for TransformerDecoderLayer {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(BorchError::Type(
            "TransformerDecoderLayer.forward() missing 1 required positional argument: 'memory'"
                .into(),
        ))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [t, m] => self.forward_layer(t, m, &DecoderMasks::default()),
            _ => Module::forward(self, inputs[0]),
        }
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = DECODER_LAYER_FORWARD.bind(positional, keywords)?;
        let t = DecoderMasks::tensors(&a, 2)?;
        let m = decoder_masks(&t, a.bool(6)?, a.bool(7)?);
        Ok(Value::Tensor(self.forward_layer(
            &a.tensor(0)?,
            &a.tensor(1)?,
            &m,
        )?))
    }
    fn name(&self) -> String {
        "TransformerDecoderLayer".into()
    }
    crate::child_fields!(
        self_attn,
        multihead_attn,
        linear1,
        dropout,
        linear2,
        norm1,
        norm2,
        norm3,
        dropout1,
        dropout2,
        dropout3
    );
    training_flag!();
}

display_as_repr!(TransformerEncoderLayer, TransformerDecoderLayer);
