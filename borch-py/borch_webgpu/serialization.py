"""``torch.save(state_dict, f)`` / ``torch.load(f)``: forward to borch-ts's ``save`` / ``load``
(safetensors bytes, docs/checkpoints.md). ``f`` is a path on Pyodide's file system, a binary
file object (``io.BytesIO``), or, for ``load``, the bytes themselves. ``save`` reads the tensors
back from the GPU: borch-ts's promise is settled as ``item()`` settles its read."""

from pyodide.ffi import to_js

from . import _bridge as b
from .onnx import _write


def save(obj, f):
    data = b.settle(lambda: b.bt.save(b.to_js_value(obj)))
    _write(f, data.to_bytes())


def load(f, map_location=None, *, weights_only=None):
    return b.call(b.bt.load, (to_js(_read(f)),), {})


def _read(f):
    if isinstance(f, (bytes, bytearray, memoryview)):
        return bytes(f)
    if isinstance(f, str) or hasattr(f, "__fspath__"):
        with open(f, "rb") as source:
            return source.read()
    return f.read()


__all__ = ["load", "save"]
