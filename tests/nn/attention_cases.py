"""Cases for MultiheadAttention and the Transformer modules, imported by cases.py (the spec
format of recurrent_cases.py: output trees, `forward_kwargs` with tensor specs as masks).

- forward: MultiheadAttention (self- and cross-attention, kdim/vdim, bias_k/bias_v, zero
  attention, bool and float masks, key padding masks, need_weights both ways,
  average_attn_weights, batch_first, unbatched, is_causal, dropout in training after
  `manual_seed`), TransformerEncoderLayer / DecoderLayer (relu/gelu, norm_first, bias=False,
  masks), TransformerEncoder / Decoder (deep-copied layers, a final norm) and Transformer, in eval
  mode with their default dropout and in train mode with dropout=0.0 (and a few with dropout > 0
  in training: torch's CPU draws); parameters randomised as every forward case's are.
- init: seeded constructions (torch's draw order; an encoder's layers all equal).
- structure: repr, state_dict keys, parameters, children.

A TransformerEncoder / TransformerDecoder spec takes its layer (and norm) as module specs:
`{"type": "TransformerEncoder", "args": [layer_spec, num_layers], "kwargs": {"norm": spec}}`.

Random values come from this file's own generator, so adding a case here changes no other
case's line of cases.json."""

import torch
import torch.nn as nn

import recurrent_cases as rc
from cases import M, enc, inp

GEN = torch.Generator().manual_seed(5151)


def randn(*shape, scale=1.0):
    return torch.randn(*shape, generator=GEN) * scale


def mask(rows):
    return enc(torch.tensor(rows, dtype=torch.bool))


def causal(n):
    return enc(nn.Transformer.generate_square_subsequent_mask(n))


def I(*shape):
    return inp(randn(*shape))


def mha_cases(f):
    out = []
    x = I(3, 2, 4)
    kpm = mask([[False, False, True, False, True], [False] * 5])
    am = mask([[False, True, False, False, False], [False, False, True, False, False],
               [True, False, False, False, False]])
    out.append(f("mha_self", M("MultiheadAttention", 4, 2), [x, x, x]))
    out.append(f("mha_cross", M("MultiheadAttention", 4, 2), [I(3, 2, 4), I(5, 2, 4), I(5, 2, 4)]))
    out.append(f("mha_kdim_vdim_bias_kv_zero_attn",
                 M("MultiheadAttention", 4, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True),
                 [I(3, 2, 4), I(5, 2, 3), I(5, 2, 5)]))
    out.append(f("mha_bias_kv_masks", M("MultiheadAttention", 4, 2, add_bias_kv=True),
                 [I(3, 2, 4), I(5, 2, 4), I(5, 2, 4)],
                 forward_kwargs={"key_padding_mask": kpm, "attn_mask": am}))
    out.append(f("mha_masks_per_head", M("MultiheadAttention", 4, 2),
                 [I(3, 2, 4), I(5, 2, 4), I(5, 2, 4)],
                 forward_kwargs={"key_padding_mask": kpm, "attn_mask": am,
                                 "average_attn_weights": False}))
    out.append(f("mha_masks_no_weights", M("MultiheadAttention", 4, 2),
                 [I(3, 2, 4), I(5, 2, 4), I(5, 2, 4)],
                 forward_kwargs={"key_padding_mask": kpm, "attn_mask": am, "need_weights": False}))
    out.append(f("mha_float_mask_3d", M("MultiheadAttention", 4, 2),
                 [I(3, 2, 4), I(5, 2, 4), I(5, 2, 4)],
                 forward_kwargs={"attn_mask": enc(randn(4, 3, 5))}))
    out.append(f("mha_float_kpm_no_weights", M("MultiheadAttention", 4, 2),
                 [I(3, 2, 4), I(5, 2, 4), I(5, 2, 4)],
                 forward_kwargs={"key_padding_mask": enc(randn(2, 5)), "need_weights": False}))
    out.append(f("mha_batch_first_no_bias", M("MultiheadAttention", 6, 3, bias=False, batch_first=True),
                 [I(2, 3, 6), I(2, 4, 6), I(2, 4, 6)]))
    out.append(f("mha_unbatched", M("MultiheadAttention", 6, 3, batch_first=True),
                 [I(3, 6), I(4, 6), I(4, 6)]))
    out.append(f("mha_unbatched_masks", M("MultiheadAttention", 4, 2),
                 [I(3, 4), I(5, 4), I(5, 4)],
                 forward_kwargs={"key_padding_mask": mask([False, True, False, False, True]),
                                 "attn_mask": enc(randn(2, 3, 5))}))
    out.append(f("mha_causal_no_weights", M("MultiheadAttention", 4, 2, batch_first=True),
                 [I(2, 3, 4), I(2, 3, 4), I(2, 3, 4)],
                 forward_kwargs={"attn_mask": causal(3), "is_causal": True, "need_weights": False}))
    out.append(f("mha_causal_weights", M("MultiheadAttention", 4, 2),
                 [I(3, 2, 4), I(3, 2, 4), I(3, 2, 4)],
                 forward_kwargs={"attn_mask": causal(3), "is_causal": True}))
    out.append(f("mha_dropout_eval", M("MultiheadAttention", 4, 2, dropout=0.5),
                 [I(3, 2, 4), I(5, 2, 4), I(5, 2, 4)], train=False))
    out.append(f("mha_dropout_train", M("MultiheadAttention", 4, 2, dropout=0.5),
                 [I(3, 2, 4), I(5, 2, 4), I(5, 2, 4)], seed=11))
    out.append(f("mha_dropout_train_no_weights", M("MultiheadAttention", 4, 2, dropout=0.3),
                 [I(3, 2, 4), I(5, 2, 4), I(5, 2, 4)], seed=12,
                 forward_kwargs={"need_weights": False}))
    out.append(f("mha_transposed_query", M("MultiheadAttention", 4, 2),
                 [inp(randn(3, 2, 4), transpose=True), I(5, 2, 4), I(5, 2, 4)]))
    return out


