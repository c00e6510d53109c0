#!/usr/bin/env python3
"""Loads the shipped catalogue entries (catalogue/*.json + .safetensors, written by
`cargo xtask train-catalogue`) into torch's own nn.Sequential twins of borch-vision's
digits_mlp / digits_cnn (strict load_state_dict), runs each manifest's sample in eval mode and
prints the largest difference from the expected output borch recorded. Fails above the
manifest's tolerance. Needs torch and safetensors.

    python3 tests/vision/catalogue_torch.py
"""
import hashlib
import json
import pathlib
import sys

import torch
import torch.nn as nn
from safetensors.torch import load_file

ROOT = pathlib.Path(__file__).resolve().parents[2] / "catalogue"


def build(arch):
    kw = arch["kwargs"]
    if arch["name"] == "digits_mlp":
        h, c = kw.get("hidden", 64), kw.get("num_classes", 10)
        return nn.Sequential(nn.Flatten(), nn.Linear(64, h), nn.ReLU(), nn.Linear(h, c))
    if arch["name"] == "digits_cnn":
        return nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2), nn.Flatten(), nn.Linear(512, kw.get("num_classes", 10)))
    raise SystemExit(f"unknown architecture {arch['name']}")


def main():
    ok = True
    for path in sorted(ROOT.glob("*.json")):
        m = json.loads(path.read_text())
        weights = path.parent / m["weights"]["file"]
        data = weights.read_bytes()
        assert len(data) == m["weights"]["bytes"], "size"
        assert hashlib.sha256(data).hexdigest() == m["weights"]["sha256"].lower(), "sha256"
        net = build(m["architecture"])
        net.load_state_dict(load_file(str(weights)), strict=True)
        net.eval()
        s = m["sample"]
        x = torch.tensor(s["input"], dtype=torch.float32).reshape(s["input_shape"])
        with torch.no_grad():
            y = net(x)
        assert list(y.shape) == s["output_shape"], "shape"
        diff = (y.flatten() - torch.tensor(s["expected_output"])).abs().max().item()
        good = diff <= s["tolerance"]
        ok &= good
        print(f"{m['name']}: torch {torch.__version__} reproduces borch's sample output, "
              f"max |diff| {diff:.2e} (tolerance {s['tolerance']:g}){'' if good else ' FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
