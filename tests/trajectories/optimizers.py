"""Freeze three training recipes for the optimizers added with the catalog (NAdam, RAdam,
LBFGS) into tests/trajectories/<recipe>.json, in recipes.py's format.

Run: python3 tests/trajectories/optimizers.py   (needs torch; the Rust test only reads the JSON)

No dropout here, so (unlike recipes.py) nothing draws random numbers during training and the
script runs on any CPU. `config.options` holds the optimizer's keyword arguments: the Rust side
builds the optimizer through borch_optim::catalog by `config.optimizer` with them. For LBFGS
each step is `opt.step(closure)` and `loss` records what it returns (the closure's first loss).
"""

import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recipes import HERE, params_json, tensor_json, three_blobs  # noqa: E402


def write(name, steps, config, data, init, losses, lrs, model):
    import json

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
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"{name}: {steps} steps, loss {losses[0]:.6g} -> {losses[-1]:.6g}, wrote {path}")


def mlp(name, optimizer, options, seed, steps=60):
    """2 -> 16 -> 16 -> 3 ReLU MLP on three blobs, cross-entropy, full batch."""
    x, y = three_blobs(32, 2, 1.0, seed=seed)
    torch.manual_seed(seed + 1)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                          nn.Linear(16, 3))
    init = params_json(model)
    opt = getattr(torch.optim, optimizer)(model.parameters(), foreach=False, **options)
    loss_fn = nn.CrossEntropyLoss()
    losses, lrs = [], []
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        losses.append(float(loss.item()))
    config = {"optimizer": optimizer, "options": options, "loss": "cross_entropy",
              "layers": [2, 16, 16, 3], "lr": options["lr"]}
    write(name, steps, config, {"x": x, "y": y}, init, losses, lrs, model)


def lbfgs_regression(steps=8):
    """Linear(3, 1) least squares with LBFGS and the strong-Wolfe line search."""
    torch.manual_seed(11)
    x = torch.randn(64, 3)
    y = x @ torch.tensor([[1.5], [-2.0], [0.7]]) + 0.3 + 0.1 * torch.randn(64, 1)
    model = nn.Linear(3, 1)
    init = params_json(model)
    options = {"lr": 1.0, "max_iter": 10, "history_size": 5, "line_search_fn": "strong_wolfe"}
    opt = torch.optim.LBFGS(model.parameters(), **options)
    loss_fn = nn.MSELoss()

    def closure():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss

    losses, lrs = [], []
    for _ in range(steps):
        lrs.append(opt.param_groups[0]["lr"])
        losses.append(float(opt.step(closure).item()))
    config = {"optimizer": "LBFGS", "options": options, "loss": "mse", "closure": True,
              "lr": 1.0}
    write("lbfgs_regression", steps, config, {"x": x, "y": y}, init, losses, lrs, model)


if __name__ == "__main__":
    torch.set_num_threads(1)
    mlp("mlp_nadam", "NAdam", {"lr": 0.01, "weight_decay": 0.01, "decoupled_weight_decay": True}, seed=6)
    mlp("mlp_radam", "RAdam", {"lr": 0.01, "weight_decay": 0.001}, seed=8)
    lbfgs_regression()
