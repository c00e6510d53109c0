"""Freeze torch.nn.utils (gradient clipping, parameter/vector conversion) and torch.autograd's
functions (grad, backward) into JSON for the catalog tests of borch-nn and borch-autograd.

Run: python3 tests/nn/utils_cases.py   (needs torch; the Rust tests only read the JSON)

Writes tests/nn/utils_cases.json and tests/autograd/api_cases.json, one case a line. A case:
{"name", "call", "tensors": [{"data", "shape", "grad"?}], "args": {...} (a tensor argument is
{"tensor": i}, a list of them [{"tensor": i}, ...]), then either "expect": {"result": tensor,
list or null, "grads": [each tensor's .grad or null], "values": [each tensor's values after]}
or "error": {"type", "message"}}.
"""

import json
import math
import os

import torch
import torch.nn.utils as U

HERE = os.path.dirname(os.path.abspath(__file__))


def enc(t):
    if t is None:
        return None
    data = [x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
            for x in t.detach().reshape(-1).tolist()]
    return {"shape": list(t.shape), "data": data}


def leaf(shape, seed, grad=True, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    t = (torch.randn(shape, generator=g) * scale).requires_grad_(True)
    if grad is True:
        t.grad = torch.randn(shape, generator=g) * scale
    elif grad is not None:
        t.grad = grad
    return t


def run(name, call, tensors, fn, args, spec_args):
    case = {"name": name, "call": call,
            "tensors": [dict(enc(t), grad=enc(t.grad), requires_grad=t.requires_grad) for t in tensors],
            "args": {k: ("inf" if isinstance(v, float) and math.isinf(v) else v)
                     for k, v in spec_args.items()}}
    try:
        result = fn(*args)
    except Exception as e:  # torch's refusal is the expected value
        case["error"] = {"type": type(e).__name__, "message": str(e)}
        return case
    if isinstance(result, (tuple, list)):
        result = [enc(r) for r in result]
    elif isinstance(result, torch.Tensor):
        result = enc(result)
    case["expect"] = {"result": result, "grads": [enc(t.grad) for t in tensors],
                      "values": [enc(t) for t in tensors]}
    return case


def T(i):
    return {"tensor": i}


def utils_cases():
    out = []
    for norm_type in [2.0, 1.0, 3.0, float("inf")]:
        for max_norm in [0.5, 100.0]:
            ps = [leaf([3, 4], 1), leaf([5], 2), leaf([2, 2], 3)]
            label = "inf" if math.isinf(norm_type) else norm_type
            out.append(run(f"clip_grad_norm_/p{label}/max{max_norm}", "clip_grad_norm_", ps,
                           lambda ps=ps, m=max_norm, n=norm_type: U.clip_grad_norm_(ps, m, norm_type=n),
                           [], {"parameters": [T(0), T(1), T(2)], "max_norm": max_norm, "norm_type": norm_type}))
    ps = [leaf([3], 4), leaf([2], 5, grad=None)]
    out.append(run("clip_grad_norm_/a_parameter_without_grad", "clip_grad_norm_", ps,
                   lambda: U.clip_grad_norm_(ps, 0.1), [], {"parameters": [T(0), T(1)], "max_norm": 0.1}))
    ps = [leaf([4], 6)]
    out.append(run("clip_grad_norm_/one_tensor", "clip_grad_norm_", ps,
                   lambda: U.clip_grad_norm_(ps[0], 0.2), [], {"parameters": T(0), "max_norm": 0.2}))
    ps = [leaf([3], 7, grad=torch.tensor([1.0, float("inf"), 2.0]))]
    out.append(run("clip_grad_norm_/nonfinite_error", "clip_grad_norm_", ps,
                   lambda: U.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True), [],
                   {"parameters": [T(0)], "max_norm": 1.0, "error_if_nonfinite": True}))
    ps = [leaf([3], 8, grad=torch.tensor([1.0, float("inf"), 2.0]))]
    out.append(run("clip_grad_norm_/nonfinite_scaled", "clip_grad_norm_", ps,
                   lambda: U.clip_grad_norm_(ps, 1.0), [], {"parameters": [T(0)], "max_norm": 1.0}))
    ps = [leaf([2], 9, grad=None)]
    out.append(run("clip_grad_norm_/no_grads", "clip_grad_norm_", ps,
                   lambda: U.clip_grad_norm_(ps, 1.0), [], {"parameters": [T(0)], "max_norm": 1.0}))
    for clip in [0.3, 5.0]:
        ps = [leaf([3, 2], 10), leaf([4], 11)]
        out.append(run(f"clip_grad_value_/{clip}", "clip_grad_value_", ps,
                       lambda ps=ps, c=clip: U.clip_grad_value_(ps, c), [],
                       {"parameters": [T(0), T(1)], "clip_value": clip}))
    ps = [leaf([2, 3], 12), leaf([4], 13)]
    out.append(run("parameters_to_vector", "parameters_to_vector", ps,
                   lambda: U.parameters_to_vector(ps), [], {"parameters": [T(0), T(1)]}))
    ps = [leaf([2, 3], 14), leaf([4], 15), leaf([10], 16, grad=None)]
    ps[2].requires_grad_(False)
    out.append(run("vector_to_parameters", "vector_to_parameters", ps,
                   lambda: U.vector_to_parameters(ps[2], ps[:2]), [],
                   {"vec": T(2), "parameters": [T(0), T(1)]}))
    ps = [leaf([2, 3], 17), leaf([4], 18), leaf([9], 19, grad=None)]
    ps[2].requires_grad_(False)
    out.append(run("vector_to_parameters/wrong_size", "vector_to_parameters", ps,
                   lambda: U.vector_to_parameters(ps[2], ps[:2]), [],
                   {"vec": T(2), "parameters": [T(0), T(1)]}))
    return out


