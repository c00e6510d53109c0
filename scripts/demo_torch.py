#!/usr/bin/env python3
"""`cargo xtask demo` in torch, for comparison: the same seed, split, initialisation order,
per-epoch shuffles, model (64→128→10, ReLU), cross-entropy and Adam (lr 1e-2, batch 64, 30
epochs). Prints the mean loss per epoch and the held-out accuracy, as the demo does; on the CPU
the losses agree with borch's to the printed precision.

    python3 scripts/demo_torch.py
"""
import gzip
import pathlib
import time

import numpy as np
import torch

EPOCHS, LR, BATCH, SEED, HELD_OUT = 30, 1e-2, 64, 0, 360


def main():
    path = pathlib.Path(__file__).resolve().parent.parent / "data/digits/digits.csv.gz"
    rows = np.loadtxt(gzip.open(path), delimiter=",", dtype=np.int64)
    x = torch.tensor(rows[:, :64], dtype=torch.float32) / 16
    y = torch.tensor(rows[:, 64])
    torch.manual_seed(SEED)
    order = torch.randperm(len(rows))
    n_train = len(rows) - HELD_OUT
    train, test = order[:n_train], order[n_train:]
    xtr, ytr, xte, yte = x[train], y[train], x[test], y[test]

    torch.manual_seed(SEED)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    start = time.perf_counter()
    for epoch in range(1, EPOCHS + 1):
        perm = torch.randperm(n_train)
        total = 0.0
        for b in range(0, n_train, BATCH):
            idx = perm[b : b + BATCH]
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(model(xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch:>2}: loss {total / n_train:.4f}")
    seconds = time.perf_counter() - start
    with torch.no_grad():
        acc = (model(xte).argmax(1) == yte).float().mean().item()
    print(f"accuracy: {acc * 100:.2f}% held out ({len(test)} images); training {seconds:.1f} s [torch {torch.__version__}, CPU]")


if __name__ == "__main__":
    main()
