#!/usr/bin/env python3
"""`cargo xtask demo` in torch, for comparison: the same seed, split, initialisation order,
shuffles and random crops, model, cross-entropy and Adam. Prints the mean loss per epoch and the
held-out accuracy, as the demo does.

    python3 scripts/demo_torch.py              # the CNN run: `cargo xtask demo`
    python3 scripts/demo_torch.py --model mlp  # `cargo xtask demo --model mlp`

The CNN run is torchvision's way: a Dataset of (1, 8, 8) images ÷ 16 whose training copy applies
`transforms.RandomCrop(8, padding=1)`, `random_split(..., generator=torch.Generator().manual_seed(0))`,
`DataLoader(batch_size=64, shuffle=True)`, the model catalog's `digits_cnn` written as torch's
`nn.Sequential`, Adam lr 1e-2, 15 epochs.
"""
import argparse
import gzip
import pathlib
import time

import numpy as np
import torch
from torch import nn

LR, BATCH, SEED, HELD_OUT = 1e-2, 64, 0, 360


class Digits(torch.utils.data.Dataset):
    """The bundled digits as borch-vision's `datasets::Digits`: (1, 8, 8) float32 ÷ 16, int label."""

    def __init__(self, rows, transform=None):
        self.x = torch.tensor(rows[:, :64], dtype=torch.float32).view(-1, 1, 8, 8) / 16
        self.y = [int(v) for v in rows[:, 64]]
        self.transform = transform

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        img = self.x[i]
        return (self.transform(img) if self.transform else img), self.y[i]


def cnn(rows, epochs):
    from torchvision import transforms

    plain = Digits(rows)
    n = len(plain)
    train_idx, test = torch.utils.data.random_split(
        plain, [n - HELD_OUT, HELD_OUT], generator=torch.Generator().manual_seed(SEED)
    )
    train = torch.utils.data.Subset(Digits(rows, transforms.RandomCrop(8, padding=1)), train_idx.indices)
    torch.manual_seed(SEED)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 4 * 4, 10),
    )
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loader = torch.utils.data.DataLoader(train, batch_size=BATCH, shuffle=True)
    start = time.perf_counter()
    model.train()
    for epoch in range(1, epochs + 1):
        total = 0.0
        for x, y in loader:
            opt.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            total += loss.item() * len(y)
        print(f"epoch {epoch:>2}: loss {total / len(train):.4f}")
    seconds = time.perf_counter() - start
    model.eval()
    with torch.no_grad():
        x, y = zip(*[test[i] for i in range(len(test))])
        acc = (model(torch.stack(x)).argmax(1) == torch.tensor(y)).float().mean().item()
    print(f"accuracy: {acc * 100:.2f}% held out ({len(test)} images); training {seconds:.1f} s [torch {torch.__version__}, CPU]")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["cnn", "mlp"], default="cnn")
    parser.add_argument("--epochs", type=int)
    args = parser.parse_args()
    path = pathlib.Path(__file__).resolve().parent.parent / "data/digits/digits.csv.gz"
    rows = np.loadtxt(gzip.open(path), delimiter=",", dtype=np.int64)
    if args.model == "cnn":
        return cnn(rows, args.epochs or 15)
    mlp(rows, args.epochs or 30)


def mlp(rows, epochs):
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
    for epoch in range(1, epochs + 1):
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
