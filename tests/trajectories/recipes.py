"""Freeze four training recipes run by real torch into tests/trajectories/<recipe>.json.

Run: python3 tests/trajectories/recipes.py   (needs torch; the Rust test only reads the JSON)

Each file holds the recipe's settings, its data (float32 values and int64 labels), the initial
parameters under torch's dotted names, the loss of every step (computed before that step's
update) and the parameters after the last step. `borch-goldens/tests/trajectories.rs` replays
every recipe with borch's tensors, autograd and optimizers and compares step by step.

The models are torch's own modules (nn.Linear, nn.ReLU, nn.Dropout, the losses); the optimizers
run torch's single-tensor path (foreach=False), as borch-optim does. Batches are fixed (full
batch, or minibatches taken in order), so nothing but dropout draws random numbers during
training. For the dropout recipe, `torch.manual_seed(loop_seed)` is called right before the
training loop; the Rust side calls `borch_tensor::manual_seed(loop_seed)` at the same point and
draws each dropout mask as torch's CPU dropout does (`empty_like(x).bernoulli_(1 - p)`, layer by
layer in forward order). On Intel CPUs torch's MKL build draws bernoulli_ from MKL's own stream,
which borch does not reproduce, so this script refuses to run there (see docs/random.md).
"""

import json
import math
import os
import sys

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import json_lines  # noqa: E402 (tests/json_lines.py)


def flat(t):
    return [float(x) for x in t.detach().reshape(-1).tolist()]


def tensor_json(t):
    return {
        "shape": list(t.shape),
        "dtype": str(t.dtype).replace("torch.", ""),
        "data": [int(x) for x in t.reshape(-1).tolist()] if t.dtype == torch.int64 else flat(t),
    }


def params_json(model):
    return [{"name": n, **tensor_json(p)} for n, p in model.named_parameters()]


def check_bernoulli_path():
    """torch's bernoulli_(float p) takes MKL's stream on Intel CPUs with MKL; refuse there."""
    vendor = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    vendor = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if vendor == "GenuineIntel" and torch.backends.mkl.is_available():
        raise SystemExit(
            "torch draws dropout masks with MKL on Intel CPUs; run this script on an AMD or ARM CPU"
        )


def train(name, model, loss_fn, data, batches, opt, steps, config, sched=None, loop_seed=None):
    """`batches(step)` gives the (inputs, targets) of a step; returns nothing, writes the JSON."""
    init = params_json(model)
    if loop_seed is not None:
        torch.manual_seed(loop_seed)
    model.train()
    losses, lrs = [], []
    for step in range(steps):
        x, y = batches(step)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(float(loss.item()))
    out = {
        "recipe": name,
        "torch": torch.__version__,
        "steps": steps,
        "config": config,
        "data": {k: tensor_json(v) for k, v in data.items()},
        "init": init,
        "loss": losses,
        "lr": lrs,
        "final": params_json(model),
    }
    path = os.path.join(HERE, f"{name}.json")
    json_lines.write(path, out)  # one value a line: a regeneration's diff is what changed
    print(f"{name}: {steps} steps, loss {losses[0]:.6g} -> {losses[-1]:.6g}, wrote {path}")


def linear_regression():
    """y = 3 x1 - 2 x2 + 0.5 + noise; nn.Linear(2, 1), MSE, plain SGD, full batch."""
    torch.manual_seed(0)
    x = torch.randn(64, 2)
    y = 3 * x[:, :1] - 2 * x[:, 1:] + 0.5 + 0.1 * torch.randn(64, 1)
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, foreach=False)
    config = {"optimizer": "SGD", "lr": 0.1, "loss": "mse"}
    train("linear_regression", model, nn.MSELoss(), {"x": x, "y": y}, lambda _: (x, y), opt,
          201, config)


def logistic_regression():
    """Two overlapping Gaussian blobs in 2-D; nn.Linear(2, 1), BCEWithLogitsLoss, SGD momentum."""
    torch.manual_seed(1)
    n = 128
    labels = (torch.arange(n) % 2).float()
    centers = torch.tensor([[-1.0, 0.5], [1.0, -0.5]])
    x = centers[labels.long()] + 1.2 * torch.randn(n, 2)
    y = labels.unsqueeze(1)
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9, foreach=False)
    config = {"optimizer": "SGD", "lr": 0.5, "momentum": 0.9, "loss": "bce_with_logits"}
    train("logistic_regression", model, nn.BCEWithLogitsLoss(), {"x": x, "y": y},
          lambda _: (x, y), opt, 100, config)


def three_blobs(n_per_class, dim, spread, seed):
    """3-class toy data: Gaussian blobs around the vertices of a triangle (first two features)."""
    torch.manual_seed(seed)
    angles = torch.tensor([0.0, 2 * math.pi / 3, 4 * math.pi / 3])
    centers = torch.zeros(3, dim)
    centers[:, 0] = 2 * torch.cos(angles)
    centers[:, 1] = 2 * torch.sin(angles)
    labels = torch.arange(3 * n_per_class) % 3
    x = centers[labels] + spread * torch.randn(3 * n_per_class, dim)
    return x, labels


def mlp_adam_cosine():
    """2 -> 16 -> 16 -> 3 ReLU MLP, cross-entropy, Adam with CosineAnnealingLR, full batch."""
    x, y = three_blobs(32, 2, 1.0, seed=2)
    torch.manual_seed(3)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                          nn.Linear(16, 3))
    opt = torch.optim.Adam(model.parameters(), lr=0.01, foreach=False)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100, eta_min=0.001)
    config = {"optimizer": "Adam", "lr": 0.01, "scheduler": "CosineAnnealingLR", "T_max": 100,
              "eta_min": 0.001, "loss": "cross_entropy", "layers": [2, 16, 16, 3]}
    train("mlp_adam_cosine", model, nn.CrossEntropyLoss(), {"x": x, "y": y}, lambda _: (x, y),
          opt, 100, config, sched=sched)


def mlp_dropout_adamw():
    """4 -> 32 -> 32 -> 3 ReLU MLP with Dropout(0.2) after each hidden layer, AdamW with weight
    decay and StepLR, fixed minibatches of 32 taken in order, masks from the seeded generator."""
    x, y = three_blobs(48, 4, 1.2, seed=4)
    torch.manual_seed(5)
    p = 0.2
    model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Dropout(p), nn.Linear(32, 32),
                          nn.ReLU(), nn.Dropout(p), nn.Linear(32, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=0.005, weight_decay=0.05, foreach=False)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.5)
    batch = 32
    nb = x.shape[0] // batch

    def batches(step):
        i = step % nb
        return x[i * batch:(i + 1) * batch], y[i * batch:(i + 1) * batch]

    loop_seed = 1234
    config = {"optimizer": "AdamW", "lr": 0.005, "weight_decay": 0.05, "scheduler": "StepLR",
              "step_size": 30, "gamma": 0.5, "loss": "cross_entropy", "dropout": p,
              "batch": batch, "loop_seed": loop_seed, "layers": [4, 32, 32, 3]}
    train("mlp_dropout_adamw", model, nn.CrossEntropyLoss(), {"x": x, "y": y}, batches, opt,
          100, config, sched=sched, loop_seed=loop_seed)


if __name__ == "__main__":
    check_bernoulli_path()
    torch.set_num_threads(1)
    linear_regression()
    logistic_regression()
    mlp_adam_cosine()
    mlp_dropout_adamw()
