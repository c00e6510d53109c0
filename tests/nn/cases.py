"""Freeze torch.nn's behaviour into cases.json for borch-nn's tests.

Run: python3 tests/nn/cases.py   (needs torch; the Rust tests only read cases.json)

Sections of cases.json:
- "init": modules built right after `torch.manual_seed(seed)`; their state_dict (torch's default
  initialisation drawn from the CPU generator).
- "init_fns": nn.init functions applied after `manual_seed` to an empty tensor; `gains`:
  calculate_gain for each nonlinearity.
- "forward": a module (spec below) with its parameters set (state_dict, loaded in Rust), inputs,
  the output, and the gradients of `(output * gout).sum()` (or of the scalar output) with respect
  to every float input and every parameter. Dropout cases in train mode run right after
  `manual_seed(seed)`, so the mask is torch's.
- "structure": repr, state_dict keys, named_parameters / named_buffers / named_children keys.
- "load_errors": load_state_dict with missing, unexpected and mis-sized keys: torch's message (or
  the missing / unexpected lists with strict=False).
- "errors": functional calls torch refuses, with the exception class and message.

A module spec is {"type": "Linear", "args": [...], "kwargs": {...}} (tensor arguments as
{"shape", "dtype", "data"}); containers carry "children": a list of specs (Sequential,
ModuleList) or of [name, spec] pairs (ModuleDict, named Sequential).
"""

import json
import math
import os
import sys
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F

import norm_cases
import convpool_cases

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import json_lines  # noqa: E402 (tests/json_lines.py)

DTYPES = {torch.float32: "float32", torch.int64: "int64", torch.bool: "bool"}


def enc(t):
    """A tensor as JSON; non-finite floats as the strings "nan", "inf", "-inf"."""
    t = t.detach()
    data = t.reshape(-1).tolist()
    if t.dtype == torch.float32:
        data = [float(x) if math.isfinite(x) else str(float(x)) for x in data]
    return {"shape": list(t.shape), "dtype": DTYPES[t.dtype], "data": data}


def dec(d):
    dtype = {v: k for k, v in DTYPES.items()}[d["dtype"]]
    data = [float(x) if isinstance(x, str) else x for x in d["data"]]
    return torch.tensor(data, dtype=dtype).reshape(d["shape"])


def is_tensor_spec(v):
    return isinstance(v, dict) and "data" in v and "shape" in v


def build(spec):
    kind = spec["type"]
    if kind in ("Sequential", "ModuleList"):
        children = spec["children"]
        if children and isinstance(children[0], list):
            mods = OrderedDict((name, build(s)) for name, s in children)
            return nn.Sequential(mods)
        mods = [build(s) for s in children]
        return nn.Sequential(*mods) if kind == "Sequential" else nn.ModuleList(mods)
    if kind == "ModuleDict":
        return nn.ModuleDict(OrderedDict((name, build(s)) for name, s in spec["children"]))
    def arg(a):
        if isinstance(a, dict) and "type" in a:
            return build(a)  # a module argument (TransformerEncoder's encoder_layer, norm)
        return dec(a) if is_tensor_spec(a) else (tuple(a) if isinstance(a, list) else a)
    args = [arg(a) for a in spec.get("args", [])]
    kwargs = {k: arg(v) for k, v in spec.get("kwargs", {}).items()}
    return getattr(nn, kind)(*args, **kwargs)


def M(kind, *args, **kwargs):
    spec = {"type": kind, "args": list(args), "kwargs": {}}
    for k, v in kwargs.items():
        spec["kwargs"][k] = enc(v) if torch.is_tensor(v) else v
    return spec


def C(kind, children):
    return {"type": kind, "children": children}


GEN = torch.Generator().manual_seed(1234)


def randn(*shape, scale=1.0):
    return torch.randn(*shape, generator=GEN) * scale


def rand(*shape):
    return torch.rand(*shape, generator=GEN)


def randint(high, *shape):
    return torch.randint(0, high, shape, generator=GEN)


# ---------------------------------------------------------------- init

