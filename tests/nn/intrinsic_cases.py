"""Freeze torch.ao.nn.intrinsic's fused modules and torch.nn.utils.fusion / torch.ao.quantization's
fuse_modules into tests/nn/intrinsic_cases.json for borch-nn's tests (borch-nn/tests/intrinsic.rs,
borch-nn/tests/fusion.rs).

Run: python3 tests/nn/intrinsic_cases.py   (needs torch; the Rust tests only read the JSON)

Sections (one case a line):
- "modules": a fused class built from float modules (specs as tests/nn/cases.py writes them), its
  state_dict (parameters random, running statistics random), inputs, the mode; the repr, state dict
  keys, output, gradients of `(output * gout).sum()` w.r.t. every input and parameter, the buffers
  after the forward, and (train cases) the output of a second, eval-mode forward on the same input.
- "construct_errors": a fused class given modules of the wrong type (torch's AssertionError text).
- "fuse_eval": fuse_conv_bn_eval / fuse_linear_bn_eval of a conv (linear) and BatchNorm in eval mode:
  the fused weight and bias, the fused module's output and the unfused eval output.
- "fuse_errors": the same calls torch refuses (message).
- "fuse_weights": fuse_conv_bn_weights / fuse_linear_bn_weights on tensors.
- "fuse_modules": a Sequential model, its state, modules_to_fuse, the mode; the fused model's
  repr, state dict keys and output (and the unfused output). `auto` cases are what borch's
  fuse_for_eval must give (torch's fuse_modules of the groups listed).
"""

import math
import os
import sys
from collections import OrderedDict

import torch
import torch.ao.nn.intrinsic as nni
import torch.nn as nn
from torch.ao.quantization import fuse_modules, fuse_modules_qat
from torch.nn.utils.fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                                   fuse_linear_bn_weights)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import json_lines  # noqa: E402 (tests/json_lines.py)

DTYPES = {torch.float32: "float32", torch.int64: "int64", torch.bool: "bool"}
GEN = torch.Generator().manual_seed(2718)


def enc(t):
    t = t.detach()
    data = t.reshape(-1).tolist()
    if t.dtype == torch.float32:
        data = [float(x) if math.isfinite(x) else str(float(x)) for x in data]
    return {"shape": list(t.shape), "dtype": DTYPES[t.dtype], "data": data}


def randn(*shape, scale=1.0):
    return torch.randn(*shape, generator=GEN) * scale


def M(kind, *args, **kwargs):
    return {"type": kind, "args": list(args), "kwargs": dict(kwargs)}


def build(spec):
    if spec["type"] == "Sequential":
        kids = spec["children"]
        if kids and isinstance(kids[0], list):
            return nn.Sequential(OrderedDict((n, build(s)) for n, s in kids))
        return nn.Sequential(*[build(s) for s in kids])
    return getattr(nn, spec["type"])(*spec["args"], **spec["kwargs"])


