//! torch's `nn.TransformerEncoder`, `nn.TransformerDecoder` (a `layers` ModuleList of deep
//! copies of one layer, then an optional norm) and `nn.Transformer` (encoder and decoder, then
//! `xavier_uniform_` on every parameter of more than one dim, in order).

use borch_tensor::api::Value;
use borch_tensor::{BorchError, DType, Result, Tensor};

use super::attention::copy_layer_norm;
use super::transformer_layers::{
    DecoderMasks, LayerConfig, TransformerDecoderLayer, TransformerEncoderLayer, decoder_masks,
    opt, opt_flag,
};
use super::{LayerNorm, ModuleList};
use crate::api::forward::ForwardSignature;
use crate::functional as F;
use crate::init;
use crate::module::Module;
use crate::{display_as_repr, training_flag};

/// torch's `Transformer.generate_square_subsequent_mask(sz)`: `(sz, sz)` float, -inf above the
/// diagonal, 0 elsewhere.
pub fn generate_square_subsequent_mask(sz: usize) -> Result<Tensor> {
    let data: Vec<f32> = (0..sz * sz)
        .map(|i| {
            if i % sz > i / sz {
                f32::NEG_INFINITY
            } else {
                0.0
            }
        })
        .collect();
    Tensor::from_slice(&data, &[sz, sz])
}

fn layer_at<T: 'static>(layers: &ModuleList, i: usize) -> &T {
    layers
        .get(i)
        .and_then(|m| m.as_any().downcast_ref::<T>())
        .expect("a layer of this encoder or decoder")
}

/// torch's `nn.TransformerEncoder(encoder_layer, num_layers, norm, enable_nested_tensor,
/// mask_check)`.
pub struct TransformerEncoder {
    /// torch's `layers`: the stacked layers.
    pub layers: ModuleList,
    /// torch's `num_layers`.
    pub num_layers: usize,
    /// torch's `norm`: the final layer norm, if any.
    pub norm: Option<LayerNorm>,
    /// torch's `enable_nested_tensor` (borch has no nested tensors: it only keeps the flag).
    pub enable_nested_tensor: bool,
    /// torch's `mask_check`.
    pub mask_check: bool,
    training: bool,
}

/// torch's `TransformerEncoder.forward` parameters.
pub static ENCODER_FORWARD: ForwardSignature = ForwardSignature::new(
    "TransformerEncoder.forward",
    "src: Tensor, mask: Tensor = None, src_key_padding_mask: Tensor = None, is_causal: Bool = None",
);

impl TransformerEncoder {
    /// `num_layers` deep copies of `encoder_layer` (equal initial parameters), then `norm`.
    pub fn new(
        encoder_layer: &TransformerEncoderLayer,
        num_layers: usize,
        norm: Option<LayerNorm>,
    ) -> Result<TransformerEncoder> {
        let mut layers = ModuleList::new(Vec::new());
        for _ in 0..num_layers {
            layers.append(encoder_layer.deep_copy()?);
        }
        Ok(TransformerEncoder {
            layers,
            num_layers,
            norm,
            enable_nested_tensor: true,
            mask_check: true,
            training: true,
        })
    }

    /// For a binding: `encoder_layer` and `norm` as modules (a TransformerEncoderLayer and a
    /// LayerNorm, both deep-copied).
    pub fn from_modules(
        encoder_layer: &dyn Module,
        num_layers: usize,
        norm: Option<&dyn Module>,
        enable_nested_tensor: bool,
        mask_check: bool,
    ) -> Result<TransformerEncoder> {
        let layer = encoder_layer
            .as_any()
            .downcast_ref::<TransformerEncoderLayer>()
            .ok_or_else(|| {
                BorchError::NotImplemented(format!(
                    "TransformerEncoder(encoder_layer=...): borch takes a TransformerEncoderLayer, \
                     not {}",
                    encoder_layer.name()
                ))
            })?;
        let mut e = TransformerEncoder::new(layer, num_layers, norm_of(norm)?)?;
        e.enable_nested_tensor = enable_nested_tensor;
        e.mask_check = mask_check;
        Ok(e)
    }