def init_cases(extra=()):
    out = []
    for name, seed, specs in list(extra) + [
        ("linear_4_3", 0, [M("Linear", 4, 3)]),
        ("linear_no_bias", 1, [M("Linear", 5, 2, bias=False)]),
        ("two_linears", 2, [M("Linear", 3, 2), M("Linear", 2, 6)]),
        ("linear_big", 3, [M("Linear", 20, 30)]),
        ("bilinear", 0, [M("Bilinear", 2, 3, 4)]),
        ("bilinear_no_bias", 5, [M("Bilinear", 3, 3, 2, bias=False)]),
        ("embedding", 0, [M("Embedding", 10, 3)]),
        ("embedding_small", 4, [M("Embedding", 3, 2)]),
        ("embedding_padding", 7, [M("Embedding", 6, 4, padding_idx=1)]),
        ("embedding_padding_negative", 8, [M("Embedding", 5, 4, padding_idx=-1)]),
        ("layer_norm", 0, [M("LayerNorm", [2, 3])]),
        ("rms_norm", 0, [M("RMSNorm", 4)]),
        ("mlp", 42, [C("Sequential", [M("Linear", 4, 8), M("ReLU"), M("Linear", 8, 2)])]),
        ("conv2d", 0, [M("Conv2d", 3, 4, 3)]),
        ("conv2d_groups_no_bias", 6, [M("Conv2d", 4, 6, [2, 3], groups=2, bias=False)]),
        ("conv1d", 9, [M("Conv1d", 2, 3, 5)]),
        ("cnn", 10, [C("Sequential", [M("Conv2d", 1, 4, 3, padding=1), M("ReLU"),
                                       M("MaxPool2d", 2), M("Conv2d", 4, 8, 3), M("Flatten"),
                                       M("Linear", 8, 3)])]),
    ]:
        torch.manual_seed(seed)
        mods = [build(s) for s in specs]
        out.append({
            "name": name,
            "seed": seed,
            "modules": specs,
            "state_dicts": [[[k, enc(v)] for k, v in m.state_dict().items()] for m in mods],
        })
    return out


def init_fn_cases():
    out = []
    fns = [
        ("uniform_", {"a": -2.0, "b": 3.0}, lambda t: nn.init.uniform_(t, -2.0, 3.0)),
        ("uniform_", {}, lambda t: nn.init.uniform_(t)),
        ("normal_", {"mean": 1.0, "std": 0.5}, lambda t: nn.init.normal_(t, 1.0, 0.5)),
        ("constant_", {"val": 0.3}, lambda t: nn.init.constant_(t, 0.3)),
        ("zeros_", {}, nn.init.zeros_),
        ("ones_", {}, nn.init.ones_),
        ("xavier_uniform_", {"gain": 2.0}, lambda t: nn.init.xavier_uniform_(t, gain=2.0)),
        ("xavier_uniform_", {}, nn.init.xavier_uniform_),
        ("xavier_normal_", {}, nn.init.xavier_normal_),
        ("xavier_normal_", {"gain": 0.5}, lambda t: nn.init.xavier_normal_(t, gain=0.5)),
        ("kaiming_uniform_", {}, nn.init.kaiming_uniform_),
        ("kaiming_uniform_", {"a": 0.0, "mode": "fan_out", "nonlinearity": "relu"},
         lambda t: nn.init.kaiming_uniform_(t, a=0.0, mode="fan_out", nonlinearity="relu")),
        ("kaiming_normal_", {}, nn.init.kaiming_normal_),
        ("kaiming_normal_", {"a": 0.2, "mode": "fan_in", "nonlinearity": "leaky_relu"},
         lambda t: nn.init.kaiming_normal_(t, a=0.2, mode="fan_in", nonlinearity="leaky_relu")),
        ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "tanh"},
         lambda t: nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="tanh")),
    ]
    for i, (name, kwargs, fn) in enumerate(fns):
        for shape in ([3, 4], [2, 3, 2, 2]):
            torch.manual_seed(100 + i)
            t = torch.empty(shape)
            fn(t)
            out.append({"fn": name, "kwargs": kwargs, "seed": 100 + i, "shape": shape,
                        "result": enc(t)})
    return out


def gains():
    out = []
    for nl, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                      ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None),
                      ("conv_transpose3d", None)]:
        out.append({"nonlinearity": nl, "param": param,
                    "gain": nn.init.calculate_gain(nl, param)})
    return out


# ---------------------------------------------------------------- forward

def inp(t, requires_grad=None, transpose=False):
    """An input: `t` as given; with transpose, the tensor is stored transposed and the test applies
    transpose(-2, -1) to get a non-contiguous view equal to `t`."""
    if requires_grad is None:
        requires_grad = t.dtype == torch.float32
    stored = t.transpose(-2, -1).contiguous() if transpose else t
    d = enc(stored)
    d["requires_grad"] = requires_grad
    d["transpose"] = transpose
    return d


