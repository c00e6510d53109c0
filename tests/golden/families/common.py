"""Shared pieces for golden families: inputs with view chains, encoding, and `case`.

An input is a tensor made from flat data, then a chain of view operations applied identically by
torch here and by each borch runner (so non-contiguous inputs are exercised without copying), or a
Python scalar. A case records torch's outputs, or the exception torch raised.
"""
import math
import re

import torch


def _fix(x):
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    return x


def encode(t):
    t = t.detach().contiguous()
    return {
        "dtype": str(t.dtype).replace("torch.", ""),
        "shape": list(t.shape),
        "data": [_fix(x) for x in t.reshape(-1).tolist()],
    }


def apply_view(t, step):
    op, *a = step
    if op == "t":
        return t.t()
    if op == "transpose":
        return t.transpose(a[0], a[1])
    if op == "permute":
        return t.permute(*a[0])
    if op == "slice":
        dim, start, end, stride = a
        index = [slice(None)] * t.dim()
        index[dim] = slice(start, end, stride)
        return t[tuple(index)]
    if op == "expand":
        return t.expand(*a[0])
    if op == "select":
        return t.select(a[0], a[1])
    if op == "unsqueeze":
        return t.unsqueeze(a[0])
    if op == "reshape":
        return t.reshape(*a[0])
    if op == "narrow":
        return t.narrow(a[0], a[1], a[2])
    raise ValueError(f"unknown view step {op}")


class In:
    """A tensor input: flat data of `dtype` in `shape`, then `view` steps."""

    def __init__(self, data, dtype="float32", shape=None, view=()):
        self.base = torch.tensor(data, dtype=getattr(torch, dtype))
        if shape is not None:
            self.base = self.base.reshape(shape)
        self.view = [list(v) for v in view]

    def torch(self):
        t = self.base.clone()
        for step in self.view:
            t = apply_view(t, step)
        return t

    def json(self):
        return {"tensor": encode(self.base), "view": self.view}


class Num:
    """A Python number input (a "wrapped number" in torch's type promotion)."""

    def __init__(self, value):
        self.value = value

    def torch(self):
        return self.value

    def json(self):
        kind = "bool" if isinstance(self.value, bool) else "int" if isinstance(self.value, int) else "float"
        return {"scalar": _fix(float(self.value)) if kind == "float" else self.value, "kind": kind}


def case(name, op, inputs, fn, args=None, contains=None):
    """Run `fn(*inputs, **args)` in torch and record outputs or the error."""
    args = args or {}
    record = {"name": name, "op": op, "inputs": [i.json() for i in inputs], "args": args}
    try:
        out = fn(*[i.torch() for i in inputs], **args)
    except Exception as e:  # torch's error is the expectation
        message = str(e).split("\n")[0]
        kernel_named = re.match(r'^"[^"]+" not implemented for (\'\w+\')$', message)
        if contains is None and kernel_named:
            # torch names its CPU kernel ("abs_cpu"); the part that matters is the dtype.
            contains = f"not implemented for {kernel_named.group(1)}"
        record["error"] = {"type": type(e).__name__, "message": message, "contains": contains or message}
        return record
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    record["expect"] = [encode(o) if isinstance(o, torch.Tensor) else encode(torch.tensor(o)) for o in outs]
    return record


# Reusable inputs.
def floats(n, lo=-3.0, hi=3.0, seed=0, shape=None):
    g = torch.Generator().manual_seed(seed)
    data = (torch.rand(n, generator=g) * (hi - lo) + lo).tolist()
    return data if shape is None else torch.tensor(data).reshape(shape).tolist()


def ints(n, lo=-5, hi=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(lo, hi, (n,), generator=g).tolist()
