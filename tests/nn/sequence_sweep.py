"""A sweep over the options of the recurrent, attention and transformer modules (issue 14's
goldens), frozen from real torch into sequence_sweep.json (one case a line):

    python3 tests/nn/sequence_sweep.py

The cases have the forward-case format of cases.json (recurrent_cases.py's output trees, inputs
that may be lists, `forward_kwargs` with tensor specs as masks; parameters randomised; gradients
of sum(output · gout) for every input and parameter). They are replayed by
`borch-nn/tests/forward.rs` (natively), `tests/node/recurrent.mjs` (borch-ts under Node),
`tests/browser/pages/sequence.html` (borch-ts in Chromium) and `tests/browser/pages/sequence_py.html`
(borch_webgpu in Pyodide), all through `tests/browser/pages/module_cases.mjs`'s rules.

- recurrent: RNN (tanh, relu), LSTM and GRU over num_layers {1, 2} × bidirectional × batch_first ×
  bias × an initial state or none; LSTM's proj_size {1, 2} over layers, directions and states;
  unbatched inputs; RNNCell (tanh, relu), LSTMCell and GRUCell with and without bias, state and
  batch.
- attention: MultiheadAttention over heads {1, 2} × kdim/vdim × add_bias_kv × add_zero_attn, each
  with no mask, a bool and a float key_padding_mask, a bool and a float attn_mask, need_weights=False
  and average_attn_weights=False; batch_first on alternate configurations.
- transformer: TransformerEncoderLayer over activation {relu, gelu} × norm_first × batch_first ×
  bias × {no mask, a causal float src_mask, a bool src_key_padding_mask};
  TransformerDecoderLayer over activation × norm_first × batch_first × {no mask, a causal
  tgt_mask, a memory_key_padding_mask, a tgt_key_padding_mask with a float memory_mask}; and
  nn.Transformer with norm_first and activations. Train mode with dropout 0.0, every eighth in
  eval mode (torch's fast path where it takes one).

Random values come from this file's own generator (seed 6161): no line of cases.json changes.
"""

import itertools
import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import json_lines  # noqa: E402 (tests/json_lines.py)
import recurrent_cases as rc  # noqa: E402
from cases import M, enc, inp  # noqa: E402

GEN = torch.Generator().manual_seed(6161)


def randn(*shape):
    return torch.randn(*shape, generator=GEN)


def I(*shape):
    return inp(randn(*shape))


def bool_mask(shape, p=0.3, keep_first=True):
    """A bool mask with P(True) = p; the first column False so no row is fully masked."""
    m = torch.rand(*shape, generator=GEN) < p
    if keep_first:
        m[..., 0] = False
    return enc(m)


def causal(n):
    return enc(nn.Transformer.generate_square_subsequent_mask(n))


def recurrent(f):
    out = []
    T, N, In, H = 3, 2, 3, 2
    kinds = [("rnn", "RNN", {}), ("rnn_relu", "RNN", {"nonlinearity": "relu"}),
             ("lstm", "LSTM", {}), ("gru", "GRU", {})]
    for (tag, cls, kw), layers, bidir, bf, bias, hx in itertools.product(
            kinds, [1, 2], [False, True], [False, True], [True, False], [False, True]):
        name = (f"sweep_{tag}_l{layers}{'_bi' if bidir else ''}{'_bf' if bf else ''}"
                f"{'' if bias else '_nobias'}{'_hx' if hx else ''}")
        spec = M(cls, In, H, num_layers=layers, bidirectional=bidir, batch_first=bf, bias=bias, **kw)
        x = I(N, T, In) if bf else I(T, N, In)
        inputs = [x, rc.state(cls, layers * (2 if bidir else 1), N, H)] if hx else [x]
        out.append(f(name, spec, inputs))
    for proj, layers, bidir, hx in itertools.product([1, 2], [1, 2], [False, True], [False, True]):
        name = f"sweep_lstm_proj{proj}_l{layers}{'_bi' if bidir else ''}{'_hx' if hx else ''}"
        spec = M("LSTM", In, 3, num_layers=layers, bidirectional=bidir, proj_size=proj)
        inputs = [I(T, N, In)]
        if hx:
            inputs.append(rc.state("LSTM", layers * (2 if bidir else 1), N, 3, proj))
        out.append(f(name, spec, inputs))
    for (tag, cls, kw), bidir, hx in itertools.product(kinds, [False, True], [False, True]):
        name = f"sweep_{tag}_unbatched{'_bi' if bidir else ''}{'_hx' if hx else ''}"
        inputs = [I(T, In)] + ([rc.state(cls, 2 if bidir else 1, None, H)] if hx else [])
        out.append(f(name, M(cls, In, H, bidirectional=bidir, **kw), inputs))
    cells = [("rnn_cell", "RNNCell", {}), ("rnn_cell_relu", "RNNCell", {"nonlinearity": "relu"}),
             ("lstm_cell", "LSTMCell", {}), ("gru_cell", "GRUCell", {})]
    for (tag, cls, kw), bias, hx, batched in itertools.product(
            cells, [True, False], [False, True], [True, False]):
        name = f"sweep_{tag}{'' if bias else '_nobias'}{'_hx' if hx else ''}{'' if batched else '_unbatched'}"
        lead = (N,) if batched else ()
        inputs = [I(*lead, In)]
        if hx:
            inputs.append([I(*lead, H), I(*lead, H)] if cls == "LSTMCell" else I(*lead, H))
        out.append(f(name, M(cls, In, H, bias=bias, **kw), inputs))
    return out


