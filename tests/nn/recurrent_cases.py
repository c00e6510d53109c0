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
    out += sequence_cases()
    return out


def state(cls, layers_dirs, n, h, proj=0):
    """An initial state for `cls` (`h_0`, or `[h_0, c_0]` for an LSTM); unbatched when n is None."""
    hout = proj or h
    shape = (layers_dirs,) if n is None else (layers_dirs, n)
    if cls == "LSTM":
        return [inp(randn(*shape, hout)), inp(randn(*shape, h))]
    return inp(randn(*shape, h))


def sequence_cases():
    out = []
    f = tree_case
    T, N, I, H = 3, 2, 3, 4
    kinds = [("rnn", "RNN", {}), ("rnn_relu", "RNN", {"nonlinearity": "relu"}),
             ("lstm", "LSTM", {}), ("gru", "GRU", {})]
    for name, cls, kw in kinds:
        out.append(f(name, M(cls, I, H, **kw), [inp(randn(T, N, I)), state(cls, 1, N, H)]))
        out.append(f(name + "_no_hx", M(cls, I, H, **kw), [inp(randn(T, N, I))]))
        out.append(f(name + "_unbatched", M(cls, I, H, **kw),
                     [inp(randn(T, I)), state(cls, 1, None, H)]))
        out.append(f(name + "_unbatched_no_hx", M(cls, I, H, **kw), [inp(randn(T, I))]))
        out.append(f(name + "_no_bias", M(cls, I, H, bias=False, **kw),
                     [inp(randn(T, N, I)), state(cls, 1, N, H)]))
        out.append(f(name + "_2_layers", M(cls, I, H, num_layers=2, **kw),
                     [inp(randn(T, N, I)), state(cls, 2, N, H)]))
        out.append(f(name + "_bidirectional", M(cls, I, H, bidirectional=True, **kw),
                     [inp(randn(T, N, I)), state(cls, 2, N, H)]))
        out.append(f(name + "_batch_first", M(cls, I, H, batch_first=True, **kw),
                     [inp(randn(N, T, I)), state(cls, 1, N, H)]))
        out.append(f(name + "_2_layers_bidirectional_batch_first",
                     M(cls, I, H, 2, bidirectional=True, batch_first=True, **kw),
                     [inp(randn(N, T, I)), state(cls, 4, N, H)]))
        out.append(f(name + "_unbatched_bidirectional_2_layers",
                     M(cls, I, H, num_layers=2, bidirectional=True, **kw),
                     [inp(randn(T, I)), state(cls, 4, None, H)]))
        out.append(f(name + "_transposed", M(cls, I, H, **kw),
                     [inp(randn(T, N, I), transpose=True)]))
        out.append(f(name + "_dropout_eval", M(cls, I, H, num_layers=2, dropout=0.5, **kw),
                     [inp(randn(T, N, I))], train=False))
        out.append(f(name + "_dropout_train", M(cls, I, H, num_layers=3, dropout=0.4, **kw),
                     [inp(randn(T, N, I))], seed=7))
    out.append(f("rnn_positional_relu", M("RNN", I, H, 2, "relu"),
                 [inp(randn(T, N, I)), state("RNN", 2, N, H)]))
    out.append(f("gru_hx_keyword", M("GRU", I, H), [inp(randn(T, N, I))],
                 forward_kwargs={"hx": enc(randn(1, N, H))}))
    out.append(f("lstm_hx_keyword", M("LSTM", I, H), [inp(randn(T, N, I))],
                 forward_kwargs={"hx": [enc(randn(1, N, H)), enc(randn(1, N, H))]}))
    for name, kw, ld in [("lstm_proj", {"proj_size": 2}, 1),
                         ("lstm_proj_2_layers_bidirectional",
                          {"proj_size": 3, "num_layers": 2, "bidirectional": True}, 4)]:
        out.append(f(name, M("LSTM", I, H, **kw),
                     [inp(randn(T, N, I)), state("LSTM", ld, N, H, kw["proj_size"])]))
        out.append(f(name + "_no_hx", M("LSTM", I, H, **kw), [inp(randn(T, N, I))]))
    out.append(f("lstm_proj_unbatched", M("LSTM", I, H, proj_size=2),
                 [inp(randn(T, I)), state("LSTM", 1, None, H, 2)]))
    out += fused_layer_cases()
    return out


