"""Shared by the browser bench's ONNX writers (make_bench_resnet18_onnx.py, make_bench_vit_onnx.py):
load the weights an xtask bench wrote with `--export-weights PATH` (xtask/src/bench_export.rs: PATH,
a JSON manifest of [name, shape, offset in floats], and PATH.bin, little-endian float32) into a
torch network (strict), check that its logits on the manifest's check input equal borch's within
`tol` relative to the largest logit, then export it with torch.onnx (the TorchScript exporter,
opset 17, batch symbolic, constant folding) and read it back with the ONNX checker."""
import json
import warnings
from pathlib import Path

import numpy as np
import torch


def load_weights(model, path):
    """Loads PATH / PATH.bin into `model` (strict; non-float entries cast to the model's dtype).
    Returns the manifest."""
    with open(path) as f:
        manifest = json.load(f)
    data = torch.from_numpy(np.fromfile(path + ".bin", dtype="<f4"))
    state = {}
    for name, shape, offset in manifest["tensors"]:
        n = int(np.prod(shape)) if shape else 1
        state[name] = data[offset : offset + n].reshape(shape).clone()
    ref = model.state_dict()
    for name in list(state):
        if ref[name].dtype != torch.float32:
            state[name] = state[name].to(ref[name].dtype)
    model.load_state_dict(state, strict=True)
    return manifest


def check_and_export(model, weights, out, tol=1e-4):
    """Loads `weights` into `model`, checks the logits against borch's, writes `out` (input `x`,
    output `logits`, batch symbolic) and prints what it wrote. Returns the manifest."""
    manifest = load_weights(model, weights)
    model.eval()
    check = manifest["check"]
    data = torch.from_numpy(np.fromfile(weights + ".bin", dtype="<f4"))
    shape = check["input_shape"]
    x = data[check["input_offset"] : check["input_offset"] + int(np.prod(shape))].reshape(shape)
    with torch.no_grad():
        logits = model(x)
    borch = torch.tensor(check["logits"]).reshape(logits.shape)
    scale = max(1.0, borch.abs().max().item())
    diff = (logits - borch).abs().max().item()
    print(f"torch vs borch logits on the check input {list(shape)}: max abs diff {diff:.2e} (scale {scale:.3g})")
    if not diff <= tol * scale:
        raise SystemExit(f"torch's network with borch's weights gives other logits (max abs diff {diff})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model, (x,), out, dynamo=False, opset_version=17, do_constant_folding=True,
            input_names=["x"], output_names=["logits"],
            dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}},
        )
    import onnx

    m = onnx.load(out)
    onnx.checker.check_model(m)
    ops = sorted({node.op_type for node in m.graph.node})
    print(f"wrote {out} ({Path(out).stat().st_size} bytes, ops {', '.join(ops)})")
    return manifest
