"""Freeze torchvision's ResNets after manual_seed into tests/vision/resnet_init.json: per model
the state_dict keys (order, shape, dtype) and, per parameter, its sum and sum of squares (in
float64) and its first 8 values, and the printed form (repr). borch-vision/tests/init.rs builds the same models after the same
seed and compares (first values exactly, sums within 1e-6 relative).

Run: python3 tests/vision/resnet_cases.py   (needs torch and torchvision; the Rust test reads
only the JSON). The CIFAR ResNet-18 is borch's (torchvision has none): torch_resnet.py here builds
it with torchvision's code and a 3x3 stem; this script first checks that torch_resnet.py's
resnet18/34/50 equal torchvision's bit for bit, so the CIFAR model is torchvision's builder too.
"""

import json
import os

import torch
import torchvision
from torchvision import models

import torch_resnet

HERE = os.path.dirname(os.path.abspath(__file__))

# (name as borch's catalog calls it, keyword arguments, seed)
CASES = [
    ("resnet18", {}, 0),
    ("resnet34", {}, 1),
    ("resnet50", {}, 2),
    ("resnet18", {"num_classes": 10, "zero_init_residual": True}, 3),
    ("resnet50", {"groups": 32, "width_per_group": 4,
                  "replace_stride_with_dilation": [False, True, True],
                  "zero_init_residual": True}, 4),
    ("cifar_resnet18", {}, 0),
    ("cifar_resnet18", {"width": 8}, 0),
]


def build(name, kwargs, seed, torchvision_itself):
    torch.manual_seed(seed)
    if name == "cifar_resnet18":
        return torch_resnet.cifar_resnet18(**kwargs)
    source = models if torchvision_itself else torch_resnet
    return getattr(source, name)(**kwargs)


def same(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    return list(sa) == list(sb) and all(torch.equal(sa[k], sb[k]) for k in sa)


def entry(name, kwargs, seed):
    model = build(name, kwargs, seed, True)
    if name != "cifar_resnet18":
        assert same(model, build(name, kwargs, seed, False)), f"torch_resnet.{name} != torchvision"
    params = {n for n, _ in model.named_parameters()}
    keys, stats = [], []
    for k, v in model.state_dict().items():
        keys.append([k, list(v.shape), str(v.dtype).replace("torch.", "")])
        if k in params:
            d = v.detach().double()
            stats.append({"name": k, "sum": d.sum().item(), "sumsq": (d * d).sum().item(),
                          "first": v.detach().reshape(-1)[:8].tolist()})
    return {"model": name, "kwargs": kwargs, "seed": seed,
            "parameters": sum(p.numel() for p in model.parameters()), "keys": keys,
            "stats": stats, "repr": repr(model)}


def main():
    torch.set_num_threads(1)
    out = [entry(*c) for c in CASES]
    path = os.path.join(HERE, "resnet_init.json")
    with open(path, "w") as f:
        f.write(json.dumps({"torch": torch.__version__, "torchvision": torchvision.__version__})[:-1])
        f.write(', "models": [\n' + ",\n".join(json.dumps(e, separators=(",", ":")) for e in out)
                + "\n]}\n")
    for e in out:
        print(f"{e['model']}({e['kwargs']}) seed {e['seed']}: {len(e['keys'])} keys, "
              f"{e['parameters']} parameters")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
