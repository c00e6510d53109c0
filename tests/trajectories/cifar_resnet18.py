"""Freeze borch's CIFAR ResNet-18 (with BatchNorm) trained 20 steps with SGD momentum + weight
decay into tests/trajectories/cifar_resnet18_w<width>.json (issue 11's trajectory).

Run: python3 tests/trajectories/cifar_resnet18.py   (needs torch only; the Rust test reads the
JSON). Writes width 64 (the benchmarks' network, 11.2M parameters) and width 8 (the same
structure at 1/64 of the cost, for CI and the browser).

The run (train mode, full batch): torch.manual_seed(0); model = cifar_resnet18(width=W)
(tests/vision/torch_resnet.py: torchvision's ResNet builder with a 3x3 stride-1 stem and no max
pool; its init equals borch_vision::models::cifar_resnet18 bit for bit, see
tests/vision/resnet_cases.py); torch.manual_seed(1); x = torch.randn(8, 3, 32, 32); y = arange(8)
% 10; SGD(lr=0.05, momentum=0.9, weight_decay=5e-4). Per step (before the update): the loss and
the 2-norm of every parameter's gradient (named_parameters order). At the end: per BatchNorm the
norms of running_mean and running_var and num_batches_tracked, the norm of every parameter, and
the eval-mode logits of x. Nothing is drawn during training, so the script runs on any CPU.
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "vision"))
import torch_resnet  # noqa: E402

STEPS, N, LR, MOMENTUM, WEIGHT_DECAY = 20, 8, 0.05, 0.9, 5e-4


def run(width):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch_resnet.cifar_resnet18(num_classes=10, width=width)
    torch.manual_seed(1)
    x = torch.randn(N, 3, 32, 32)
    y = torch.arange(N) % 10
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM,
                          weight_decay=WEIGHT_DECAY, foreach=False)
    names = [n for n, _ in model.named_parameters()]
    losses, grad_norms = [], []
    model.train()
    for _ in range(STEPS):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        losses.append(loss.item())
        grad_norms.append([p.grad.norm().item() for p in model.parameters()])
        opt.step()
    bn = []
    for name, m in model.named_modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            bn.append({"name": name, "running_mean": m.running_mean.norm().item(),
                       "running_var": m.running_var.norm().item(),
                       "num_batches_tracked": int(m.num_batches_tracked)})
    model.eval()
    with torch.no_grad():
        logits = model(x)
    out = {
        "recipe": f"cifar_resnet18_w{width}", "torch": torch.__version__, "steps": STEPS,
        "config": {"model": "cifar_resnet18", "width": width, "num_classes": 10,
                   "init_seed": 0, "data_seed": 1, "n": N, "x": "randn(n, 3, 32, 32)",
                   "y": "arange(n) % 10", "optimizer": "SGD",
                   "options": {"lr": LR, "momentum": MOMENTUM, "weight_decay": WEIGHT_DECAY}},
        "x_check": {"sum": x.double().sum().item(), "first": x.reshape(-1)[:4].tolist()},
        "parameters": names, "loss": losses, "grad_norms": grad_norms, "batchnorm": bn,
        "param_norms": [p.detach().norm().item() for p in model.parameters()],
        "eval_logits": logits.reshape(-1).tolist(),
    }
    path = os.path.join(HERE, f"cifar_resnet18_w{width}.json")
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}"
                                   for k, v in out.items()) + "\n}\n")
    print(f"cifar_resnet18 width {width}: loss {losses[0]:.6g} -> {losses[-1]:.6g}, wrote {path}")


if __name__ == "__main__":
    for w in (8, 64):
        run(w)
