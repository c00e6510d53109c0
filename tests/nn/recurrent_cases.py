"""Cases for the recurrent modules whose forward returns a tuple (LSTMCell, RNN, LSTM, GRU),
imported by cases.py (same spec format). Their forward cases carry an output tree: a tuple as a
list (nested as torch nests it), None as null; `gout` is the same tree (one random tensor per
tensor output), and the gradients are of the sum of `(output * gout).sum()` over the outputs.
An input may be a list of inputs (LSTM's `(h_0, c_0)`); its `input_grads` entry is then a list.
Optional `forward_kwargs` are keyword arguments of forward (values, tensor specs allowed).

Random values come from this file's own generator, so adding a case here changes no other
case's line of cases.json."""

import torch

from cases import M, build, dec, enc, inp, is_tensor_spec, materialise

GEN = torch.Generator().manual_seed(4242)


def randn(*shape, scale=1.0):
    return torch.randn(*shape, generator=GEN) * scale


def tree(fn, v):
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [tree(fn, x) for x in v]
    return fn(v)


def leaves_of(d, leaves):
    """An input spec (or a list of them) as the module's argument; its leaves appended."""
    if d is None:
        leaves.append(None)
        return None
    if isinstance(d, list):
        return tuple(leaves_of(x, leaves) for x in d)
    leaf, arg = materialise(d)
    leaves.append(leaf)
    return arg


def grads_of(d, leaves):
    """The input_grads entry of input spec `d`, its leaves taken from `leaves` in order."""
    if isinstance(d, list):
        return [grads_of(x, leaves) for x in d]
    leaf = leaves.pop(0)
    return enc(leaf.grad) if leaf is not None and leaf.grad is not None else None


def tensors(y):
    if y is None:
        return []
    if isinstance(y, (list, tuple)):
        return [t for x in y for t in tensors(x)]
    return [y]


def tree_case(name, spec, inputs, seed=0, train=True, forward_kwargs=None):
    torch.manual_seed(seed)
    m = build(spec)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(randn(*p.shape))
    m.train(train)
    state = [[k, enc(v)] for k, v in m.state_dict().items()]
    leaves = []
    args = [leaves_of(d, leaves) for d in inputs]
    kwargs = {k: keyword(v) for k, v in (forward_kwargs or {}).items()}
    torch.manual_seed(seed)
    y = m(*args, **kwargs)
    gout = tree(lambda t: enc(randn(*t.shape)) if t.requires_grad else None, y)
    ys = [t for t in tensors(y) if t.requires_grad]
    gs = [dec(g) for g in flat(gout) if g is not None]
    if ys:
        torch.autograd.backward(ys, gs)
    case = {
        "name": name,
        "module": spec,
        "seed": seed,
        "train": train,
        "state_dict": state,
        "inputs": inputs,
        "output": tree(enc, y),
        "gout": gout,
        "input_grads": [grads_of(d, leaves) for d in inputs],
        "param_grads": [[k, enc(p.grad)] for k, p in m.named_parameters() if p.grad is not None],
    }
    if forward_kwargs:
        case["forward_kwargs"] = forward_kwargs
    return case


def flat(g):
    if isinstance(g, list):
        return [x for i in g for x in flat(i)]
    return [g]


def keyword(v):
    """A forward keyword argument: tensor specs as tensors, lists as tuples."""
    if is_tensor_spec(v):
        return dec(v)
    if isinstance(v, list):
        return tuple(keyword(x) for x in v)
    return v


def forward_cases():
    out = []
    f = tree_case
    for name, spec in [("lstm_cell", M("LSTMCell", 4, 3)),
                       ("lstm_cell_no_bias", M("LSTMCell", 4, 3, bias=False))]:
        out.append(f(name, spec, [inp(randn(2, 4)), [inp(randn(2, 3)), inp(randn(2, 3))]]))
        out.append(f(name + "_no_hx", spec, [inp(randn(2, 4))]))
        out.append(f(name + "_unbatched", spec, [inp(randn(4)), [inp(randn(3)), inp(randn(3))]]))
    out.append(f("lstm_cell_hx_keyword", M("LSTMCell", 3, 2), [inp(randn(2, 3))],
                 forward_kwargs={"hx": [enc(randn(2, 2)), enc(randn(2, 2))]}))
    out.append(f("lstm_cell_transposed", M("LSTMCell", 3, 2), [inp(randn(4, 3), transpose=True)]))
    return out


def init_specs():
    return [("lstm_cell", 31, [M("LSTMCell", 4, 3)]),
            ("lstm_cell_no_bias", 32, [M("LSTMCell", 3, 2, bias=False)])]


def structure_specs():
    return [M("LSTMCell", 4, 3), M("LSTMCell", 2, 5, False)]
