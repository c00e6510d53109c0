"""Module cases for NLLLoss2d, CrossMapLRN2d, SyncBatchNorm, FractionalMaxPool2d/3d and
ParameterDict (imported by cases.py; same spec format).

Every random value here (inputs, the parameters forward_case sets, its grad_output) comes from
generators seeded here: the shared generator of cases.py is reseeded for these cases and put back
after, so adding or removing a case elsewhere changes nothing here and the reverse.

- forward: NLLLoss2d on 4-D inputs (every reduction, weights, ignore_index); CrossMapLRN2d with
  sizes 1 (forward only: torch's backward raises for size 1), 2, 3, 5, 7 and channels below and
  above the size; SyncBatchNorm in train and eval mode on 2-D to 5-D inputs (it computes
  BatchNorm without an initialised process group); FractionalMaxPool2d/3d with given
  `_random_samples` and with samples drawn after `manual_seed(seed)` (torch.rand(N, C, n)).
- forward trees (as recurrent_cases.tree_case freezes them): FractionalMaxPool2d/3d with return_indices=True
  (output, indices), AdaptiveLogSoftmaxWithLoss's (output, loss) with every cluster, an empty
  cluster, head_bias, unbatched inputs.
- init: AdaptiveLogSoftmaxWithLoss's state dict right after manual_seed.
- stats: SyncBatchNorm's running statistics over several batches, then eval.
- structure: repr, state_dict keys of each class (ParameterDict from (key, tensor) pairs, whose
  spec the Rust side builds through the catalog and this script builds by hand).
"""

import contextlib

import torch
import torch.nn as nn

import cases
import recurrent_cases
from cases import M, enc, forward_case, inp

GEN = torch.Generator().manual_seed(20261201)


def randn(*shape, scale=1.0, shift=0.0):
    return torch.randn(*shape, generator=GEN) * scale + shift


def rand(*shape):
    return torch.rand(*shape, generator=GEN)


@contextlib.contextmanager
def own_generator(seed):
    """cases.py's generator (forward_case draws parameters and grad_output from it) reseeded for
    these cases, and restored after."""
    state = cases.GEN.get_state()
    cases.GEN.manual_seed(seed)
    try:
        yield
    finally:
        cases.GEN.set_state(state)


def nll2d_cases():
    out = []
    logp = torch.log_softmax(randn(2, 3, 2, 3), 1)
    target = torch.tensor([[[0, 2, 1], [1, 1, 0]], [[2, 0, 0], [1, 2, 2]]])
    ignored = target.clone()
    ignored[0, 0, 1] = -100
    ignored[1, 1, 2] = 1
    w = rand(3) + 0.5
    for r in ["none", "mean", "sum"]:
        out.append(forward_case(f"nll_loss2d_{r}", M("NLLLoss2d", reduction=r),
                                [inp(logp), inp(target)]))
        out.append(forward_case(f"nll_loss2d_weight_{r}", M("NLLLoss2d", weight=w, reduction=r),
                                [inp(logp), inp(target)]))
    out.append(forward_case("nll_loss2d_ignore_default", M("NLLLoss2d"),
                            [inp(logp), inp(ignored)]))
    out.append(forward_case("nll_loss2d_ignore_1", M("NLLLoss2d", ignore_index=1),
                            [inp(logp), inp(target)]))
    return out


def lrn_cases():
    out = []
    for name, spec, shape in [
        ("2", M("CrossMapLRN2d", 2), [2, 3, 2, 2]),
        ("3", M("CrossMapLRN2d", 3, alpha=0.5, beta=0.6, k=1.5), [2, 5, 2, 3]),
        ("3_few_channels", M("CrossMapLRN2d", 3, 0.3, 0.75, 2), [1, 2, 3, 2]),
        ("5", M("CrossMapLRN2d", 5, alpha=0.2), [2, 8, 2, 2]),
        ("5_three_channels", M("CrossMapLRN2d", 5, 1.0, 0.5, 1.0), [2, 3, 2, 2]),
        ("7", M("CrossMapLRN2d", 7, alpha=0.1, beta=1.25), [1, 9, 2, 2]),
        ("4_one_channel", M("CrossMapLRN2d", 4, alpha=2.0), [2, 1, 3, 3]),
    ]:
        out.append(forward_case(f"cross_map_lrn2d_{name}", spec, [inp(randn(*shape, scale=2.0))]))
    out.append(forward_case("cross_map_lrn2d_transposed", M("CrossMapLRN2d", 3, alpha=0.4),
                            [inp(randn(2, 4, 3, 2), transpose=True)]))
    # torch's backward of size 1 raises (its padded buffer is one short): forward only.
    out.append(forward_case("cross_map_lrn2d_1_forward", M("CrossMapLRN2d", 1, alpha=0.5),
                            [inp(randn(2, 3, 2, 2), requires_grad=False)]))
    return out


