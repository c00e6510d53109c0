"""BatchNorm2d double backward frozen from torch for borch-nn/tests/batch_norm_fused.rs: for a
module in training and in eval mode, the input and parameter gradients of sum(y * g) built with
create_graph=True, then the gradients of sum(gx * gx) + sum(gw * gw) with respect to the input
and the weight. Writes tests/nn/bn_double_backward.json."""
import json
import os

import torch

torch.manual_seed(0)


def flat(t):
    return [float(v) for v in t.detach().reshape(-1)]


cases = []
for training in (True, False):
    bn = torch.nn.BatchNorm2d(3)
    with torch.no_grad():
        bn.weight.copy_(torch.rand(3) + 0.5)
        bn.bias.copy_(torch.rand(3) - 0.5)
        bn.running_mean.copy_(torch.rand(3) - 0.5)
        bn.running_var.copy_(torch.rand(3) + 0.5)
    bn.train(training)
    x = (torch.rand(2, 3, 3, 5) * 4 - 2).requires_grad_(True)
    g = torch.rand(2, 3, 3, 5) * 2 - 1
    rm, rv = flat(bn.running_mean), flat(bn.running_var)
    y = bn(x)
    gx, gw, gb = torch.autograd.grad((y * g).sum(), [x, bn.weight, bn.bias], create_graph=True)
    total = (gx * gx).sum() + (gw * gw).sum()
    ggx, ggw = torch.autograd.grad(total, [x, bn.weight], allow_unused=True)
    zero = torch.zeros_like
    cases.append({
        "training": training,
        "shape": list(x.shape),
        "x": flat(x), "g": flat(g),
        "weight": flat(bn.weight), "bias": flat(bn.bias),
        "running_mean": rm, "running_var": rv,
        "gx": flat(gx), "gw": flat(gw), "gb": flat(gb),
        "ggx": flat(ggx if ggx is not None else zero(x)),
        "ggw": flat(ggw if ggw is not None else zero(bn.weight)),
    })

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bn_double_backward.json")
with open(out, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f)
    f.write("\n")
print(f"wrote {len(cases)} cases to {out}")