def randomise(module):
    """Random parameters and running statistics (so a fold is not an identity)."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            p.copy_(randn(*p.shape, scale=0.5) + (1.0 if name.endswith("weight") and p.dim() == 1
                                                     else 0.0))
        for name, b in module.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(randn(*b.shape, scale=0.5))
            elif name.endswith("running_var"):
                b.copy_(torch.rand(*b.shape, generator=GEN) + 0.5)
            elif name.endswith("num_batches_tracked"):
                b.fill_(3)


def state(module):
    return [[k, enc(v)] for k, v in module.state_dict().items()]


def FUSED(cls, specs):
    if cls in ("ConvAdd2d", "ConvAddReLU2d"):
        mods = [build(s) for s in specs]
        return getattr(nni, cls)(mods[0], torch.add, *mods[1:])
    return getattr(nni, cls)(*[build(s) for s in specs])


def module_case(name, cls, specs, shapes, train):
    module = FUSED(cls, specs)
    randomise(module)
    module.train(train)
    case = {"name": name, "class": cls, "modules": specs, "state_dict": state(module),
            "train": train}
    inputs = [randn(*s).requires_grad_(True) for s in shapes]
    case["inputs"] = [enc(x) for x in inputs]
    out = module(*inputs)
    gout = randn(*out.shape)
    (out * gout).sum().backward()
    case["expect"] = {
        "repr": repr(module),
        "keys": list(module.state_dict().keys()),
        "output": enc(out),
        "gout": enc(gout),
        "input_grads": [enc(x.grad) for x in inputs],
        "param_grads": [[k, enc(p.grad)] for k, p in module.named_parameters()],
        "buffers": [[k, enc(b)] for k, b in module.named_buffers()],
    }
    if train:
        module.eval()
        with torch.no_grad():
            case["expect"]["eval_output"] = enc(module(*inputs))
    return case


def conv(n, *a, **k):
    return M(f"Conv{n}d", *a, **k)


def bn(n, c, **k):
    return M(f"BatchNorm{n}d", c, **k)


RELU = M("ReLU")


def module_cases():
    cases = []
    for train in (True, False):
        mode = "train" if train else "eval"
        rows = [
            ("conv_relu1d", "ConvReLU1d", [conv(1, 2, 3, 3, padding=1), RELU], [[2, 2, 5]]),
            ("conv_relu2d", "ConvReLU2d", [conv(2, 2, 3, 3, padding=1), RELU], [[2, 2, 5, 5]]),
            ("conv_relu2d_grouped", "ConvReLU2d",
             [conv(2, 4, 4, 3, stride=2, padding=1, groups=2, bias=False), RELU], [[1, 4, 6, 6]]),
            ("conv_relu2d_reflect", "ConvReLU2d",
             [conv(2, 2, 2, 3, padding=1, padding_mode="reflect"), RELU], [[1, 2, 4, 4]]),
            ("conv_relu2d_unbatched", "ConvReLU2d", [conv(2, 2, 2, 3, dilation=2), RELU],
             [[2, 6, 6]]),
            ("conv_relu3d", "ConvReLU3d", [conv(3, 2, 2, 2), RELU], [[1, 2, 3, 3, 3]]),
            ("linear_relu", "LinearReLU", [M("Linear", 4, 3), RELU], [[5, 4]]),
            ("linear_relu_3d", "LinearReLU", [M("Linear", 4, 3), RELU], [[2, 3, 4]]),
            ("linear_relu_no_bias", "LinearReLU", [M("Linear", 4, 3, bias=False), RELU], [[5, 4]]),
            ("linear_leaky_relu", "LinearLeakyReLU", [M("Linear", 3, 4), M("LeakyReLU", 0.2)],
             [[3, 3]]),
            ("linear_tanh", "LinearTanh", [M("Linear", 3, 4), M("Tanh")], [[3, 3]]),
            ("conv_bn1d", "ConvBn1d", [conv(1, 2, 3, 3), bn(1, 3)], [[3, 2, 6]]),
            ("conv_bn2d", "ConvBn2d", [conv(2, 2, 3, 3, padding=1), bn(2, 3)], [[2, 2, 4, 4]]),
            ("conv_bn2d_no_bias", "ConvBn2d", [conv(2, 2, 3, 3, bias=False), bn(2, 3)],
             [[2, 2, 4, 4]]),
            ("conv_bn2d_no_affine", "ConvBn2d", [conv(2, 2, 2, 1), bn(2, 2, affine=False)],
             [[2, 2, 3, 3]]),
            ("conv_bn2d_no_stats", "ConvBn2d",
             [conv(2, 2, 2, 1), bn(2, 2, track_running_stats=False)], [[2, 2, 3, 3]]),
            ("conv_bn2d_momentum_none", "ConvBn2d", [conv(2, 2, 2, 3), bn(2, 2, momentum=None)],
             [[2, 2, 4, 4]]),
            ("conv_bn3d", "ConvBn3d", [conv(3, 2, 2, 2), bn(3, 2)], [[2, 2, 3, 3, 3]]),
            ("conv_bn_relu1d", "ConvBnReLU1d", [conv(1, 2, 3, 3, padding=1), bn(1, 3), RELU],
             [[2, 2, 5]]),
            ("conv_bn_relu2d", "ConvBnReLU2d", [conv(2, 3, 4, 3, padding=1), bn(2, 4), RELU],
             [[2, 3, 5, 5]]),
            ("conv_bn_relu2d_strided", "ConvBnReLU2d",
             [conv(2, 2, 4, 3, stride=2, padding=1, bias=False), bn(2, 4, eps=1e-3), RELU],
             [[2, 2, 6, 6]]),
            ("conv_bn_relu3d", "ConvBnReLU3d", [conv(3, 2, 2, 2), bn(3, 2), RELU],
             [[2, 2, 3, 3, 3]]),
            ("linear_bn1d", "LinearBn1d", [M("Linear", 4, 3), bn(1, 3)], [[5, 4]]),
            ("linear_bn1d_no_bias", "LinearBn1d", [M("Linear", 4, 3, bias=False), bn(1, 3)],
             [[5, 4]]),
            ("bn_relu2d", "BNReLU2d", [bn(2, 3), RELU], [[2, 3, 3, 3]]),
            ("bn_relu3d", "BNReLU3d", [bn(3, 2), RELU], [[2, 2, 2, 2, 2]]),
            ("conv_add2d", "ConvAdd2d", [conv(2, 2, 3, 3, padding=1)], [[2, 2, 4, 4], [2, 3, 4, 4]]),
            ("conv_add_relu2d", "ConvAddReLU2d", [conv(2, 2, 3, 3, padding=1), RELU],
             [[2, 2, 4, 4], [2, 3, 4, 4]]),
            ("conv_add_relu2d_strided", "ConvAddReLU2d",
             [conv(2, 3, 2, 1, stride=2, bias=False), RELU], [[1, 3, 5, 5], [1, 2, 3, 3]]),
        ]
        for name, cls, specs, shapes in rows:
            cases.append(module_case(f"{name}_{mode}", cls, specs, shapes, train))
    return cases


def construct_errors():
    out = []
    for cls, specs in [
        ("ConvReLU2d", [conv(1, 1, 1, 1), RELU]),
        ("ConvBnReLU2d", [conv(2, 1, 1, 1), bn(1, 1), RELU]),
        ("LinearBn1d", [M("Linear", 2, 2), bn(2, 2)]),
        ("BNReLU3d", [bn(2, 2), RELU]),
    ]:
        try:
            FUSED(cls, specs)
            raise SystemExit(f"{cls} accepted {specs}")
        except AssertionError as e:
            out.append({"class": cls, "modules": specs, "error": str(e)})
    return out


def fuse_eval_cases():
    out = []
    rows = [
        ("conv2d", conv(2, 2, 3, 3, padding=1), bn(2, 3), [2, 2, 4, 4], False),
        ("conv2d_no_bias", conv(2, 3, 2, 3, bias=False, groups=1), bn(2, 2), [1, 3, 5, 5], False),
        ("conv2d_no_affine", conv(2, 2, 2, 1), bn(2, 2, affine=False), [1, 2, 3, 3], False),
        ("conv2d_grouped", conv(2, 4, 4, 3, groups=2, stride=2), bn(2, 4, eps=1e-3), [1, 4, 7, 7],
         False),
        ("conv1d", conv(1, 2, 3, 2), bn(1, 3), [2, 2, 5], False),
        ("conv3d", conv(3, 2, 2, 2), bn(3, 2), [1, 2, 3, 3, 3], False),
        ("conv_transpose2d", M("ConvTranspose2d", 2, 3, 3, stride=2), bn(2, 3), [1, 2, 3, 3], True),
        ("linear", M("Linear", 4, 3), bn(1, 3), [5, 4], None),
        ("linear_no_bias", M("Linear", 4, 3, bias=False), bn(1, 3), [5, 4], None),
        ("linear_bn_one_feature", M("Linear", 4, 3), bn(1, 1), [5, 1, 4], None),
    ]
    for name, cs, bs, shape, transpose in rows:
        c, b = build(cs), build(bs)
        randomise(c)
        randomise(b)
        c.eval()
        b.eval()
        x = randn(*shape)
        with torch.no_grad():
            unfused = b(c(x))
            if transpose is None:
                f = fuse_linear_bn_eval(c, b)
            else:
                f = fuse_conv_bn_eval(c, b, transpose=transpose)
            fused = f(x)
        case = {"name": name, "conv": cs, "bn": bs, "conv_state": state(c), "bn_state": state(b),
                "transpose": transpose, "input": enc(x),
                "expect": {"weight": enc(f.weight), "bias": enc(f.bias), "repr": repr(f),
                           "output": enc(fused), "unfused": enc(unfused),
                           "weight_requires_grad": f.weight.requires_grad,
                           "bias_requires_grad": f.bias.requires_grad}}
        out.append(case)
    return out


def fuse_errors():
    out = []

    def attempt(name, fn, cs, bs, conv_train, bn_train):
        c, b = build(cs), build(bs)
        c.train(conv_train)
        b.train(bn_train)
        try:
            fn(c, b)
            raise SystemExit(f"{name} accepted")
        except AssertionError as e:
            out.append({"name": name, "call": fn.__name__, "conv": cs, "bn": bs,
                        "conv_train": conv_train, "bn_train": bn_train, "error": str(e)})

    attempt("conv_train", fuse_conv_bn_eval, conv(2, 1, 2, 1), bn(2, 2), True, False)
    attempt("bn_train", fuse_conv_bn_eval, conv(2, 1, 2, 1), bn(2, 2), False, True)
    attempt("no_stats", fuse_conv_bn_eval, conv(2, 1, 2, 1), bn(2, 2, track_running_stats=False),
            False, False)
    attempt("linear_train", fuse_linear_bn_eval, M("Linear", 2, 3), bn(1, 3), True, True)
    attempt("linear_features", fuse_linear_bn_eval, M("Linear", 2, 3), bn(1, 2), False, False)
    attempt("linear_no_stats", fuse_linear_bn_eval, M("Linear", 2, 3),
            bn(1, 3, track_running_stats=False), False, False)
    return out


def fuse_weights_cases():
    out = []
    for name, wshape, has_b, has_affine, transpose in [
        ("conv", [4, 2, 3, 3], True, True, False),
        ("conv_no_bias_no_affine", [4, 2, 1, 1], False, False, False),
        ("conv_transpose", [2, 4, 3, 3], True, True, True),
        ("conv1d", [3, 2, 2], True, True, False),
    ]:
        c = wshape[1] if transpose else wshape[0]
        w = randn(*wshape).requires_grad_(True)
        b = randn(c).requires_grad_(False) if has_b else None
        rm, rv = randn(c), torch.rand(c, generator=GEN) + 0.5
        bw = randn(c) if has_affine else None
        bb = randn(c) if has_affine else None
        fw, fb = fuse_conv_bn_weights(w, b, rm, rv, 1e-5, bw, bb, transpose)
        out.append({"name": name, "call": "fuse_conv_bn_weights",
                    "args": [enc(w), None if b is None else enc(b), enc(rm), enc(rv), 1e-5,
                             None if bw is None else enc(bw), None if bb is None else enc(bb),
                             transpose],
                    "expect": {"weight": enc(fw), "bias": enc(fb),
                               "weight_requires_grad": fw.requires_grad,
                               "bias_requires_grad": fb.requires_grad}})
    w, b = randn(3, 4).requires_grad_(True), randn(3).requires_grad_(True)
    rm, rv, bw, bb = randn(3), torch.rand(3, generator=GEN) + 0.5, randn(3), randn(3)
    fw, fb = fuse_linear_bn_weights(w, b, rm, rv, 1e-3, bw, bb)
    out.append({"name": "linear", "call": "fuse_linear_bn_weights",
                "args": [enc(w), enc(b), enc(rm), enc(rv), 1e-3, enc(bw), enc(bb)],
                "expect": {"weight": enc(fw), "bias": enc(fb),
                           "weight_requires_grad": fw.requires_grad,
                           "bias_requires_grad": fb.requires_grad}})
    return out


def seq(*children):
    return {"type": "Sequential", "children": list(children)}


def fuse_modules_cases():
    out = []
    cnn = seq(conv(2, 2, 4, 3, padding=1), bn(2, 4), RELU, conv(2, 4, 4, 3, padding=1), bn(2, 4),
              conv(2, 4, 3, 1), RELU, M("Flatten"), M("Linear", 27, 5), bn(1, 5),
              M("Linear", 5, 4), RELU)
    groups = [["0", "1", "2"], ["3", "4"], ["5", "6"], ["8", "9"], ["10", "11"]]
    nested = seq(["stem", seq(conv(2, 2, 3, 3), bn(2, 3), RELU)],
                 ["head", seq(bn(2, 3), RELU, M("Flatten"), M("Linear", 12, 2), RELU)])
    nested_groups = [["stem.0", "stem.1", "stem.2"], ["head.0", "head.1"], ["head.3", "head.4"]]
    auto_nested = [["stem.0", "stem.1", "stem.2"], ["head.3", "head.4"]]
    rows = [
        ("cnn_eval", cnn, groups, False, [2, 2, 3, 3], False),
        ("cnn_train_qat", cnn, groups, True, [2, 2, 3, 3], False),
        ("cnn_eval_qat", cnn, groups, False, [2, 2, 3, 3], False),
        ("cnn_auto", cnn, groups, False, [2, 2, 3, 3], True),
        ("nested_eval", nested, nested_groups, False, [2, 2, 4, 4], False),
        ("nested_auto", nested, auto_nested, False, [2, 2, 4, 4], True),
        ("conv_transpose_bn", seq(M("ConvTranspose2d", 2, 2, 2), bn(2, 2)), [["0", "1"]], False,
         [1, 2, 2, 2], False),
    ]
    for name, spec, to_fuse, train, shape, auto in rows:
        model = build(spec)
        randomise(model)
        model.train(train)
        x = randn(*shape)
        sd = state(model)
        with torch.no_grad():
            before = model(x)
        qat = name.endswith("_qat")
        fused = (fuse_modules_qat if qat else fuse_modules)(model, to_fuse, inplace=False)
        with torch.no_grad():
            after = fused(x)
        out.append({"name": name, "model": spec, "state_dict": sd, "modules_to_fuse": to_fuse,
                    "train": train, "auto": auto, "qat": qat, "input": enc(x),
                    "expect": {"repr": repr(fused), "keys": list(fused.state_dict().keys()),
                               "output": enc(after), "unfused": enc(before)}})
    errors = []
    for name, spec, to_fuse, train in [
        ("unknown", seq(conv(2, 1, 1, 1), M("Linear", 1, 1)), [["0", "1"]], False),
        ("missing", seq(conv(2, 1, 1, 1), RELU), [["0", "2"]], False),
        ("train_not_qat", seq(conv(2, 1, 1, 1), bn(2, 1)), [["0", "1"]], True),
    ]:
        model = build(spec)
        model.train(train)
        try:
            fuse_modules(model, to_fuse)
            raise SystemExit(f"{name} fused")
        except (AssertionError, AttributeError) as e:
            errors.append({"name": name, "model": spec, "modules_to_fuse": to_fuse,
                           "train": train, "type": type(e).__name__, "error": str(e)})
    mixed = build(seq(conv(2, 1, 1, 1), bn(2, 1)))
    mixed[1].eval()
    try:
        fuse_modules(mixed, [["0", "1"]])
    except AssertionError as e:
        errors.append({"name": "mixed_modes", "model": seq(conv(2, 1, 1, 1), bn(2, 1)),
                       "modules_to_fuse": [["0", "1"]], "train": True, "bn_eval": True,
                       "type": "AssertionError", "error": str(e)})
    return out, errors


def main():
    fm, fm_errors = fuse_modules_cases()
    cases = {
        "modules": module_cases(),
        "construct_errors": construct_errors(),
        "fuse_eval": fuse_eval_cases(),
        "fuse_errors": fuse_errors(),
        "fuse_weights": fuse_weights_cases(),
        "fuse_modules": fm,
        "fuse_modules_errors": fm_errors,
    }
    path = os.path.join(HERE, "intrinsic_cases.json")
    json_lines.write(path, cases)
    print(f"wrote {path}: " + ", ".join(f"{k} {len(v)}" for k, v in cases.items()))


if __name__ == "__main__":
    main()