    /// torch's `forward(src, mask, src_key_padding_mask, is_causal)` (`is_causal=None` reads
    /// as false: torch's detection of a causal mask changes the path, not the values).
    pub fn forward_encoder(
        &self,
        src: &Tensor,
        mask: Option<&Tensor>,
        src_key_padding_mask: Option<&Tensor>,
        is_causal: bool,
    ) -> Result<Tensor> {
        let kpm = F::canonical_mask(src_key_padding_mask, "src_key_padding_mask")?;
        let mask = F::canonical_mask(mask, "mask")?;
        let mut out = src.clone();
        for i in 0..self.layers.len() {
            let layer: &TransformerEncoderLayer = layer_at(&self.layers, i);
            out = layer.forward_layer(&out, mask.as_ref(), kpm.as_ref(), is_causal)?;
        }
        match &self.norm {
            Some(n) => n.forward(&out),
            None => Ok(out),
        }
    }
}

fn norm_of(norm: Option<&dyn Module>) -> Result<Option<LayerNorm>> {
    let Some(n) = norm else { return Ok(None) };
    match n.as_any().downcast_ref::<LayerNorm>() {
        Some(ln) => Ok(Some(copy_layer_norm(ln)?)),
        None => Err(BorchError::NotImplemented(format!(
            "norm=...: borch's TransformerEncoder and TransformerDecoder take a LayerNorm, not {}",
            n.name()
        ))),
    }
}

fn children<'a>(
    layers: &'a ModuleList,
    norm: &'a Option<LayerNorm>,
) -> Vec<(String, &'a dyn Module)> {
    let mut out: Vec<(String, &dyn Module)> = vec![("layers".into(), layers)];
    if let Some(n) = norm {
        out.push(("norm".into(), n));
    }
    out
}

fn children_mut<'a>(
    layers: &'a mut ModuleList,
    norm: &'a mut Option<LayerNorm>,
) -> Vec<(String, &'a mut dyn Module)> {
    let mut out: Vec<(String, &mut dyn Module)> = vec![("layers".into(), layers)];
    if let Some(n) = norm {
        out.push(("norm".into(), n));
    }
    out
}

impl Module for TransformerEncoder {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        self.forward_encoder(input, None, None, false)
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = ENCODER_FORWARD.bind(positional, keywords)?;
        let (m, p) = (opt(&a, 1)?, opt(&a, 2)?);
        let y = self.forward_encoder(&a.tensor(0)?, m.as_ref(), p.as_ref(), opt_flag(&a, 3)?)?;
        Ok(Value::Tensor(y))
    }
    fn name(&self) -> String {
        "TransformerEncoder".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        children(&self.layers, &self.norm)
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        children_mut(&mut self.layers, &mut self.norm)
    }
    training_flag!();
}

/// torch's `nn.TransformerDecoder(decoder_layer, num_layers, norm)`.
pub struct TransformerDecoder {
    /// torch's `layers`: the stacked layers.
    pub layers: ModuleList,
    /// torch's `num_layers`.
    pub num_layers: usize,
    /// torch's `norm`: the final layer norm, if any.
    pub norm: Option<LayerNorm>,
    training: bool,
}

/// torch's `TransformerDecoder.forward` parameters.
pub static DECODER_FORWARD: ForwardSignature = ForwardSignature::new(
    "TransformerDecoder.forward",
    "tgt: Tensor, memory: Tensor, tgt_mask: Tensor = None, memory_mask: Tensor = None, \
     tgt_key_padding_mask: Tensor = None, memory_key_padding_mask: Tensor = None, \
     tgt_is_causal: Bool = None, memory_is_causal: Bool = False",
);

impl TransformerDecoder {
    /// `num_layers` deep copies of `decoder_layer`, then `norm`.
    pub fn new(
        decoder_layer: &TransformerDecoderLayer,
        num_layers: usize,
        norm: Option<LayerNorm>,
    ) -> Result<TransformerDecoder> {
        let mut layers = ModuleList::new(Vec::new());
        for _ in 0..num_layers {
            layers.append(decoder_layer.deep_copy()?);
        }
        Ok(TransformerDecoder {
            layers,
            num_layers,
            norm,
            training: true,
        })
    }

