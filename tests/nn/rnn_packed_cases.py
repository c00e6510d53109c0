"""torch.nn.utils.rnn's PackedSequence frozen from torch for borch-nn/tests/rnn_packed.rs, one
case a line: pack_padded_sequence (data, batch_sizes, sorted/unsorted indices, the input's
gradient of sum(data * gout)), pad_packed_sequence, pack_sequence, unpack_sequence, torch's
errors, and RNN / LSTM / GRU over packed input (the module's state dict, the packed output,
h_n (c_n), and the gradients of sum(out * gout) + sum(h_n * gh) (+ sum(c_n * gc)) for the
input and every parameter).
Run: python3 tests/nn/rnn_packed_cases.py"""

import json
import os

import torch
from torch.nn.utils.rnn import (pack_padded_sequence, pack_sequence, pad_packed_sequence,
                                unpack_sequence)

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = torch.Generator().manual_seed(11)


def enc(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "data": t.detach().reshape(-1).tolist()}


def ints(t):
    return None if t is None else t.tolist()


def randn(*shape):
    return torch.randn(*shape, generator=GEN)


def error(c, e):
    c["error"] = {"type": type(e).__name__, "message": str(e)}
    return c


def packed(p):
    return {"data": enc(p.data), "batch_sizes": ints(p.batch_sizes),
            "sorted_indices": ints(p.sorted_indices), "unsorted_indices": ints(p.unsorted_indices)}


def pack_case(name, shape, lengths, batch_first=False, enforce_sorted=True, padding_value=0.0,
              total_length=None):
    x = randn(*shape).requires_grad_(True)
    c = {"name": name, "kind": "pack", "input": enc(x), "lengths": lengths,
         "batch_first": batch_first, "enforce_sorted": enforce_sorted,
         "padding_value": padding_value, "total_length": total_length}
    try:
        p = pack_padded_sequence(x, lengths, batch_first=batch_first,
                                 enforce_sorted=enforce_sorted)
    except Exception as e:
        return error(c, e)
    c["packed"] = packed(p)
    try:
        padded, lens = pad_packed_sequence(p, batch_first=batch_first,
                                           padding_value=padding_value,
                                           total_length=total_length)
    except Exception as e:
        return error(c, e)
    c["padded"] = enc(padded)
    c["padded_lengths"] = ints(lens)
    gout = randn(*padded.shape)
    (padded * gout).sum().backward()
    c["gout"] = enc(gout)
    c["input_grad"] = enc(x.grad)
    return c


def sequence_case(name, lengths, feature, enforce_sorted):
    seqs = [randn(n, feature) for n in lengths]
    c = {"name": name, "kind": "sequence", "sequences": [enc(s) for s in seqs],
         "enforce_sorted": enforce_sorted}
    try:
        p = pack_sequence(seqs, enforce_sorted=enforce_sorted)
    except Exception as e:
        return error(c, e)
    c["packed"] = packed(p)
    c["unpacked"] = [enc(s) for s in unpack_sequence(p)]
    return c


def module_case(name, cls, lengths, enforce_sorted=False, with_hx=False, **kw):
    torch.manual_seed(len(name))
    m = cls(3, 4, **kw)
    x = randn(max(lengths), len(lengths), 3)
    p = pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
    data = p.data.detach().requires_grad_(True)
    p = torch.nn.utils.rnn.PackedSequence(data, p.batch_sizes, p.sorted_indices,
                                          p.unsorted_indices)
    dirs = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    real = kw.get("proj_size", 0) or 4
    c = {"name": name, "kind": "module", "class": cls.__name__,
         "options": kw, "lengths": lengths, "enforce_sorted": enforce_sorted,
         "state_dict": {k: enc(v) for k, v in m.state_dict().items()},
         "packed": packed(p)}
    hx = None
    if with_hx:
        h0 = randn(layers * dirs, len(lengths), real)
        hx = (h0, randn(layers * dirs, len(lengths), 4)) if cls is torch.nn.LSTM else h0
        c["hx"] = [enc(t) for t in (hx if isinstance(hx, tuple) else (hx,))]
    out, h = m(p, hx)
    finals = list(h) if isinstance(h, tuple) else [h]
    c["output"] = enc(out.data)
    c["finals"] = [enc(f) for f in finals]
    gout = randn(*out.data.shape)
    gfinals = [randn(*f.shape) for f in finals]
    loss = (out.data * gout).sum() + sum((f * g).sum() for f, g in zip(finals, gfinals))
    loss.backward()
    c["gout"] = enc(gout)
    c["gfinals"] = [enc(g) for g in gfinals]
    c["input_grad"] = enc(data.grad)
    c["param_grads"] = {k: enc(v.grad) for k, v in m.named_parameters()}
    return c


def main():
    lstm, gru, rnn = torch.nn.LSTM, torch.nn.GRU, torch.nn.RNN
    cases = [
        pack_case("sorted", (4, 3, 2), [4, 2, 1]),
        pack_case("batch_first", (3, 4, 2), [4, 3, 1], batch_first=True),
        pack_case("unsorted", (5, 4, 2), [2, 5, 1, 3], enforce_sorted=False),
        pack_case("unsorted_ties", (3, 5, 1), [2, 3, 2, 1, 3], enforce_sorted=False),
        pack_case("unsorted_batch_first_value", (4, 3, 2), [1, 3, 2], batch_first=True,
                  enforce_sorted=False, padding_value=-2.5),
        pack_case("total_length", (3, 2, 2), [3, 1], total_length=5),
        pack_case("shorter_than_padding", (6, 2, 3), [3, 2]),
        pack_case("features_2d", (3, 2, 2, 2), [3, 2]),
        pack_case("one_dim_data", (4, 3), [4, 4, 2]),
        pack_case("err_not_sorted", (3, 2, 2), [1, 3]),
        pack_case("err_zero_length", (3, 2, 2), [3, 0]),
        pack_case("err_count", (3, 2, 2), [3, 2, 1]),
        pack_case("err_total_length", (3, 2, 2), [3, 1], total_length=2),
        sequence_case("seq_sorted", [3, 2, 2], 2, True),
        sequence_case("seq_unsorted", [1, 4, 2], 3, False),
        sequence_case("err_seq_not_sorted", [1, 4, 2], 3, True),
        module_case("lstm", lstm, [4, 2, 3]),
        module_case("lstm_hx_sorted", lstm, [4, 3, 1], enforce_sorted=True, with_hx=True),
        module_case("lstm_bidirectional_2_layers", lstm, [3, 5, 1, 2], num_layers=2,
                    bidirectional=True, with_hx=True),
        module_case("lstm_proj", lstm, [3, 1, 2], proj_size=2, with_hx=True),
        module_case("gru_bidirectional", gru, [2, 4, 4, 1], bidirectional=True),
        module_case("gru_hx", gru, [3, 2], with_hx=True, bias=False),
        module_case("rnn_tanh_2_layers", rnn, [4, 1, 3], num_layers=2, with_hx=True),
        module_case("rnn_relu_bidirectional", rnn, [2, 3], nonlinearity="relu",
                    bidirectional=True),
    ]
    path = os.path.join(HERE, "rnn_packed_cases.json")
    with open(path, "w") as f:
        f.write('{"torch": "%s", "cases": [\n' % torch.__version__)
        f.write(",\n".join(json.dumps(c) for c in cases))
        f.write("\n]}\n")
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