def materialise(d):
    """(leaf, argument): the stored tensor (the one gradients are recorded for) and the module's
    argument, a transposed view of it when the input asks for one."""
    leaf = dec(d)
    if d["requires_grad"]:
        leaf.requires_grad_()
    return leaf, (leaf.transpose(-2, -1) if d["transpose"] else leaf)


def forward_case(name, spec, inputs, seed=0, train=True, randomize=True, params=None):
    torch.manual_seed(seed)
    m = build(spec)
    if randomize:
        with torch.no_grad():
            for p in m.parameters():
                p.copy_(randn(*p.shape))
    if params is not None:
        with torch.no_grad():
            for k, v in params.items():
                dict(m.named_parameters())[k].copy_(v)
    m.train(train)
    state = [[k, enc(v)] for k, v in m.state_dict().items()]
    leaves, args = [], []
    for d in inputs:
        leaf, arg = materialise(d)
        leaves.append(leaf)
        args.append(arg)
    torch.manual_seed(seed)
    y = m(*args)
    gout = None
    if y.requires_grad:
        if y.dim() == 0:
            y.backward()
        else:
            g = randn(*y.shape)
            gout = enc(g)
            (y * g).sum().backward()
    return {
        "name": name,
        "module": spec,
        "seed": seed,
        "train": train,
        "state_dict": state,
        "inputs": inputs,
        "output": enc(y),
        "gout": gout,
        "input_grads": [enc(l.grad) if l.grad is not None else None for l in leaves],
        "param_grads": [[k, enc(p.grad)] for k, p in m.named_parameters() if p.grad is not None],
    }


def activation_input():
    x = randn(3, 4, scale=2.5)
    x[0] = torch.tensor([-3.0, 0.0, 3.0, 6.0])
    x[1, 0] = -1.0
    x[1, 1] = 1.0
    x[2, 0] = 25.0
    x[2, 1] = -30.0
    return x


def activation_cases():
    out = []
    specs = [
        ("relu", M("ReLU")), ("relu6", M("ReLU6")), ("leaky_relu", M("LeakyReLU")),
        ("leaky_relu_0.2", M("LeakyReLU", 0.2)), ("elu", M("ELU")), ("elu_0.5", M("ELU", alpha=0.5)),
        ("selu", M("SELU")), ("gelu", M("GELU")), ("gelu_tanh", M("GELU", approximate="tanh")),
        ("silu", M("SiLU")), ("mish", M("Mish")), ("tanh", M("Tanh")), ("sigmoid", M("Sigmoid")),
        ("hardtanh", M("Hardtanh")), ("hardtanh_-2_3", M("Hardtanh", -2.0, 3.0)),
        ("hardswish", M("Hardswish")), ("softplus", M("Softplus")),
        ("softplus_2_1", M("Softplus", beta=2.0, threshold=1.0)),
        ("softmax_1", M("Softmax", dim=1)), ("softmax_0", M("Softmax", dim=0)),
        ("log_softmax_1", M("LogSoftmax", dim=1)), ("log_softmax_-1", M("LogSoftmax", dim=-1)),
        ("identity", M("Identity")),
    ]
    for name, spec in specs:
        out.append(forward_case("act_" + name, spec, [inp(activation_input())]))
    out.append(forward_case("act_relu_transposed", M("ReLU"), [inp(randn(3, 2), transpose=True)]))
    out.append(forward_case("act_softmax_3d_implicit", M("Softmax"), [inp(randn(2, 3, 2))]))
    out.append(forward_case("act_log_softmax_2d_implicit", M("LogSoftmax"), [inp(randn(2, 3))]))
    return out