    /// For a binding: `decoder_layer` and `norm` as modules (deep-copied).
    pub fn from_modules(
        decoder_layer: &dyn Module,
        num_layers: usize,
        norm: Option<&dyn Module>,
    ) -> Result<TransformerDecoder> {
        let layer = decoder_layer
            .as_any()
            .downcast_ref::<TransformerDecoderLayer>()
            .ok_or_else(|| {
                BorchError::NotImplemented(format!(
                    "TransformerDecoder(decoder_layer=...): borch takes a TransformerDecoderLayer, \
                     not {}",
                    decoder_layer.name()
                ))
            })?;
        TransformerDecoder::new(layer, num_layers, norm_of(norm)?)
    }

    /// torch's `forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
    /// memory_key_padding_mask, tgt_is_causal, memory_is_causal)`.
    pub fn forward_decoder(
        &self,
        tgt: &Tensor,
        memory: &Tensor,
        m: &DecoderMasks<'_>,
    ) -> Result<Tensor> {
        let mut out = tgt.clone();
        for i in 0..self.layers.len() {
            let layer: &TransformerDecoderLayer = layer_at(&self.layers, i);
            out = layer.forward_layer(&out, memory, m)?;
        }
        match &self.norm {
            Some(n) => n.forward(&out),
            None => Ok(out),
        }
    }
}

impl Module for TransformerDecoder {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(BorchError::Type(
            "TransformerDecoder.forward() missing 1 required positional argument: 'memory'".into(),
        ))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [t, m] => self.forward_decoder(t, m, &DecoderMasks::default()),
            _ => Module::forward(self, inputs[0]),
        }
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = DECODER_FORWARD.bind(positional, keywords)?;
        let t = DecoderMasks::tensors(&a, 2)?;
        let m = decoder_masks(&t, opt_flag(&a, 6)?, a.bool(7)?);
        Ok(Value::Tensor(self.forward_decoder(
            &a.tensor(0)?,
            &a.tensor(1)?,
            &m,
        )?))
    }
    fn name(&self) -> String {
        "TransformerDecoder".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        children(&self.layers, &self.norm)
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        children_mut(&mut self.layers, &mut self.norm)
    }
    training_flag!();
}

/// torch's `nn.Transformer`.
pub struct Transformer {
    /// torch's `encoder`.
    pub encoder: TransformerEncoder,
    /// torch's `decoder`.
    pub decoder: TransformerDecoder,
    /// torch's `d_model`.
    pub d_model: usize,
    /// torch's `nhead`.
    pub nhead: usize,
    /// torch's `batch_first`: inputs and outputs are `(batch, seq, feature)`.
    pub batch_first: bool,
    training: bool,
}

/// torch's `Transformer.forward` parameters.
pub static TRANSFORMER_FORWARD: ForwardSignature = ForwardSignature::new(
    "Transformer.forward",
    "src: Tensor, tgt: Tensor, src_mask: Tensor = None, tgt_mask: Tensor = None, \
     memory_mask: Tensor = None, src_key_padding_mask: Tensor = None, \
     tgt_key_padding_mask: Tensor = None, memory_key_padding_mask: Tensor = None, \
     src_is_causal: Bool = None, tgt_is_causal: Bool = None, memory_is_causal: Bool = False",
);

impl Transformer {
    /// `Transformer(d_model, nhead, num_encoder_layers, num_decoder_layers, …)`: the encoder
    /// layer, its norm, the decoder layer, its norm (drawn in that order), then
    /// `xavier_uniform_` on every parameter of more than one dim.
    pub fn new(
        d_model: usize,
        nhead: usize,
        num_encoder_layers: usize,
        num_decoder_layers: usize,
        c: LayerConfig,
    ) -> Result<Transformer> {
        let norm = || LayerNorm::with_options(&[d_model], c.layer_norm_eps, true, c.bias);
        let enc_layer = TransformerEncoderLayer::new(d_model, nhead, c)?;
        let encoder = TransformerEncoder::new(&enc_layer, num_encoder_layers, Some(norm()?))?;
        let dec_layer = TransformerDecoderLayer::new(d_model, nhead, c)?;
        let decoder = TransformerDecoder::new(&dec_layer, num_decoder_layers, Some(norm()?))?;
        let t = Transformer {
            encoder,
            decoder,
            d_model,
            nhead,
            batch_first: c.batch_first,
            training: true,
        };
        for p in t.parameters() {
            if p.dim() > 1 {
                init::xavier_uniform_(&p, 1.0)?;
            }
        }
        Ok(t)
    }

