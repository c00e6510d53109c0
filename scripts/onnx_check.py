#!/usr/bin/env python3
"""The ONNX checker (pip `onnx`, `onnx.checker.check_model(full_check=True)`) over every
model borch-onnx wrote to a folder (default target/onnx-models). Exit 0 when all pass, 1 when
one fails, 2 (with a line saying NOT RUN) when python's onnx is not installed."""
import pathlib
import sys

folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/onnx-models")
try:
    import onnx
except ImportError:
    print("onnx checker: NOT RUN (python's onnx package is not installed: pip install onnx)")
    sys.exit(2)
files = sorted(folder.glob("*.onnx"))
if not files:
    print(f"onnx checker: no .onnx files in {folder}")
    sys.exit(1)
bad = 0
for f in files:
    try:
        model = onnx.load(str(f))
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # the checker's own exception types vary across versions
        bad += 1
        print(f"onnx checker: {f.name}: {e}")
print(f"onnx checker (onnx {onnx.__version__}, full_check): {len(files) - bad} / {len(files)} models pass")
sys.exit(1 if bad else 0)
