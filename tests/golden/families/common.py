"""Shared pieces for golden families: inputs with view chains, encoding, and `case`.

An input is a tensor made from flat data, then a chain of view operations applied identically by
torch here and by each borch runner (so non-contiguous inputs are exercised without copying), or a
Python scalar. A case records torch's outputs, or the exception torch raised.
"""
import math
import re
import zlib

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
    if op == "clone":
        # A copy that is not a view: in-place ops on it are recorded (backward cases).
        return t.clone()
    if op.endswith("_"):
        # An in-place method (a chain of in-place ops before the one a case tests).
        return getattr(t, op)(*a)
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
    backward = backward_case(name, op, inputs, fn, args)
    return [record, backward] if backward else record


def backward_case(name, op, inputs, fn, args):
    """The gradients of `out[0]` (a float tensor) with respect to every float tensor input's base
    (before its view chain), for a fixed random grad_output; None when torch records no graph."""
    if op in ("var", "std") and args.get("dim") == []:
        # torch's backward treats dim=[] as reducing nothing (n=1) while its forward reduced
        # everything, giving infinite gradients for a finite function: a torch bug, not frozen.
        return None
    bases = []
    for i in inputs:
        if isinstance(i, In) and i.base.dtype == torch.float32:
            bases.append(i.base.clone().requires_grad_(True))
        else:
            bases.append(None)
    tensors = []
    for i, b in zip(inputs, bases):
        if b is None:
            tensors.append(i.torch())
            continue
        t = b
        for step in i.view:
            t = apply_view(t, step)
        tensors.append(t)
    try:
        out = fn(*tensors, **args)
        out = out[0] if isinstance(out, (tuple, list)) else out
        if not isinstance(out, torch.Tensor) or not out.requires_grad or out.dtype != torch.float32:
            return None
        g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
        grad_output = (torch.rand(out.shape, generator=g) * 2 - 1).to(out.dtype)
        out.backward(grad_output)
    except Exception:
        return None
    grads = [encode(b.grad) if b is not None and b.grad is not None else None for b in bases]
    return {
        "name": name + "/grad", "op": op, "kind": "backward",
        "inputs": [i.json() for i in inputs], "args": args,
        "grad_output": encode(grad_output), "grads": grads,
    }


# Reusable inputs.
def floats(n, lo=-3.0, hi=3.0, seed=0, shape=None):
    g = torch.Generator().manual_seed(seed)
    data = (torch.rand(n, generator=g) * (hi - lo) + lo).tolist()
    return data if shape is None else torch.tensor(data).reshape(shape).tolist()


def ints(n, lo=-5, hi=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(lo, hi, (n,), generator=g).tolist()