def fused_layer_cases():
    """Longer sequences through the fused layer (one op per layer and direction, its own
    backward over every step): both directions, several layers, one step, batch one, no bias,
    and dropout between bidirectional layers in training (torch's RNG stream)."""
    out = []
    f = tree_case
    T, N, I, H = 7, 3, 2, 5
    for name, cls, kw in [("rnn", "RNN", {}), ("rnn_relu", "RNN", {"nonlinearity": "relu"}),
                          ("lstm", "LSTM", {}), ("gru", "GRU", {})]:
        out.append(f(name + "_long", M(cls, I, H, **kw),
                     [inp(randn(T, N, I)), state(cls, 1, N, H)]))
        out.append(f(name + "_long_bidirectional_no_bias",
                     M(cls, I, H, bias=False, bidirectional=True, **kw),
                     [inp(randn(T, N, I)), state(cls, 2, N, H)]))
        out.append(f(name + "_long_3_layers_bidirectional_batch_first",
                     M(cls, I, H, 3, bidirectional=True, batch_first=True, **kw),
                     [inp(randn(N, T, I)), state(cls, 6, N, H)]))
        out.append(f(name + "_one_step", M(cls, I, H, **kw),
                     [inp(randn(1, N, I)), state(cls, 1, N, H)]))
        out.append(f(name + "_batch_one_bidirectional", M(cls, I, H, bidirectional=True, **kw),
                     [inp(randn(T, 1, I)), state(cls, 2, 1, H)]))
        out.append(f(name + "_long_unbatched_no_hx", M(cls, I, H, 2, **kw),
                     [inp(randn(T, I))]))
        out.append(f(name + "_dropout_train_bidirectional",
                     M(cls, I, H, 2, bidirectional=True, dropout=0.3, **kw),
                     [inp(randn(T, N, I))], seed=11))
        out.append(f(name + "_long_eval", M(cls, I, H, 2, dropout=0.3, **kw),
                     [inp(randn(T, N, I)), state(cls, 2, N, H)], train=False))
    out.append(f("lstm_long_proj_bidirectional", M("LSTM", I, H, 2, bidirectional=True,
                                                   proj_size=3),
                 [inp(randn(T, N, I)), state("LSTM", 4, N, H, 3)]))
    return out


def init_specs():
    return [("lstm_cell", 31, [M("LSTMCell", 4, 3)]),
            ("lstm_cell_no_bias", 32, [M("LSTMCell", 3, 2, bias=False)]),
            ("rnn", 33, [M("RNN", 3, 4)]),
            ("rnn_relu_2_layers_bidirectional", 34,
             [M("RNN", 3, 4, 2, "relu", bidirectional=True)]),
            ("lstm", 35, [M("LSTM", 3, 4)]),
            ("lstm_2_layers_bidirectional_proj", 36,
             [M("LSTM", 3, 4, num_layers=2, bidirectional=True, proj_size=2)]),
            ("gru_no_bias_2_layers", 37, [M("GRU", 3, 4, 2, False)]),
            ("gru_bidirectional", 38, [M("GRU", 2, 3, bidirectional=True)])]


def structure_specs():
    return [M("LSTMCell", 4, 3), M("LSTMCell", 2, 5, False),
            M("RNN", 4, 3), M("RNN", 4, 3, 2, "relu", dropout=0.5),
            M("RNN", 4, 3, bias=False, batch_first=True, bidirectional=True),
            M("LSTM", 4, 3), M("LSTM", 4, 3, num_layers=2, batch_first=True),
            M("LSTM", 4, 3, 2, bidirectional=True, proj_size=2, dropout=1),
            M("LSTM", 4, 3, bias=False, proj_size=1),
            M("GRU", 4, 3), M("GRU", 4, 3, bias=False, bidirectional=True),
            M("GRU", 4, 3, 3, dropout=0.25, batch_first=True)]


