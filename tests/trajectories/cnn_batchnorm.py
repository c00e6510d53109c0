"""Freeze a small CNN with BatchNorm2d and a residual add, trained 30 steps with SGD momentum,
into tests/trajectories/cnn_batchnorm_residual.json (issue 10's trajectory).

Run: python3 tests/trajectories/cnn_batchnorm.py   (needs torch; the Rust test only reads it)

The model (train mode throughout, full batch): conv1 = Conv2d(1, 4, 3, padding=1, bias=False),
bn1 = BatchNorm2d(4), h = relu(bn1(conv1(x))); conv2 = Conv2d(4, 4, 3, padding=1, bias=False),
bn2 = BatchNorm2d(4), r = relu(bn2(conv2(h)) + h); fc = Linear(4, 3) on the spatial mean of r;
cross-entropy. Written: the initial state_dict, data, every step's loss, and the final state_dict
(parameters and BatchNorm buffers, num_batches_tracked included). Nothing random is drawn during
training, so the script runs on any CPU.
"""

import json
import os

import torch
from torch import nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        r = F.relu(self.bn2(self.conv2(h)) + h)
        return self.fc(r.mean(dim=(2, 3)))


def tensor_json(t):
    t = t.detach()
    data = t.reshape(-1).tolist()
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "data": data}


def state_json(model):
    return [{"name": k, **tensor_json(v)} for k, v in model.state_dict().items()]


def main(steps=30):
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(3)
    x = torch.randn(12, 1, 6, 6, generator=g)
    y = torch.randint(0, 3, (12,), generator=g)
    torch.manual_seed(5)
    model = Net()
    init = state_json(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=False)
    losses = []
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(float(loss.item()))
    out = {"recipe": "cnn_batchnorm_residual", "torch": torch.__version__, "steps": steps,
           "config": {"optimizer": "SGD", "options": {"lr": 0.1, "momentum": 0.9}},
           "data": {"x": tensor_json(x), "y": tensor_json(y)}, "init": init, "loss": losses,
           "final": state_json(model)}
    path = os.path.join(HERE, "cnn_batchnorm_residual.json")
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}"
                                   for k, v in out.items()) + "\n}\n")
    print(f"cnn_batchnorm_residual: {steps} steps, loss {losses[0]:.6g} -> {losses[-1]:.6g}, wrote {path}")


if __name__ == "__main__":
    main()