def enc_layer(*args, **kw):
    return M("TransformerEncoderLayer", *args, **kw)


def dec_layer(*args, **kw):
    return M("TransformerDecoderLayer", *args, **kw)


def layer_cases(f):
    out = []
    kpm = mask([[False, False, True], [False, False, False]])
    for train, drop in [(False, 0.1), (True, 0.0)]:
        tag = "eval" if not train else "train"
        out.append(f(f"encoder_layer_{tag}", enc_layer(4, 2, 8, dropout=drop), [I(3, 2, 4)], train=train))
        out.append(f(f"encoder_layer_gelu_norm_first_{tag}",
                     enc_layer(4, 2, 6, dropout=drop, activation="gelu", norm_first=True),
                     [I(3, 2, 4)], train=train,
                     forward_kwargs={"src_mask": causal(3), "src_key_padding_mask": kpm}))
        out.append(f(f"decoder_layer_{tag}", dec_layer(4, 2, 8, dropout=drop),
                     [I(3, 2, 4), I(5, 2, 4)], train=train,
                     forward_kwargs={"tgt_mask": causal(3)}))
    out.append(f("encoder_layer_batch_first_causal", enc_layer(4, 2, 8, dropout=0.0, batch_first=True),
                 [I(2, 3, 4)], forward_kwargs={"src_mask": causal(3), "is_causal": True}))
    out.append(f("encoder_layer_no_bias", enc_layer(4, 1, 5, dropout=0.0, bias=False), [I(3, 2, 4)]))
    out.append(f("encoder_layer_unbatched", enc_layer(4, 2, 8, dropout=0.0, layer_norm_eps=1e-3),
                 [I(3, 4)]))
    out.append(f("encoder_layer_bool_src_mask", enc_layer(4, 2, 8, dropout=0.0),
                 [I(3, 2, 4)], forward_kwargs={"src_mask": mask([[False, True, True], [False, False, True],
                                                                  [False, False, False]])}))
    out.append(f("encoder_layer_dropout_train", enc_layer(4, 2, 8, dropout=0.3), [I(3, 2, 4)], seed=21))
    out.append(f("decoder_layer_gelu_norm_first_masks",
                 dec_layer(4, 2, 6, dropout=0.0, activation="gelu", norm_first=True, batch_first=True),
                 [I(2, 3, 4), I(2, 5, 4)],
                 forward_kwargs={"tgt_mask": causal(3), "tgt_is_causal": True,
                                 "memory_key_padding_mask": mask([[False, False, True, False, True],
                                                                  [False] * 5]),
                                 "tgt_key_padding_mask": kpm}))
    out.append(f("decoder_layer_memory_mask", dec_layer(4, 2, 8, dropout=0.0, bias=False),
                 [I(3, 2, 4), I(5, 2, 4)],
                 forward_kwargs={"memory_mask": enc(randn(3, 5))}))
    out.append(f("decoder_layer_dropout_train", dec_layer(4, 2, 8, dropout=0.2),
                 [I(3, 2, 4), I(5, 2, 4)], seed=22))
    return out


