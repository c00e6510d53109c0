"""Freeze loralib's (Microsoft's LoRA, `pip install loralib`) behaviour into
tests/nn/lora_cases.json for borch-nn/tests/lora.rs (which reads only the JSON).

Per case: after torch.manual_seed(seed), `lora.Linear(in, out, r, lora_alpha, bias=...)` — its
parameters as constructed (state_dict order and values: loralib's init draws nn.Linear's init,
then again in reset_parameters, then kaiming_uniform_(lora_A)); then after manual_seed(seed + 1)
lora_B.normal_(0, 0.5) (so the adapter is not zero), an input x and an output gradient g from
randn; the training forward y, the gradients of lora_A, lora_B and x from (y * g).sum(), the
weight after eval() (merged: weight + lora_B @ lora_A * alpha / r) and the eval output, the
weight after train() again (unmerged). Then mark_only_lora_as_trainable and lora_state_dict on a
Sequential(lora.Linear, ReLU, Linear). The same for `lora.Conv2d(in, out, k, r, lora_alpha,
padding, stride)` (keys lora_A, lora_B, conv.weight, conv.bias; its lora_dropout is not applied
by loralib's forward).

Run: python3 tests/nn/lora_cases.py   (needs torch and loralib)
"""

import json
import os

import loralib as lora
import torch

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [
    {"seed": 0, "in": 6, "out": 4, "r": 2, "alpha": 4, "bias": True, "x": [3, 6]},
    {"seed": 2, "in": 5, "out": 7, "r": 4, "alpha": 1, "bias": False, "x": [2, 3, 5]},
    {"seed": 4, "in": 8, "out": 3, "r": 1, "alpha": 16, "bias": True, "x": [4, 8]},
]


def flat(t):
    return t.detach().reshape(-1).tolist()


def replay(c, m, weight):
    """The case's record for the LoRA layer `m` just built after the case's seed; `weight` is
    the frozen tensor the adapter merges into."""
    init = [[k, list(v.shape), flat(v)] for k, v in m.state_dict().items()]
    grads_wanted = {n: p.requires_grad for n, p in m.named_parameters()}
    torch.manual_seed(c["seed"] + 1)
    with torch.no_grad():
        m.lora_B.normal_(0.0, 0.5)
    x = torch.randn(c["x"], requires_grad=True)
    y = m(x)
    g = torch.randn(y.shape)
    (y * g).sum().backward()
    m.eval()
    merged = flat(weight)
    with torch.no_grad():
        y_eval = m(x)
    m.train()
    return {**c, "init": init, "requires_grad": grads_wanted, "lora_B": flat(m.lora_B),
            "input": flat(x), "grad_output": flat(g), "output": flat(y),
            "output_shape": list(y.shape), "grad_lora_A": flat(m.lora_A.grad),
            "grad_lora_B": flat(m.lora_B.grad), "grad_input": flat(x.grad),
            "weight_has_grad": weight.grad is not None, "merged_weight": merged,
            "eval_output": flat(y_eval), "unmerged_weight": flat(weight), "repr": repr(m)}


def case(c):
    torch.manual_seed(c["seed"])
    m = lora.Linear(c["in"], c["out"], r=c["r"], lora_alpha=c["alpha"], bias=c["bias"])
    return replay(c, m, m.weight)


CONV_CASES = [
    {"seed": 10, "in": 3, "out": 4, "k": 3, "r": 2, "alpha": 4, "padding": 1, "stride": 1,
     "x": [2, 3, 5, 5]},
    {"seed": 12, "in": 2, "out": 6, "k": 2, "r": 1, "alpha": 2, "padding": 0, "stride": 2,
     "x": [1, 2, 6, 6]},
]


def conv_case(c):
    torch.manual_seed(c["seed"])
    m = lora.Conv2d(c["in"], c["out"], c["k"], r=c["r"], lora_alpha=c["alpha"],
                    padding=c["padding"], stride=c["stride"])
    return replay(c, m, m.conv.weight)


def model_case():
    torch.manual_seed(7)
    m = torch.nn.Sequential(lora.Linear(4, 6, r=2, lora_alpha=2), torch.nn.ReLU(),
                            torch.nn.Linear(6, 3))
    out = {}
    for bias in ("none", "all", "lora_only"):
        for p in m.parameters():
            p.requires_grad = True
        lora.mark_only_lora_as_trainable(m, bias=bias)
        out[bias] = {"trainable": [n for n, p in m.named_parameters() if p.requires_grad],
                     "lora_state_dict": list(lora.lora_state_dict(m, bias=bias))}
    return out


def main():
    out = {"torch": torch.__version__, "loralib": "0.1.2", "cases": [case(c) for c in CASES],
           "conv_cases": [conv_case(c) for c in CONV_CASES], "model": model_case()}
    path = os.path.join(HERE, "lora_cases.json")
    with open(path, "w") as f:
        f.write('{"torch": %s, "loralib": %s,\n"cases": [\n' % (json.dumps(out["torch"]),
                                                             json.dumps(out["loralib"])))
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in out["cases"]))
        f.write('\n],\n"conv_cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in out["conv_cases"]))
        f.write('\n],\n"model": ' + json.dumps(out["model"]) + "\n}\n")
    print(f"wrote {path}: {len(out['cases'])} cases")


if __name__ == "__main__":
    main()