def layer_cases():
    out = []
    f = forward_case
    out.append(f("linear", M("Linear", 4, 3), [inp(randn(2, 4))]))
    out.append(f("linear_3d", M("Linear", 4, 3), [inp(randn(2, 3, 4))]))
    out.append(f("linear_1d", M("Linear", 4, 3), [inp(randn(4))]))
    out.append(f("linear_transposed", M("Linear", 3, 2), [inp(randn(4, 3), transpose=True)]))
    out.append(f("linear_no_bias", M("Linear", 4, 3, bias=False), [inp(randn(5, 4))]))
    out.append(f("bilinear", M("Bilinear", 2, 3, 4), [inp(randn(5, 2)), inp(randn(5, 3))]))
    out.append(f("bilinear_no_bias", M("Bilinear", 3, 2, 2, bias=False),
                 [inp(randn(2, 4, 3)), inp(randn(2, 4, 2))]))
    out.append(f("flatten", M("Flatten"), [inp(randn(2, 3, 2))]))
    out.append(f("flatten_all", M("Flatten", 0, -1), [inp(randn(2, 3, 2))]))
    out.append(f("unflatten", M("Unflatten", 1, [2, 3]), [inp(randn(2, 6))]))
    out.append(f("embedding", M("Embedding", 10, 3),
                 [inp(torch.tensor([[1, 2, 4], [4, 3, 9]]))]))
    out.append(f("embedding_padding", M("Embedding", 6, 2, padding_idx=1),
                 [inp(torch.tensor([[1, 2, 1], [0, 1, 5], [2, 2, 3]]))]))
    out.append(f("embedding_1d", M("Embedding", 4, 3), [inp(torch.tensor([3, 0, 3]))]))
    out.append(f("layer_norm", M("LayerNorm", 4), [inp(randn(2, 3, 4, scale=2.0) + 1.0)]))
    out.append(f("layer_norm_2d_shape", M("LayerNorm", [3, 4]), [inp(randn(2, 3, 4))]))
    out.append(f("layer_norm_no_affine", M("LayerNorm", 4, elementwise_affine=False),
                 [inp(randn(3, 4))]))
    out.append(f("layer_norm_no_bias", M("LayerNorm", 4, bias=False, eps=1e-3),
                 [inp(randn(3, 4))]))
    out.append(f("layer_norm_transposed", M("LayerNorm", 3), [inp(randn(2, 3), transpose=True)]))
    out.append(f("rms_norm", M("RMSNorm", 4), [inp(randn(2, 3, 4))]))
    out.append(f("rms_norm_2d_shape", M("RMSNorm", [3, 4], eps=1e-5), [inp(randn(2, 3, 4))]))
    out.append(f("rms_norm_no_affine", M("RMSNorm", 4, elementwise_affine=False),
                 [inp(randn(3, 4))]))
    out.append(f("dropout_train", M("Dropout", 0.5), [inp(randn(4, 5))], seed=11))
    out.append(f("dropout_train_0.2", M("Dropout", 0.2), [inp(randn(6, 7))], seed=12))
    out.append(f("dropout_train_transposed", M("Dropout", 0.3),
                 [inp(randn(5, 4), transpose=True)], seed=13))
    out.append(f("dropout_train_p0", M("Dropout", 0.0), [inp(randn(2, 3))], seed=14))
    out.append(f("dropout_train_p1", M("Dropout", 1.0), [inp(randn(2, 3))], seed=15))
    out.append(f("dropout_eval", M("Dropout", 0.5), [inp(randn(4, 5))], seed=11, train=False))
    out.append(f("conv2d", M("Conv2d", 3, 4, 3), [inp(randn(2, 3, 5, 5))]))
    out.append(f("conv2d_options", M("Conv2d", 4, 6, [3, 2], stride=[2, 1], padding=1,
                                     dilation=[1, 2], groups=2, bias=False),
                 [inp(randn(1, 4, 6, 6))]))
    out.append(f("conv2d_same_unbatched", M("Conv2d", 2, 3, 4, padding="same"),
                 [inp(randn(2, 5, 6))]))
    out.append(f("conv1d", M("Conv1d", 3, 2, 3, stride=2, padding=1), [inp(randn(2, 3, 7))]))
    out.append(f("max_pool2d", M("MaxPool2d", 2), [inp(randn(2, 3, 4, 6))]))
    out.append(f("max_pool2d_options", M("MaxPool2d", 3, stride=2, padding=1, ceil_mode=True),
                 [inp(randn(1, 2, 6, 5))]))
    out.append(f("avg_pool2d", M("AvgPool2d", 2, stride=1), [inp(randn(2, 2, 3, 4))]))
    out.append(f("avg_pool2d_options", M("AvgPool2d", 3, stride=2, padding=1,
                                         count_include_pad=False),
                 [inp(randn(1, 2, 5, 5))]))
    out.append(f("adaptive_avg_pool2d", M("AdaptiveAvgPool2d", [2, None]),
                 [inp(randn(2, 3, 5, 4))]))
    out.append(f("cnn", C("Sequential", [M("Conv2d", 1, 4, 3, padding=1), M("ReLU"),
                                         M("MaxPool2d", 2), M("Conv2d", 4, 8, 3),
                                         M("AdaptiveAvgPool2d", 1), M("Flatten"),
                                         M("Linear", 8, 3)]),
                 [inp(randn(2, 1, 8, 8))]))
    out.append(f("mlp", C("Sequential", [M("Linear", 4, 8), M("ReLU"), M("Linear", 8, 2)]),
                 [inp(randn(5, 4))]))
    out.append(f("mlp_named", C("Sequential", [["fc1", M("Linear", 3, 5)], ["act", M("Tanh")],
                                               ["drop", M("Dropout", 0.25)],
                                               ["fc2", M("Linear", 5, 2)]]),
                 [inp(randn(6, 3))], seed=21))
    out.append(f("mlp_eval", C("Sequential", [M("Linear", 3, 5), M("GELU"), M("Dropout", 0.5),
                                              M("LayerNorm", 5), M("Linear", 5, 2)]),
                 [inp(randn(4, 3))], train=False))
    return out