def error_cases():
    """Constructor and forward calls torch refuses: the module spec, the inputs (tensor specs,
    lists of them, null), the exception class and message."""
    z = lambda *s: enc(torch.zeros(*s))
    calls = [
        ("dropout_range", M("LSTM", 4, 3, dropout=1.5), None),
        ("hidden_size_zero", M("LSTM", 4, 0), None),
        ("num_layers_zero", M("GRU", 4, 3, num_layers=0), None),
        ("proj_size_negative", M("LSTM", 4, 3, proj_size=-1), None),
        ("proj_size_large", M("LSTM", 4, 3, proj_size=3), None),
        ("nonlinearity", M("RNN", 4, 3, nonlinearity="gelu"), None),
        ("lstm_input_1d", M("LSTM", 4, 3), [z(4)]),
        ("gru_input_1d", M("GRU", 4, 3), [z(4)]),
        ("rnn_input_1d", M("RNN", 4, 3), [z(4)]),
        ("lstm_input_size", M("LSTM", 4, 3), [z(2, 3, 5)]),
        ("gru_input_size", M("GRU", 4, 3), [z(2, 3, 5)]),
        ("lstm_hidden_1_size", M("LSTM", 4, 3), [z(2, 3, 4), [z(1, 3, 3), z(1, 2, 3)]]),
        ("lstm_hidden_0_size", M("LSTM", 4, 3, 2), [z(2, 3, 4), [z(1, 3, 3), z(2, 3, 3)]]),
        ("lstm_batched_hx_2d", M("LSTM", 4, 3), [z(2, 3, 4), [z(3, 3), z(1, 3, 3)]]),
        ("lstm_unbatched_hx_3d", M("LSTM", 4, 3), [z(3, 4), [z(1, 1, 3), z(1, 3)]]),
        ("gru_batched_hx_2d", M("GRU", 4, 3), [z(2, 3, 4), z(3, 3)]),
        ("gru_unbatched_hx_3d", M("GRU", 4, 3), [z(3, 4), z(1, 1, 3)]),
        ("gru_hidden_size", M("GRU", 4, 3), [z(2, 3, 4), z(1, 2, 3)]),
        ("rnn_bidirectional_hidden_size", M("RNN", 4, 3, bidirectional=True),
         [z(2, 3, 4), z(1, 3, 3)]),
        ("lstm_cell_input_3d", M("LSTMCell", 4, 3), [z(1, 2, 4)]),
        ("lstm_cell_one_state", M("LSTMCell", 4, 3), [z(2, 4), [z(2, 3)]]),
        ("lstm_cell_c_batch", M("LSTMCell", 4, 3), [z(2, 4), [z(2, 3), z(3, 3)]]),
        ("lstm_cell_c_hidden", M("LSTMCell", 4, 3), [z(2, 4), [z(2, 3), z(2, 2)]]),
        ("lstm_cell_input_size", M("LSTMCell", 4, 3), [z(2, 5)]),
    ]
    with_keywords = [
        ("lstm_bad_keyword", M("LSTM", 2, 3), [z(4, 1, 2)], {"bad": 1}),
        ("gru_hx_twice", M("GRU", 2, 3), [z(4, 1, 2), z(1, 1, 3)], {"hx": z(1, 1, 3)}),
        ("rnn_cell_bad_keyword", M("RNNCell", 2, 3), [z(1, 2)], {"h": z(1, 3)}),
    ]
    out = []
    for name, spec, inputs, kwargs in [c + ({},) for c in calls] + with_keywords:
        try:
            m = build(spec)
            if inputs is not None:
                m(*[keyword(v) for v in inputs], **{k: keyword(v) for k, v in kwargs.items()})
            raise SystemExit(f"{name}: torch accepted it")
        except (RuntimeError, ValueError, TypeError) as e:
            case = {"name": name, "module": spec, "inputs": inputs,
                    "kind": type(e).__name__, "message": str(e)}
            if kwargs:
                case["forward_kwargs"] = kwargs
            out.append(case)
    return out
