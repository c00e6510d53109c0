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

"training": borch's apply_lora(model, r=2, lora_alpha=4, target_modules=["0", "2"]) on
Sequential(Linear(4, 6), ReLU(), Linear(6, 3)) as loralib would write it (each Linear replaced by a
lora.Linear around the same weight and bias), lora_A / lora_B loaded from the case, then
mark_only_lora_as_trainable (bias='none'), four SGD steps (lr 0.05) of MSELoss, then eval():
the losses, the trainable names, lora_state_dict's keys and values, the merged weights and the
eval output. "checkpoint": two blocks Sequential(Linear(5, 8), Tanh(), Linear(8, 5), Tanh()) run
as torch.utils.checkpoint.checkpoint(block, h, use_reentrant=False): the output and the
gradients of the input and of every parameter (torch's, asserted equal to the run without
checkpoint). "conv_r0": loralib's lora.Conv2d(2, 3, 3, padding=1) with its default r=0 (no
adapter): init values, requires_grad, output.

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


def conv_r0_case():
    """loralib's default r=0: a plain convolution in the wrapper (no adapter, weight trainable)."""
    torch.manual_seed(14)
    m = lora.Conv2d(2, 3, 3, padding=1)
    init = [[k, list(v.shape), flat(v)] for k, v in m.state_dict().items()]
    x = torch.randn(1, 2, 4, 4)
    return {"seed": 14, "init": init, "x": [1, 2, 4, 4], "input": flat(x),
            "output": flat(m(x)), "requires_grad": {n: p.requires_grad for n, p in m.named_parameters()}}


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


def state(m):
    return {k: [list(v.shape), flat(v)] for k, v in m.state_dict().items()}


def training_case():
    torch.manual_seed(21)
    base = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU(), torch.nn.Linear(6, 3))
    base_state = state(base)
    m = torch.nn.Sequential(lora.Linear(4, 6, r=2, lora_alpha=4), torch.nn.ReLU(),
                            lora.Linear(6, 3, r=2, lora_alpha=4))
    torch.manual_seed(22)
    with torch.no_grad():
        for i in (0, 2):
            m[i].weight.copy_(base[i].weight)
            m[i].bias.copy_(base[i].bias)
            m[i].lora_A.normal_(0.0, 0.3)
            m[i].lora_B.normal_(0.0, 0.1)
    adapter = {k: v for k, v in state(m).items() if "lora_" in k}
    lora.mark_only_lora_as_trainable(m, bias="none")
    trainable = [n for n, p in m.named_parameters() if p.requires_grad]
    x, y = torch.randn(5, 4), torch.randn(5, 3)
    opt = torch.optim.SGD([p for p in m.parameters() if p.requires_grad], lr=0.05)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        train_out = m(x)
    m.eval()
    with torch.no_grad():
        eval_out = m(x)
    return {"base": base_state, "adapter": adapter, "x": flat(x), "y": flat(y), "lr": 0.05,
            "losses": losses, "trainable": trainable,
            "lora_state_dict": {k: [list(v.shape), flat(v)]
                                for k, v in lora.lora_state_dict(m).items()},
            "train_output": flat(train_out), "merged_weights": {
                "0": flat(m[0].weight), "2": flat(m[2].weight)}, "eval_output": flat(eval_out),
            "output_shape": [5, 3]}


def checkpoint_case():
    from torch.utils.checkpoint import checkpoint
    torch.manual_seed(31)
    blocks = [torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(), torch.nn.Linear(8, 5),
                                  torch.nn.Tanh()) for _ in range(2)]
    x = torch.randn(3, 5, requires_grad=True)
    g = torch.randn(3, 5)

    def run(wrap):
        for b in blocks:
            b.zero_grad()
        x.grad = None
        h = x
        for b in blocks:
            h = wrap(b, h)
        (h * g).sum().backward()
        return h.detach().clone(), x.grad.clone(), [
            p.grad.clone() for b in blocks for p in b.parameters()]

    plain = run(lambda b, h: b(h))
    ckpt = run(lambda b, h: checkpoint(b, h, use_reentrant=False))
    for a, b in zip([plain[0], plain[1], *plain[2]], [ckpt[0], ckpt[1], *ckpt[2]]):
        assert torch.equal(a, b)
    names = [f"{i}.{n}" for i, b in enumerate(blocks) for n, _ in b.named_parameters()]
    return {"blocks": [state(b) for b in blocks], "x": flat(x), "x_shape": [3, 5],
            "grad_output": flat(g), "output": flat(ckpt[0]), "grad_input": flat(ckpt[1]),
            "grads": {n: flat(t) for n, t in zip(names, ckpt[2])}}


def main():
    out = {"torch": torch.__version__, "loralib": "0.1.2", "cases": [case(c) for c in CASES],
           "conv_cases": [conv_case(c) for c in CONV_CASES], "model": model_case(),
           "training": training_case(), "checkpoint": checkpoint_case(),
           "conv_r0": conv_r0_case()}
    path = os.path.join(HERE, "lora_cases.json")
    with open(path, "w") as f:
        f.write('{"torch": %s, "loralib": %s,\n"cases": [\n' % (json.dumps(out["torch"]),
                                                             json.dumps(out["loralib"])))
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in out["cases"]))
        f.write('\n],\n"conv_cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in out["conv_cases"]))
        f.write('\n],\n"model": ' + json.dumps(out["model"]))
        f.write(',\n"training": ' + json.dumps(out["training"], separators=(",", ":")))
        f.write(',\n"checkpoint": ' + json.dumps(out["checkpoint"], separators=(",", ":")))
        f.write(',\n"conv_r0": ' + json.dumps(out["conv_r0"], separators=(",", ":")))
        f.write("\n}\n")
    print(f"wrote {path}: {len(out['cases'])} cases")


if __name__ == "__main__":
    main()
