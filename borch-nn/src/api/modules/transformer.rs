//! MultiheadAttention, TransformerEncoderLayer, TransformerDecoderLayer and Transformer.
//! (TransformerEncoder and TransformerDecoder take a module, which a catalog value cannot be: they
//! are in `stacks.rs`, the catalog of classes taking modules.)

use borch_tensor::api::Args;
use borch_tensor::{BorchError, Result};

use super::{ModuleClass, boxed, class, factory};
use crate::layers::attention::MHA_FORWARD;
use crate::layers::transformer::TRANSFORMER_FORWARD;
use crate::layers::transformer_layers::{DECODER_LAYER_FORWARD, ENCODER_LAYER_FORWARD};
use crate::{
    Activation, LayerConfig, MhaConfig, MultiheadAttention, Transformer, TransformerDecoderLayer,
    TransformerEncoderLayer,
};

const LAYER: &str = "d_model: Int, nhead: Int, dim_feedforward: Int = 2048, dropout: Float = 0.1, \
                     activation: Str = 'relu', layer_norm_eps: Float = 1e-05, batch_first: Bool = False, \
                     norm_first: Bool = False, bias: Bool = True, device: Str = None, dtype: DType = None";

/// A layer's options from argument `first` on (dim_feedforward … bias), torch's order.
fn layer_config(a: &Args, first: usize, eps: usize) -> Result<LayerConfig> {
    Ok(LayerConfig {
        dim_feedforward: a.usize(first)?,
        dropout: a.f64(first + 1)?,
        activation: Activation::parse(a.str(first + 2)?)?,
        layer_norm_eps: a.f64(eps)?,
        batch_first: a.bool(eps + 1)?,
        norm_first: a.bool(eps + 2)?,
        bias: a.bool(eps + 3)?,
    })
}

/// The classes of this group.
#[rustfmt::skip]
pub(super) fn entries() -> Vec<ModuleClass> {
    vec![
        class("MultiheadAttention", "embed_dim: Int, num_heads: Int, dropout: Float = 0.0, bias: Bool = True, \
               add_bias_kv: Bool = False, add_zero_attn: Bool = False, kdim: Int = None, vdim: Int = None, \
               batch_first: Bool = False, device: Str = None, dtype: DType = None",
            |a| {
                factory(a, 9)?;
                let c = MhaConfig {
                    dropout: a.f64(2)?,
                    bias: a.bool(3)?,
                    add_bias_kv: a.bool(4)?,
                    add_zero_attn: a.bool(5)?,
                    kdim: a.opt_int(6)?.map(|d| d as usize),
                    vdim: a.opt_int(7)?.map(|d| d as usize),
                    batch_first: a.bool(8)?,
                };
                boxed(MultiheadAttention::new(a.usize(0)?, a.usize(1)?, c)?)
            }).with_forward(&MHA_FORWARD),
        class("TransformerEncoderLayer", LAYER,
            |a| { factory(a, 9)?; boxed(TransformerEncoderLayer::new(a.usize(0)?, a.usize(1)?, layer_config(a, 2, 5)?)?) })
            .with_forward(&ENCODER_LAYER_FORWARD),
        class("TransformerDecoderLayer", LAYER,
            |a| { factory(a, 9)?; boxed(TransformerDecoderLayer::new(a.usize(0)?, a.usize(1)?, layer_config(a, 2, 5)?)?) })
            .with_forward(&DECODER_LAYER_FORWARD),
        class("Transformer", "d_model: Int = 512, nhead: Int = 8, num_encoder_layers: Int = 6, \
               num_decoder_layers: Int = 6, dim_feedforward: Int = 2048, dropout: Float = 0.1, \
               activation: Str = 'relu', custom_encoder: Str = None, custom_decoder: Str = None, \
               layer_norm_eps: Float = 1e-05, batch_first: Bool = False, norm_first: Bool = False, \
               bias: Bool = True, device: Str = None, dtype: DType = None",
            |a| {
                factory(a, 13)?;
                if !a.get(7).is_none() || !a.get(8).is_none() {
                    return Err(BorchError::NotImplemented(
                        "Transformer(custom_encoder=..., custom_decoder=...): borch builds its own \
                         encoder and decoder; leave them None".into()));
                }
                let c = layer_config(a, 4, 9)?;
                boxed(Transformer::new(a.usize(0)?, a.usize(1)?, a.usize(2)?, a.usize(3)?, c)?)
            }).with_forward(&TRANSFORMER_FORWARD),
    ]
}