def sync_bn_cases():
    out = []
    for name, spec, shape, train in [
        ("2d_train", M("SyncBatchNorm", 3), [4, 3], True),
        ("3d_train", M("SyncBatchNorm", 3, momentum=0.3), [2, 3, 4], True),
        ("4d_train", M("SyncBatchNorm", 2, eps=1e-3), [2, 2, 3, 3], True),
        ("5d_train", M("SyncBatchNorm", 2), [2, 2, 2, 2, 2], True),
        ("4d_eval", M("SyncBatchNorm", 2), [2, 2, 2, 3], False),
        ("no_affine", M("SyncBatchNorm", 2, affine=False), [3, 2, 2], True),
        ("no_stats_eval", M("SyncBatchNorm", 2, track_running_stats=False), [3, 2, 2], False),
        ("cumulative", M("SyncBatchNorm", 3, momentum=None), [4, 3, 2], True),
        ("no_bias", M("SyncBatchNorm", 2, bias=False), [3, 2, 2, 2], True),
    ]:
        out.append(forward_case(f"sync_bn_{name}", spec, [inp(randn(*shape, scale=2.0,
                                                                     shift=0.5))], train=train))
    out.append(forward_case("sync_bn_transposed", M("SyncBatchNorm", 3),
                            [inp(randn(4, 3, 2), transpose=True)]))
    return out


def fractional_cases():
    out = []
    f = forward_case
    x4 = randn(2, 3, 7, 6)
    ties = torch.relu(randn(1, 2, 5, 5))
    s2 = rand(2, 3, 2)
    for name, spec, x, seed in [
        ("2d_size", M("FractionalMaxPool2d", 2, output_size=[3, 4], _random_samples=s2), x4, 0),
        ("2d_ratio", M("FractionalMaxPool2d", 3, output_ratio=[0.5, 0.5], _random_samples=s2),
         x4, 0),
        ("2d_kernel_pair", M("FractionalMaxPool2d", [2, 3], output_size=4,
                             _random_samples=s2), x4, 0),
        ("2d_output_1", M("FractionalMaxPool2d", 2, output_size=[1, 5], _random_samples=s2),
         x4, 0),
        ("2d_unbatched", M("FractionalMaxPool2d", 2, output_size=3,
                           _random_samples=rand(1, 3, 2)), randn(3, 6, 5), 0),
        ("2d_more_samples", M("FractionalMaxPool2d", 2, output_size=3,
                              _random_samples=rand(4, 2, 2)), randn(2, 2, 5, 5), 0),
        ("2d_ties", M("FractionalMaxPool2d", 2, output_size=3,
                      _random_samples=rand(1, 2, 2)), ties, 0),
        ("2d_drawn", M("FractionalMaxPool2d", 2, output_size=[3, 4]), x4, 7),
        ("2d_drawn_ratio", M("FractionalMaxPool2d", 2, output_ratio=0.6), x4, 8),
        ("2d_drawn_unbatched", M("FractionalMaxPool2d", 3, output_size=2), randn(2, 6, 6), 9),
        ("3d_size", M("FractionalMaxPool3d", 2, output_size=[2, 3, 3],
                      _random_samples=rand(2, 2, 3)), randn(2, 2, 4, 5, 6), 0),
        ("3d_ratio", M("FractionalMaxPool3d", [2, 1, 2], output_ratio=[0.5, 0.7, 0.5],
                       _random_samples=rand(1, 2, 3)), randn(1, 2, 5, 4, 6), 0),
        ("3d_unbatched", M("FractionalMaxPool3d", 2, output_size=2,
                           _random_samples=rand(1, 3, 3)), randn(3, 4, 4, 4), 0),
        ("3d_drawn", M("FractionalMaxPool3d", 2, output_size=[3, 2, 3]), randn(2, 2, 5, 4, 6),
         11),
    ]:
        out.append(f(f"fractional_max_pool{name}", spec, [inp(x)], seed=seed))
    out.append(f("fractional_max_pool2d_transposed", M("FractionalMaxPool2d", 2, output_size=3,
                                                       _random_samples=rand(1, 2, 2)),
                 [inp(randn(1, 2, 6, 5), transpose=True)]))
    return out