def autograd_cases():
    out = []

    def graph(seed):
        x = leaf([3], seed, grad=None)
        w = leaf([3], seed + 1, grad=None)
        return x, w

    x, w = graph(20)
    out.append(run("grad/two_inputs", "grad", [x, w],
                   lambda: torch.autograd.grad((x * w).sin().sum(), [x, w]), [],
                   {"outputs": {"expr": "sin_mul_sum"}, "inputs": [T(0), T(1)]}))
    x, w = graph(22)
    out.append(run("grad/grad_outputs", "grad", [x, w],
                   lambda: torch.autograd.grad(x * w, x, grad_outputs=torch.tensor([1.0, -2.0, 0.5])), [],
                   {"outputs": {"expr": "mul"}, "inputs": T(0), "grad_outputs": {"const": [1.0, -2.0, 0.5]}}))
    x, w = graph(24)
    out.append(run("grad/unused_error", "grad", [x, w],
                   lambda: torch.autograd.grad((x * 2).sum(), [x, w]), [],
                   {"outputs": {"expr": "double_sum"}, "inputs": [T(0), T(1)]}))
    x, w = graph(26)
    out.append(run("grad/allow_unused", "grad", [x, w],
                   lambda: torch.autograd.grad((x * 2).sum(), [x, w], allow_unused=True), [],
                   {"outputs": {"expr": "double_sum"}, "inputs": [T(0), T(1)], "allow_unused": True}))
    x, w = graph(28)
    out.append(run("grad/materialize_grads", "grad", [x, w],
                   lambda: torch.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True), [],
                   {"outputs": {"expr": "double_sum"}, "inputs": [T(0), T(1)], "materialize_grads": True}))
    x, w = graph(32)
    out.append(run("backward/two_roots", "backward", [x, w],
                   lambda: torch.autograd.backward([(x * w).sum(), (x * x).sum()]), [],
                   {"tensors": {"expr": "mul_sum_and_square_sum"}}))
    x, w = graph(34)
    out.append(run("backward/grad_tensors", "backward", [x, w],
                   lambda: torch.autograd.backward(x * w, grad_tensors=torch.tensor([1.0, 0.0, 3.0])), [],
                   {"tensors": {"expr": "mul"}, "grad_tensors": {"const": [1.0, 0.0, 3.0]}}))
    x, w = graph(36)
    out.append(run("backward/non_scalar_error", "backward", [x, w],
                   lambda: torch.autograd.backward(x * w), [], {"tensors": {"expr": "mul"}}))
    return out


def write(path, cases):
    with open(path, "w") as f:
        f.write('{"torch_version":%s,"cases":[\n' % json.dumps(torch.__version__))
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")
    print(f"wrote {len(cases)} cases from torch {torch.__version__} to {path}")


if __name__ == "__main__":
    write(os.path.join(HERE, "utils_cases.json"), utils_cases())
    write(os.path.join(HERE, "..", "autograd", "api_cases.json"), autograd_cases())
