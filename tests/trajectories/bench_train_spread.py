#!/usr/bin/env python3
"""How far float32 rounding alone moves the browser bench's ResNet-18 training step
(`cargo xtask bench browser --cases resnet18`, bench/browser/resnet18.mjs): the same CIFAR
ResNet-18 (width 8, seed 0, tests/vision/torch_resnet.py, whose init is borch's bit for bit),
the same batch of 16 (bench/browser/timing.mjs's `uniform` draws, ported below), SGD lr 0.05,
momentum 0.9, weight decay 5e-4, run in torch float32 and float64; prints the largest loss and
parameter differences after 1, 2 and 4 steps. The bench compares borch-ts and TF.js after one
step because of what this prints.

    python3 tests/trajectories/bench_train_spread.py
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vision"))
import torch_resnet  # noqa: E402

WIDTH, BATCH, CLASSES = 8, 16, 10
M = 0xFFFFFFFF


def uniform(count, seed):
    """bench/browser/timing.mjs's `uniform(count, seed)`: mulberry32 in (-1, 1), float32."""
    s, out = seed & M, np.empty(count, dtype=np.float32)
    for i in range(count):
        s = (s + 0x6D2B79F5) & M
        t = ((s ^ (s >> 15)) * (s | 1)) & M
        t ^= (t + ((t ^ (t >> 7)) * (t | 61))) & M
        out[i] = (((t ^ (t >> 14)) & M) / 4294967296 * 2 - 1)
    return out


def run(dtype, steps):
    torch.manual_seed(0)
    model = torch_resnet.cifar_resnet18(num_classes=CLASSES, width=WIDTH).to(dtype)
    model.train()
    x = torch.tensor(uniform(BATCH * 3 * 32 * 32, 6000 + BATCH)).view(BATCH, 3, 32, 32).to(dtype)
    y = torch.tensor([min(CLASSES - 1, int(np.floor((u + 1) / 2 * CLASSES))) for u in uniform(BATCH, 6001)])
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach().double() for p in model.parameters()]


def main():
    print(f"torch {torch.__version__}, CPU; CIFAR ResNet-18 width {WIDTH}, batch {BATCH}")
    for steps in (1, 2, 4):
        l32, p32 = run(torch.float32, steps)
        l64, p64 = run(torch.float64, steps)
        loss = max(abs(a - b) for a, b in zip(l32, l64))
        param = max((a - b).abs().max().item() for a, b in zip(p32, p64))
        print(f"after {steps} step(s): float32 vs float64: losses {loss:.2e} apart, parameters "
              f"{param:.2e}; float32 losses {[round(v, 7) for v in l32]}")


if __name__ == "__main__":
    main()
