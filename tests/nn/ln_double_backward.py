"""LayerNorm first and second derivatives frozen from torch for borch-nn/tests/layer_norm_fused.rs:
for F.layer_norm over one and over two trailing dims (with weight and bias, and without), the
gradients of sum(y * g) with respect to the input, weight and bias, then (create_graph=True) the
gradients of sum(gx * gx) + sum(gw * gw) with respect to the input and the weight. Rows of 300
values take the kernels' strided loops past one workgroup's 256 threads. Writes
tests/nn/ln_double_backward.json."""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def flat(t):
    return [float(v) for v in t.detach().reshape(-1)]


cases = []
for shape, k, affine in [([2, 3, 5], 1, True), ([4, 2, 6], 2, True), ([3, 300], 1, True),
                         ([2, 3, 5], 1, False)]:
    norm = shape[-k:]
    x = (torch.rand(shape) * 4 - 2).requires_grad_(True)
    g = torch.rand(shape) * 2 - 1
    w = (torch.rand(norm) + 0.5).requires_grad_(True) if affine else None
    b = (torch.rand(norm) - 0.5).requires_grad_(True) if affine else None
    y = F.layer_norm(x, norm, w, b, 1e-5)
    params = [x] + ([w, b] if affine else [])
    first = torch.autograd.grad((y * g).sum(), params, create_graph=True)
    total = (first[0] * first[0]).sum() + ((first[1] * first[1]).sum() if affine else 0)
    second = torch.autograd.grad(total, [x] + ([w] if affine else []))
    case = {"shape": shape, "dims": k, "affine": affine, "x": flat(x), "g": flat(g),
            "y": flat(y), "gx": flat(first[0]), "ggx": flat(second[0])}
    if affine:
        case.update({"weight": flat(w), "bias": flat(b), "gw": flat(first[1]),
                     "gb": flat(first[2]), "ggw": flat(second[1])})
    cases.append(case)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ln_double_backward.json")
with open(out, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f)
    f.write("\n")
print(f"wrote {len(cases)} cases to {out}")
