"""Double backward through nn.RNN / nn.LSTM / nn.GRU (create_graph=True), frozen from torch for
borch-nn/tests/recurrent_fused.rs: parameters and input from a seeded generator, the first
derivatives of sum(output * gout) for the input and every parameter, then the gradients of the
sum of their squares. One case a line. Run: python3 tests/nn/rnn_double_backward.py"""

import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = torch.Generator().manual_seed(77)


def randn(*shape):
    return torch.randn(*shape, generator=GEN, dtype=torch.float64).float()


def flat(t):
    return [float(x) for x in t.detach().reshape(-1)]


def case(name, cls, steps, batch, inputs, hidden, **kw):
    m = getattr(torch.nn, cls)(inputs, hidden, **kw)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(randn(*p.shape) * 0.5)
    x = randn(steps, batch, inputs).requires_grad_()
    if cls.endswith("Cell"):
        x = randn(batch, inputs).requires_grad_()
        y = m(x)
        y = y[0] if isinstance(y, tuple) else y
    else:
        y, _ = m(x)
    gout = randn(*y.shape)
    wrt = [x] + list(m.parameters())
    first = torch.autograd.grad((y * gout).sum(), wrt, create_graph=True)
    total = sum((g * g).sum() for g in first)
    second = torch.autograd.grad(total, wrt)
    return {
        "name": name, "type": cls, "args": [inputs, hidden], "kwargs": kw,
        "state_dict": [[k, list(v.shape), flat(v)] for k, v in m.state_dict().items()],
        "x": [list(x.shape), flat(x)], "gout": flat(gout),
        "first": [flat(g) for g in first], "second": [flat(g) for g in second],
    }


def main():
    torch.use_deterministic_algorithms(True)
    cases = [
        case("lstm", "LSTM", 4, 2, 3, 3),
        case("lstm_bidirectional_2_layers", "LSTM", 3, 2, 2, 3, num_layers=2, bidirectional=True),
        case("gru", "GRU", 4, 2, 3, 3),
        case("gru_bidirectional_no_bias", "GRU", 3, 2, 2, 3, bidirectional=True, bias=False),
        case("rnn_tanh", "RNN", 4, 2, 3, 3),
        case("rnn_relu_bidirectional", "RNN", 3, 2, 2, 3, nonlinearity="relu",
             bidirectional=True),
        case("rnn_cell", "RNNCell", 1, 2, 3, 3),
        case("gru_cell", "GRUCell", 1, 2, 3, 3),
        case("lstm_cell", "LSTMCell", 1, 2, 3, 3),
    ]
    path = os.path.join(HERE, "rnn_double_backward.json")
    with open(path, "w") as f:
        f.write('{"torch": "%s", "cases": [\n' % torch.__version__)
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")
    print(f"{path}: {len(cases)} cases")


if __name__ == "__main__":
    main()