    /// torch's `forward(src, tgt, …)`: masks in `[src_mask, tgt_mask, memory_mask,
    /// src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask]` order.
    pub fn forward_transformer(
        &self,
        src: &Tensor,
        tgt: &Tensor,
        masks: &[Option<Tensor>; 6],
        causal: [bool; 3],
    ) -> Result<Tensor> {
        let batched = src.dim() == 3;
        let batch_dim = if self.batch_first { 0 } else { 1 };
        if batched && (tgt.dim() <= batch_dim || src.shape()[batch_dim] != tgt.shape()[batch_dim]) {
            return Err(BorchError::Runtime(
                "the batch number of src and tgt must be equal".into(),
            ));
        }
        let last = |t: &Tensor| t.shape().last().copied();
        if last(src) != Some(self.d_model) || last(tgt) != Some(self.d_model) {
            return Err(BorchError::Runtime(
                "the feature number of src and tgt must be equal to d_model".into(),
            ));
        }
        let memory =
            self.encoder
                .forward_encoder(src, masks[0].as_ref(), masks[3].as_ref(), causal[0])?;
        let dec = [
            masks[1].clone(),
            masks[2].clone(),
            masks[4].clone(),
            masks[5].clone(),
        ];
        self.decoder
            .forward_decoder(tgt, &memory, &decoder_masks(&dec, causal[1], causal[2]))
    }
}

impl Module for Transformer {
    fn forward(&self, _input: &Tensor) -> Result<Tensor> {
        Err(BorchError::Type(
            "Transformer.forward() missing 1 required positional argument: 'tgt'".into(),
        ))
    }
    fn forward_args(&self, inputs: &[&Tensor]) -> Result<Tensor> {
        match inputs {
            [s, t] => self.forward_transformer(s, t, &Default::default(), [false; 3]),
            _ => Module::forward(self, inputs[0]),
        }
    }
    fn forward_values(
        &self,
        positional: Vec<Value>,
        keywords: Vec<(String, Value)>,
    ) -> Result<Value> {
        let a = TRANSFORMER_FORWARD.bind(positional, keywords)?;
        let masks = [
            opt(&a, 2)?,
            opt(&a, 3)?,
            opt(&a, 4)?,
            opt(&a, 5)?,
            opt(&a, 6)?,
            opt(&a, 7)?,
        ];
        let causal = [opt_flag(&a, 8)?, opt_flag(&a, 9)?, a.bool(10)?];
        let y = self.forward_transformer(&a.tensor(0)?, &a.tensor(1)?, &masks, causal)?;
        Ok(Value::Tensor(y))
    }
    fn name(&self) -> String {
        "Transformer".into()
    }
    fn named_children(&self) -> Vec<(String, &dyn Module)> {
        vec![
            ("encoder".into(), &self.encoder),
            ("decoder".into(), &self.decoder),
        ]
    }
    fn named_children_mut(&mut self) -> Vec<(String, &mut dyn Module)> {
        vec![
            ("encoder".into(), &mut self.encoder),
            ("decoder".into(), &mut self.decoder),
        ]
    }
    training_flag!();
}

/// `generate_square_subsequent_mask` with torch's `dtype=` (float32 only in borch).
pub fn square_subsequent_mask(sz: usize, dtype: Option<DType>) -> Result<Tensor> {
    match dtype {
        None | Some(DType::Float32) => generate_square_subsequent_mask(sz),
        Some(d) => Err(BorchError::NotImplemented(format!(
            "generate_square_subsequent_mask(dtype={}): borch's masks are float32",
            d.name()
        ))),
    }
}

display_as_repr!(TransformerEncoder, TransformerDecoder, Transformer);
