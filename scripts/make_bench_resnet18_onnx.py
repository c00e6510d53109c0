#!/usr/bin/env python3
"""Writes the ONNX file of the browser benchmark's CIFAR ResNet-18 eval forward (ONNX Runtime
Web's side) with borch's initial weights:

    cargo xtask bench resnet18 --export-weights W.json [--width 64]   # borch's seed-0 state_dict
    pip install onnx && python3 scripts/make_bench_resnet18_onnx.py --weights W.json --out M.onnx

`cargo xtask bench browser --cases resnet18` runs both into $CARGO_TARGET_DIR/bench-resnet18/
(not committed: the full-width file is 45 MB). The weights are loaded (strict) into the torch
definition of scripts/bench_resnet18_torch.py, whose logits on the check input borch wrote must
agree with borch's within 1e-4 (relative to the largest logit) before anything is exported — so
the torch network is borch_vision's. Then torch.onnx (the TorchScript exporter, opset 17, batch
symbolic, constant folding: eval BatchNorm folded into the convolutions, as ORT's own graph
optimizer would) writes the model: input `x` [batch, 3, 32, 32], output `logits` [batch, 10]
(scripts/bench_onnx_export.py, shared with make_bench_vit_onnx.py).
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_onnx_export import check_and_export  # noqa: E402
from bench_resnet18_torch import CifarResNet18  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--weights", required=True, help="the manifest `xtask bench resnet18 --export-weights` wrote")
    p.add_argument("--out", required=True)
    args = p.parse_args()

    with open(args.weights) as f:
        width = json.load(f)["width"]
    check_and_export(CifarResNet18(10, width), args.weights, args.out)
    print(f"(CIFAR ResNet-18, width {width})")


if __name__ == "__main__":
    main()