def loss_cases():
    out = []
    f = forward_case
    red = ["none", "mean", "sum"]
    x, y = randn(3, 4), randn(3, 4)
    x[0, 0], y[0, 0] = 1.5, 1.0  # |x - y| == 0.5 exactly
    x[0, 1], y[0, 1] = -1.0, 1.0  # == 2
    x[0, 2], y[0, 2] = 0.25, 0.25  # == 0
    for r in red:
        out.append(f(f"mse_{r}", M("MSELoss", reduction=r), [inp(x), inp(y)]))
        out.append(f(f"l1_{r}", M("L1Loss", reduction=r), [inp(x), inp(y)]))
        out.append(f(f"smooth_l1_{r}", M("SmoothL1Loss", reduction=r), [inp(x), inp(y)]))
        out.append(f(f"smooth_l1_beta0.5_{r}", M("SmoothL1Loss", reduction=r, beta=0.5),
                     [inp(x), inp(y)]))
        out.append(f(f"huber_{r}", M("HuberLoss", reduction=r), [inp(x), inp(y)]))
        out.append(f(f"huber_delta2_{r}", M("HuberLoss", reduction=r, delta=2.0),
                     [inp(x), inp(y)]))
    out.append(f("smooth_l1_beta0", M("SmoothL1Loss", beta=0.0), [inp(x), inp(y)]))
    out.append(f("mse_broadcast", M("MSELoss"), [inp(randn(3, 4)), inp(randn(4))]))

    p, t = torch.sigmoid(randn(3, 4)), rand(3, 4)
    w = rand(4) + 0.5
    for r in red:
        out.append(f(f"bce_{r}", M("BCELoss", reduction=r), [inp(p), inp(t)]))
        out.append(f(f"bce_weight_{r}", M("BCELoss", weight=w, reduction=r), [inp(p), inp(t)]))
    pe = torch.tensor([0.0, 1.0, 0.5, 1.0, 0.0, 0.25])
    te = torch.tensor([0.0, 1.0, 0.5, 0.0, 1.0, 1.0])
    out.append(f("bce_edges", M("BCELoss", reduction="none"),
                 [inp(pe, requires_grad=True), inp(te, requires_grad=False)]))

    z, t = randn(3, 4, scale=3.0), rand(3, 4)
    z[0, 0] = 0.0
    z[0, 1] = 40.0
    z[0, 2] = -40.0
    pw = rand(4) * 3.0
    for r in red:
        out.append(f(f"bce_logits_{r}", M("BCEWithLogitsLoss", reduction=r), [inp(z), inp(t)]))
        out.append(f(f"bce_logits_pos_weight_{r}", M("BCEWithLogitsLoss", reduction=r,
                                                     pos_weight=pw), [inp(z), inp(t)]))
        out.append(f(f"bce_logits_weight_pos_weight_{r}",
                     M("BCEWithLogitsLoss", reduction=r, weight=w, pos_weight=pw),
                     [inp(z), inp(t)]))

    logits = randn(4, 5, scale=2.0)
    target = torch.tensor([1, 0, 4, 1])
    target_ignored = torch.tensor([1, -100, 4, 2])
    cw = rand(5) + 0.2
    probs = torch.softmax(randn(4, 5), 1)
    spatial = randn(2, 3, 4)
    spatial_t = torch.tensor([[0, 2, 1, 2], [1, 1, 0, 2]])
    for r in red:
        out.append(f(f"ce_{r}", M("CrossEntropyLoss", reduction=r), [inp(logits), inp(target)]))
        out.append(f(f"ce_weight_{r}", M("CrossEntropyLoss", weight=cw, reduction=r),
                     [inp(logits), inp(target)]))
        out.append(f(f"ce_ignore_default_{r}", M("CrossEntropyLoss", reduction=r),
                     [inp(logits), inp(target_ignored)]))
        out.append(f(f"ce_ignore_1_weight_{r}",
                     M("CrossEntropyLoss", weight=cw, ignore_index=1, reduction=r),
                     [inp(logits), inp(target)]))
        out.append(f(f"ce_smoothing_{r}", M("CrossEntropyLoss", label_smoothing=0.1, reduction=r),
                     [inp(logits), inp(target)]))
        out.append(f(f"ce_smoothing_weight_ignore_{r}",
                     M("CrossEntropyLoss", weight=cw, label_smoothing=0.2, reduction=r),
                     [inp(logits), inp(target_ignored)]))
        out.append(f(f"ce_probs_{r}", M("CrossEntropyLoss", reduction=r),
                     [inp(logits), inp(probs)]))
        out.append(f(f"ce_probs_weight_smoothing_{r}",
                     M("CrossEntropyLoss", weight=cw, label_smoothing=0.15, reduction=r),
                     [inp(logits), inp(probs)]))
        out.append(f(f"ce_spatial_{r}", M("CrossEntropyLoss", reduction=r),
                     [inp(spatial), inp(spatial_t)]))
        out.append(f(f"nll_{r}", M("NLLLoss", reduction=r),
                     [inp(torch.log_softmax(logits, 1)), inp(target)]))
        out.append(f(f"nll_weight_ignore_{r}", M("NLLLoss", weight=cw, ignore_index=4, reduction=r),
                     [inp(torch.log_softmax(logits, 1)), inp(target)]))
        out.append(f(f"nll_spatial_weight_{r}",
                     M("NLLLoss", weight=torch.tensor([0.5, 1.0, 2.0]), reduction=r),
                     [inp(spatial), inp(spatial_t)]))
    out.append(f("ce_1d", M("CrossEntropyLoss"), [inp(randn(5)), inp(torch.tensor(3))]))
    out.append(f("ce_all_ignored", M("CrossEntropyLoss"),
                 [inp(randn(2, 3)), inp(torch.tensor([-100, -100]))]))
    out.append(f("ce_spatial_smoothing_weight", M("CrossEntropyLoss", weight=torch.tensor(
        [0.5, 1.0, 2.0]), label_smoothing=0.3), [inp(spatial), inp(spatial_t)]))

    lp = torch.log_softmax(randn(3, 4), 1)
    tq = torch.softmax(randn(3, 4), 1)
    tq_zero = tq.clone()
    tq_zero[0, 1] = 0.0
    tlog = torch.log_softmax(randn(3, 4), 1)
    for r in red + ["batchmean"]:
        out.append(f(f"kl_div_{r}", M("KLDivLoss", reduction=r), [inp(lp), inp(tq)]))
        # torch's target gradient is NaN where the target is 0 (xlogy's 0/0); borch's is 0, so
        # that case freezes only the input's gradient.
        out.append(f(f"kl_div_zero_target_{r}", M("KLDivLoss", reduction=r),
                     [inp(lp), inp(tq_zero, requires_grad=False)]))
        out.append(f(f"kl_div_log_target_{r}", M("KLDivLoss", reduction=r, log_target=True),
                     [inp(lp), inp(tlog)]))
    return out


