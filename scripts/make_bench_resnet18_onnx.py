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
optimizer would) writes the model: input `x` [batch, 3, 32, 32], output `logits` [batch, 10].
"""
import argparse
import json
import sys
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_resnet18_torch import CifarResNet18, load_weights  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--weights", required=True, help="the manifest `xtask bench resnet18 --export-weights` wrote")
    p.add_argument("--out", required=True)
    args = p.parse_args()

    with open(args.weights) as f:
        width = json.load(f)["width"]
    model = CifarResNet18(10, width)
    manifest = load_weights(model, args.weights)
    model.eval()
    check = manifest["check"]
    data = torch.from_numpy(__import__("numpy").fromfile(args.weights + ".bin", dtype="<f4"))
    shape = check["input_shape"]
    n = shape[0] * shape[1] * shape[2] * shape[3]
    x = data[check["input_offset"] : check["input_offset"] + n].reshape(shape)
    with torch.no_grad():
        logits = model(x)
    borch = torch.tensor(check["logits"]).reshape(logits.shape)
    scale = max(1.0, borch.abs().max().item())
    diff = (logits - borch).abs().max().item()
    print(f"torch vs borch logits on the check input: max abs diff {diff:.2e} (scale {scale:.3g})")
    if not diff <= 1e-4 * scale:
        raise SystemExit(f"torch's network with borch's weights gives other logits (max abs diff {diff})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model, (x,), args.out, dynamo=False, opset_version=17, do_constant_folding=True,
            input_names=["x"], output_names=["logits"],
            dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}},
        )
    import onnx

    m = onnx.load(args.out)
    onnx.checker.check_model(m)
    ops = sorted({node.op_type for node in m.graph.node})
    print(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes, width {width}, ops {', '.join(ops)})")


if __name__ == "__main__":
    main()