def stack(kind, layer, n, norm=True, **kw):
    spec = M(kind, layer, n, **kw)
    if norm:
        spec["kwargs"]["norm"] = M("LayerNorm", 4)
    return spec


def stack_cases(f):
    out = []
    for train, drop in [(False, 0.1), (True, 0.0)]:
        tag = "eval" if not train else "train"
        out.append(f(f"encoder_{tag}", stack("TransformerEncoder", enc_layer(4, 2, 6, dropout=drop), 2,
                                             enable_nested_tensor=False),
                     [I(3, 2, 4)], train=train,
                     forward_kwargs={"mask": causal(3),
                                     "src_key_padding_mask": mask([[False, False, True], [False] * 3])}))
        out.append(f(f"decoder_{tag}", stack("TransformerDecoder", dec_layer(4, 2, 6, dropout=drop), 2),
                     [I(3, 2, 4), I(5, 2, 4)], train=train,
                     forward_kwargs={"tgt_mask": causal(3)}))
        out.append(f(f"transformer_{tag}",
                     M("Transformer", 4, 2, 2, 1, 6, dropout=drop),
                     [I(5, 2, 4), I(3, 2, 4)], train=train,
                     forward_kwargs={"tgt_mask": causal(3)}))
    out.append(f("encoder_no_norm_causal", stack("TransformerEncoder",
                                                 enc_layer(4, 2, 6, dropout=0.0, batch_first=True), 3,
                                                 norm=False),
                 [I(2, 3, 4)], forward_kwargs={"mask": causal(3), "is_causal": True}))
    out.append(f("transformer_batch_first_masks",
                 M("Transformer", 4, 1, 1, 2, 5, dropout=0.0, batch_first=True, norm_first=True,
                   activation="gelu"),
                 [I(2, 5, 4), I(2, 3, 4)],
                 forward_kwargs={"tgt_mask": causal(3),
                                 "src_key_padding_mask": mask([[False] * 4 + [True], [False] * 5]),
                                 "memory_key_padding_mask": mask([[False] * 4 + [True], [False] * 5])}))
    out.append(f("transformer_unbatched", M("Transformer", 4, 2, 1, 1, 6, dropout=0.0),
                 [I(5, 4), I(3, 4)]))
    return out


def forward_cases():
    saved = rc.GEN
    rc.GEN = GEN
    try:
        f = rc.tree_case
        return mha_cases(f) + layer_cases(f) + stack_cases(f)
    finally:
        rc.GEN = saved


def init_specs():
    return [
        ("mha", 41, [M("MultiheadAttention", 4, 2)]),
        ("mha_kdim_bias_kv", 42, [M("MultiheadAttention", 6, 3, kdim=2, vdim=5, add_bias_kv=True)]),
        ("mha_no_bias", 43, [M("MultiheadAttention", 4, 4, bias=False)]),
        ("encoder_layer", 44, [enc_layer(4, 2, 6)]),
        ("decoder_layer", 45, [dec_layer(4, 2, 6, bias=False)]),
        ("encoder", 46, [stack("TransformerEncoder", enc_layer(4, 2, 6), 2)]),
        ("decoder", 47, [stack("TransformerDecoder", dec_layer(4, 2, 6), 2, norm=False)]),
        ("transformer", 48, [M("Transformer", 4, 2, 2, 1, 6)]),
    ]


def structure_specs():
    return [
        M("MultiheadAttention", 4, 2), M("MultiheadAttention", 4, 2, kdim=3, vdim=5, add_bias_kv=True,
                                         bias=False),
        enc_layer(4, 2), enc_layer(4, 2, 8, 0.2, "gelu", bias=False),
        dec_layer(4, 2, 6, norm_first=True),
        stack("TransformerEncoder", enc_layer(4, 2, 6), 2),
        stack("TransformerDecoder", dec_layer(4, 2, 6), 1, norm=False),
        M("Transformer", 4, 2, 1, 1, 6),
    ]