# ---------------------------------------------------------------- structure

def structure_cases(extra=()):
    specs = [
        M("Linear", 4, 3), M("Linear", 2, 2, bias=False), M("Bilinear", 2, 3, 4),
        M("Identity"), M("Flatten"), M("Flatten", 0, 2), M("Unflatten", 1, [2, 3]),
        M("Embedding", 10, 3), M("Embedding", 10, 3, padding_idx=0),
        M("LayerNorm", 4), M("LayerNorm", [3, 4], eps=1e-12), M("LayerNorm", 3, bias=False),
        M("LayerNorm", 3, elementwise_affine=False),
        M("RMSNorm", 4), M("RMSNorm", [3, 4], eps=1e-5), M("RMSNorm", 2, elementwise_affine=False),
        M("Dropout"), M("Dropout", 0.1),
        M("ReLU"), M("ReLU6"), M("LeakyReLU"), M("LeakyReLU", 0.2), M("ELU"), M("ELU", alpha=0.5),
        M("SELU"), M("GELU"), M("GELU", approximate="tanh"), M("SiLU"), M("Mish"), M("Tanh"),
        M("Sigmoid"), M("Hardtanh"), M("Hardtanh", -2.0, 3.0), M("Hardswish"), M("Softplus"),
        M("Softplus", beta=2.0, threshold=10.0), M("Softmax", dim=1), M("Softmax"),
        M("LogSoftmax", dim=-1),
        M("Conv2d", 3, 8, 3), M("Conv2d", 3, 8, [3, 5], stride=2, padding=1, dilation=2, bias=False),
        M("Conv2d", 4, 8, 3, padding="same", groups=2), M("Conv2d", 3, 8, 3, padding="valid"),
        M("Conv1d", 3, 8, 3), M("Conv1d", 3, 8, 3, stride=2, padding=1),
        M("MaxPool2d", 2), M("MaxPool2d", [2, 3], stride=1, padding=1, dilation=2, ceil_mode=True),
        M("MaxPool2d", 2, stride=[1, 2]), M("AvgPool2d", 2), M("AvgPool2d", 3, 2, 1, True, False, 4),
        M("AdaptiveAvgPool2d", [2, None]), M("AdaptiveAvgPool2d", 1),
        M("MSELoss"), M("L1Loss", reduction="sum"), M("SmoothL1Loss", beta=0.5), M("HuberLoss"),
        M("BCELoss"), M("BCELoss", weight=torch.ones(3)), M("BCEWithLogitsLoss"),
        M("BCEWithLogitsLoss", weight=torch.ones(3), pos_weight=torch.ones(3)),
        M("CrossEntropyLoss"), M("CrossEntropyLoss", weight=torch.ones(3), label_smoothing=0.1),
        M("NLLLoss"), M("NLLLoss", weight=torch.ones(2)), M("KLDivLoss"),
        C("Sequential", [M("Linear", 4, 8), M("ReLU"), M("Linear", 8, 2)]),
        C("Sequential", [M("Linear", 4, 8), C("Sequential", [M("ReLU"), M("Dropout", 0.1)]),
                         C("ModuleDict", [["a", M("Tanh")],
                                          ["b", C("ModuleList", [M("ReLU"), M("ReLU")])]])]),
        C("ModuleList", [M("Linear", 2, 2), M("Linear", 2, 2), M("ReLU"), M("Linear", 2, 2),
                         M("ReLU"), M("ReLU"), M("ReLU")]),
        C("ModuleList", []),
        C("Sequential", []),
        C("ModuleDict", [["enc", C("Sequential", [["fc", M("Linear", 3, 4)],
                                                  ["norm", M("LayerNorm", 4)]])],
                         ["loss", M("CrossEntropyLoss", weight=torch.ones(4))]]),
    ]
    out = []
    for spec in specs + norm_cases.structure_specs(M) + convpool_cases.structure_specs(M) + list(extra):
        m = build(spec)
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