def attention(f):
    out = []
    E, L, S, N = 4, 3, 4, 2
    configs = list(itertools.product([1, 2], [False, True], [False, True], [False, True]))
    for i, (heads, kv, bias_kv, zero) in enumerate(configs):
        bf = i % 2 == 1
        kw = {"add_bias_kv": bias_kv, "add_zero_attn": zero, "batch_first": bf}
        if kv:
            kw.update(kdim=3, vdim=5)
        spec = M("MultiheadAttention", E, heads, **kw)
        tag = (f"sweep_mha_h{heads}{'_kvdim' if kv else ''}{'_biaskv' if bias_kv else ''}"
               f"{'_zero' if zero else ''}{'_bf' if bf else ''}")

        def qkv():
            shape = (lambda n, t, e: (n, t, e)) if bf else (lambda n, t, e: (t, n, e))
            return [I(*shape(N, L, E)), I(*shape(N, S, 3 if kv else E)), I(*shape(N, S, 5 if kv else E))]

        variants = [
            ("plain", {}),
            ("kpm_bool", {"key_padding_mask": bool_mask((N, S))}),
            ("kpm_float", {"key_padding_mask": enc(randn(N, S))}),
            ("mask_bool", {"attn_mask": bool_mask((L, S))}),
            ("mask_float_3d", {"attn_mask": enc(randn(N * heads, L, S))}),
            ("no_weights_kpm", {"key_padding_mask": bool_mask((N, S)), "need_weights": False}),
            ("per_head_weights", {"attn_mask": enc(randn(L, S)), "average_attn_weights": False}),
        ]
        for vname, kwargs in variants:
            out.append(f(f"{tag}_{vname}", spec, qkv(), forward_kwargs=kwargs or None))
    return out


def transformer(f):
    out = []
    E, heads, ff, L, S, N = 4, 2, 6, 3, 4, 2
    n = 0
    for act, nf, bf, bias, masks in itertools.product(
            ["relu", "gelu"], [False, True], [False, True], [True, False], ["none", "causal", "kpm"]):
        spec = M("TransformerEncoderLayer", E, heads, ff, dropout=0.0, activation=act, norm_first=nf,
                 batch_first=bf, bias=bias)
        kwargs = {"none": {}, "causal": {"src_mask": causal(L)},
                  "kpm": {"src_key_padding_mask": bool_mask((N, L))}}[masks]
        x = I(N, L, E) if bf else I(L, N, E)
        name = (f"sweep_encoder_layer_{act}{'_nf' if nf else ''}{'_bf' if bf else ''}"
                f"{'' if bias else '_nobias'}_{masks}")
        n += 1
        out.append(f(name, spec, [x], train=n % 8 != 0, forward_kwargs=kwargs or None))
    for act, nf, bf, masks in itertools.product(
            ["relu", "gelu"], [False, True], [False, True], ["none", "causal", "memory_kpm", "tgt_kpm_memory_mask"]):
        spec = M("TransformerDecoderLayer", E, heads, ff, dropout=0.0, activation=act, norm_first=nf,
                 batch_first=bf)
        kwargs = {"none": {}, "causal": {"tgt_mask": causal(L)},
                  "memory_kpm": {"memory_key_padding_mask": bool_mask((N, S))},
                  "tgt_kpm_memory_mask": {"tgt_key_padding_mask": bool_mask((N, L)),
                                          "memory_mask": enc(randn(L, S))}}[masks]
        tgt, memory = (I(N, L, E), I(N, S, E)) if bf else (I(L, N, E), I(S, N, E))
        name = f"sweep_decoder_layer_{act}{'_nf' if nf else ''}{'_bf' if bf else ''}_{masks}"
        n += 1
        out.append(f(name, spec, [tgt, memory], train=n % 8 != 0, forward_kwargs=kwargs or None))
    for act, nf, bf in itertools.product(["relu", "gelu"], [False, True], [False, True]):
        spec = M("Transformer", E, heads, 1, 1, ff, dropout=0.0, activation=act, norm_first=nf,
                 batch_first=bf)
        src, tgt = (I(N, S, E), I(N, L, E)) if bf else (I(S, N, E), I(L, N, E))
        name = f"sweep_transformer_{act}{'_nf' if nf else ''}{'_bf' if bf else ''}"
        out.append(f(name, spec, [src, tgt], forward_kwargs={"tgt_mask": causal(L)}))
    return out


def main():
    saved = rc.GEN
    rc.GEN = GEN
    try:
        f = rc.tree_case
        forward = recurrent(f) + attention(f) + transformer(f)
    finally:
        rc.GEN = saved
    names = [c["name"] for c in forward]
    assert len(names) == len(set(names)), "duplicate case names"
    path = os.path.join(HERE, "sequence_sweep.json")
    json_lines.write(path, {"torch": torch.__version__, "forward": forward})
    print(f"{path}: {len(forward)} forward cases")


if __name__ == "__main__":
    main()