def tree_case(name, spec, inputs, seed=0, train=True):
    """recurrent_cases.tree_case with this file's generator, and a scalar output (a loss) given
    a scalar gout."""
    rc = recurrent_cases
    torch.manual_seed(seed)
    m = cases.build(spec)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(randn(*p.shape))
    m.train(train)
    state = [[k, enc(v)] for k, v in m.state_dict().items()]
    leaves = []
    args = [rc.leaves_of(d, leaves) for d in inputs]
    torch.manual_seed(seed)
    y = m(*args)
    gout = rc.tree(lambda t: enc(torch.randn(t.shape, generator=GEN)) if t.requires_grad
                   else None, tuple(y))
    ys = [t for t in rc.tensors(tuple(y)) if t.requires_grad]
    gs = [cases.dec(g) for g in rc.flat(gout) if g is not None]
    if ys:
        torch.autograd.backward(ys, gs)
    return {
        "name": name,
        "module": spec,
        "seed": seed,
        "train": train,
        "state_dict": state,
        "inputs": inputs,
        "output": rc.tree(enc, tuple(y)),
        "gout": gout,
        "input_grads": [rc.grads_of(d, leaves) for d in inputs],
        "param_grads": [[k, enc(p.grad)] for k, p in m.named_parameters() if p.grad is not None],
    }


def tuple_cases():
    """Forwards that return a tuple (an output tree, as recurrent_cases freezes it):
    FractionalMaxPool with return_indices=True, AdaptiveLogSoftmaxWithLoss's (output, loss)."""
    out = []
    f = tree_case
    out.append(f("fractional_max_pool2d_indices",
                 M("FractionalMaxPool2d", 2, output_size=[3, 4], return_indices=True,
                   _random_samples=rand(2, 3, 2)), [inp(randn(2, 3, 7, 6))]))
    out.append(f("fractional_max_pool2d_indices_drawn",
                 M("FractionalMaxPool2d", 2, output_ratio=0.5, return_indices=True),
                 [inp(randn(3, 6, 6))], seed=13))
    out.append(f("fractional_max_pool3d_indices",
                 M("FractionalMaxPool3d", 2, output_size=2, return_indices=True,
                   _random_samples=rand(1, 2, 3)), [inp(randn(1, 2, 4, 4, 5))]))
    target = torch.tensor([0, 4, 9, 2, 6, 3, 8])
    for name, spec, x, t in [
        ("asm", M("AdaptiveLogSoftmaxWithLoss", 8, 10, [3, 6], div_value=2.0),
         randn(7, 8), target),
        ("asm_head_bias", M("AdaptiveLogSoftmaxWithLoss", 8, 10, [3, 6], div_value=2.0,
                            head_bias=True), randn(7, 8), target),
        ("asm_one_cutoff", M("AdaptiveLogSoftmaxWithLoss", 6, 5, [2]), randn(4, 6),
         torch.tensor([4, 0, 1, 3])),
        ("asm_empty_cluster", M("AdaptiveLogSoftmaxWithLoss", 8, 10, [3, 6], div_value=2.0),
         randn(3, 8), torch.tensor([1, 0, 7])),
        ("asm_default_div", M("AdaptiveLogSoftmaxWithLoss", 16, 12, [4, 8, 10]),
         randn(5, 16), torch.tensor([11, 5, 9, 0, 3])),
        ("asm_unbatched", M("AdaptiveLogSoftmaxWithLoss", 8, 10, [3, 6], div_value=2.0),
         randn(8), torch.tensor(7)),
        ("asm_unbatched_shortlist", M("AdaptiveLogSoftmaxWithLoss", 8, 10, [3, 6],
                                      div_value=2.0), randn(8), torch.tensor(1)),
    ]:
        out.append(f(name, spec, [inp(x), inp(t)]))
    out.append(f("asm_transposed", M("AdaptiveLogSoftmaxWithLoss", 4, 6, [2, 4], div_value=2.0),
                 [inp(randn(5, 4), transpose=True), inp(torch.tensor([5, 0, 2, 3, 1]))]))
    return out