def load_error_cases():
    out = []
    lin = M("Linear", 4, 3)
    seq = C("Sequential", [M("Linear", 2, 2), C("Sequential", [M("Linear", 2, 3)])])
    z = lambda *s: torch.zeros(*s)
    for name, spec, sd, strict in [
        ("missing_bias", lin, {"weight": z(3, 4)}, True),
        ("unexpected", lin, {"weight": z(3, 4), "bias": z(3), "foo": z(1)}, True),
        ("size_mismatch", lin, {"weight": z(3, 5), "bias": z(3)}, True),
        ("all_three", lin, {"weight": z(3, 5), "foo": z(1)}, True),
        ("size_mismatch_not_strict", lin, {"weight": z(4, 4)}, False),
        ("nested", seq, {"0.weight": z(3, 5), "1.0.foo": z(1), "2.x": z(1), "bar": z(1)}, True),
        ("nested_not_strict", seq, {"0.weight": z(2, 2), "1.0.foo": z(1), "2.x": z(1),
                                    "bar": z(1)}, False),
        ("ok", seq, {"0.weight": z(2, 2), "0.bias": z(2), "1.0.weight": z(3, 2),
                     "1.0.bias": z(3)}, True),
        ("buffer", M("CrossEntropyLoss", weight=torch.ones(3)), {}, True),
    ]:
        m = build(spec)
        case = {"name": name, "module": spec, "strict": strict,
                "state_dict": [[k, enc(v)] for k, v in sd.items()]}
        try:
            res = m.load_state_dict(sd, strict=strict)
            case["missing_keys"] = list(res.missing_keys)
            case["unexpected_keys"] = list(res.unexpected_keys)
        except RuntimeError as e:
            case["error"] = str(e)
        out.append(case)
    return out