def forward_cases():
    with own_generator(777):
        return (nll2d_cases() + lrn_cases() + sync_bn_cases() + fractional_cases()
                + tuple_cases())


def init_specs():
    """AdaptiveLogSoftmaxWithLoss built right after manual_seed: head, then each cluster's two
    Linears, initialised in torch's order."""
    return [("asm", 41, [M("AdaptiveLogSoftmaxWithLoss", 8, 10, [3, 6], div_value=2.0)]),
            ("asm_head_bias", 42, [M("AdaptiveLogSoftmaxWithLoss", 16, 12, [4, 8, 10],
                                     head_bias=True)])]


def stats_cases(build):
    out = []
    for name, spec, shape, steps in [
        ("sync_bn", M("SyncBatchNorm", 3), [4, 3, 2], 3),
        ("sync_bn_cumulative", M("SyncBatchNorm", 2, momentum=None), [2, 2, 3, 3], 3),
        ("sync_bn_5d", M("SyncBatchNorm", 2, momentum=0.5, affine=False), [2, 2, 2, 2, 2], 2),
    ]:
        m = build(spec)
        m.train()
        record = {"name": name, "module": spec, "steps": []}
        for _ in range(steps):
            x = randn(*shape, scale=2.0, shift=0.5)
            y = m(x)
            record["steps"].append({"input": enc(x), "output": enc(y),
                                    "buffers": [[k, enc(v)] for k, v in m.named_buffers()]})
        m.eval()
        x = randn(*shape)
        record["eval"] = {"input": enc(x), "output": enc(m(x))}
        record["state_dict"] = list(m.state_dict().keys())
        out.append(record)
    return out


def structure_specs():
    return [
        M("NLLLoss2d"), M("NLLLoss2d", weight=torch.ones(3), ignore_index=0),
        M("CrossMapLRN2d", 3), M("CrossMapLRN2d", 5, 0.5, 1, 2.0),
        M("SyncBatchNorm", 3), M("SyncBatchNorm", 2, momentum=None, affine=False),
        M("SyncBatchNorm", 4, track_running_stats=False, bias=False),
        M("FractionalMaxPool2d", 2, output_size=3),
        M("FractionalMaxPool2d", 2, output_ratio=0.5, _random_samples=torch.ones(1, 2, 2) / 2),
        M("FractionalMaxPool3d", 2, output_size=[1, 2, 3], return_indices=True),
        M("FractionalMaxPool3d", 2, output_ratio=0.5, _random_samples=torch.ones(1, 2, 3) / 4),
        M("AdaptiveLogSoftmaxWithLoss", 8, 10, [3, 6], div_value=2.0),
        M("AdaptiveLogSoftmaxWithLoss", 16, 40, [4, 8, 10, 20], head_bias=True),
    ]


def parameter_dict_records():
    """ParameterDict from (key, tensor) pairs: torch keeps the pairs' order."""
    out = []
    for pairs in [[], [("w", torch.ones(2, 3))],
                  [("weight", torch.ones(3)), ("alpha", torch.ones(2, 2)), ("b", torch.ones(1))]]:
        spec = {"type": "ParameterDict", "args": [[[k, enc(v)] for k, v in pairs]], "kwargs": {}}
        m = nn.ParameterDict(pairs)
        out.append({
            "module": spec,
            "repr": repr(m),
            "state_dict": list(m.state_dict().keys()),
            "named_parameters": [k for k, _ in m.named_parameters()],
            "named_buffers": [k for k, _ in m.named_buffers()],
            "named_children": [k for k, _ in m.named_children()],
            "named_modules": [k for k, _ in m.named_modules()],
        })
    return out