def error_cases():
    x = randn(3, 4)
    calls = [
        ("mse_bad_reduction", lambda: F.mse_loss(x, x, reduction="batchmean")),
        ("l1_bad_reduction", lambda: F.l1_loss(x, x, reduction="avg")),
        ("ce_batch", lambda: F.cross_entropy(x, torch.tensor([1, 2]))),
        ("nll_float_target", lambda: F.nll_loss(x, torch.tensor([1.0, 2.0, 3.0]))),
        ("ce_multi_target", lambda: F.cross_entropy(x, torch.tensor([[1, 2, 3]]))),
        ("ce_smoothing_range", lambda: F.cross_entropy(x, torch.tensor([1, 2, 3]),
                                                       label_smoothing=1.5)),
        ("ce_weight_size", lambda: F.cross_entropy(x, torch.tensor([1, 2, 3]),
                                                   weight=torch.ones(3))),
        ("layer_norm_shape", lambda: F.layer_norm(randn(2, 3, 4), [5])),
        ("layer_norm_shape_2", lambda: F.layer_norm(randn(2, 3, 4), [2, 4])),
        ("embedding_float", lambda: F.embedding(x, x)),
        ("dropout_p", lambda: F.dropout(x, 1.5)),
        ("dropout_p_negative", lambda: F.dropout(x, -0.1)),
        ("bce_size", lambda: F.binary_cross_entropy(x.sigmoid(), rand(3))),
        ("bce_logits_size", lambda: F.binary_cross_entropy_with_logits(x, rand(3))),
        ("smooth_l1_beta", lambda: F.smooth_l1_loss(x, x, beta=-1.0)),
        ("huber_delta", lambda: F.huber_loss(x, x, delta=0.0)),
        ("linear_shape", lambda: F.linear(randn(2, 5), randn(3, 4), randn(3))),
        ("bilinear_size", lambda: F.bilinear(randn(2, 3), randn(2, 3), randn(4, 2, 3))),
        ("xavier_1d", lambda: nn.init.xavier_uniform_(torch.empty(3))),
        ("gain", lambda: nn.init.calculate_gain("foo")),
        ("kaiming_mode", lambda: nn.init.kaiming_uniform_(torch.empty(3, 4), mode="fan_x")),
        ("kl_div_bad_reduction", lambda: F.kl_div(x, x, reduction="avg")),
        ("softmax_dim", lambda: F.softmax(x, 2)),
        ("gelu_approximate", lambda: F.gelu(x, approximate="fast")),
    ]
    out = []
    for name, call in calls:
        try:
            call()
            raise SystemExit(f"{name}: torch accepted it")
        except (RuntimeError, ValueError, TypeError, IndexError) as e:
            out.append({"name": name, "kind": type(e).__name__, "message": str(e)})
    return out


def main():
    import cases_more
    import breadth_cases
    import recurrent_cases
    import attention_cases
    more = cases_more.activation_cases() + cases_more.loss_cases() + cases_more.layer_cases()
    more += cases_more.recurrent_cases()
    more += recurrent_cases.forward_cases()
    more += attention_cases.forward_cases()
    cases = {
        "torch": torch.__version__,
        "init": init_cases(cases_more.init_specs() + recurrent_cases.init_specs()
                           + breadth_cases.init_specs()
                           + attention_cases.init_specs()),
        "init_fns": init_fn_cases(),
        "gains": gains(),
        "forward": activation_cases() + layer_cases() + loss_cases()
        + norm_cases.forward_cases(forward_case, M, inp)
        + convpool_cases.forward_cases(forward_case, M, C, inp) + more
        + breadth_cases.forward_cases(),
        "stats": norm_cases.stats_cases(build, M, enc) + breadth_cases.stats_cases(build),
        "lazy": convpool_cases.lazy_cases(build, M, C, enc, inp, materialise),
        "structure": structure_cases(cases_more.structure_specs()
                                     + recurrent_cases.structure_specs()
                                     + breadth_cases.structure_specs()
                                     + attention_cases.structure_specs())
        + breadth_cases.parameter_dict_records(),
        "load_errors": load_error_cases(),
        "errors": error_cases(),
        "recurrent_errors": recurrent_cases.error_cases(),
    }
    path = os.path.join(HERE, "cases.json")
    json_lines.write(path, cases)  # one case a line: a regeneration's diff is what changed
    print(f"{path}: {len(cases['forward'])} forward, {len(cases['init'])} init, "
          f"{len(cases['init_fns'])} init fns, {len(cases['structure'])} structure, "
          f"{len(cases['load_errors'])} load, {len(cases['errors'])} error cases")


if __name__ == "__main__":
    main()
