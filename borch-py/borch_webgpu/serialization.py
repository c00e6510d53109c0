"""``torch.save(state_dict, f)`` / ``torch.load(f)``: forward to borch-ts's ``save`` / ``load``
(safetensors bytes, docs/checkpoints.md). ``f`` is a path on Pyodide's file system, a binary
file object (``io.BytesIO``), or, for ``load``, the bytes themselves. ``save`` reads the tensors
back from the GPU: borch-ts's promise is settled as ``item()`` settles its read.

``save_checkpoint`` / ``load_checkpoint`` are borch extensions (torch itself pickles a dict of
state dicts): borch-ts's ``saveCheckpoint`` / ``loadCheckpoint``, the model, optimizer, scheduler
(or None), epoch and torch's RNG state in one safetensors file."""

from . import _bridge as b
from .onnx import _write


def save(obj, f):
    data = b.settle(lambda: b.bt.save(b.to_js_value(obj)))
    _write(f, b.bytes_out(data))


def load(f, map_location=None, *, weights_only=None):
    return b.call(b.bt.load, (b.bytes_in(_read(f)),), {})


def save_checkpoint(model, optimizer, scheduler, epoch, f):
    data = b.settle(lambda: b.bt.saveCheckpoint(
        *[b.to_js_value(a) for a in (model, optimizer, scheduler, epoch)]))
    _write(f, b.bytes_out(data))


def load_checkpoint(f, model, optimizer, scheduler=None):
    return b.call(b.bt.loadCheckpoint, (b.bytes_in(_read(f)), model, optimizer, scheduler), {})


def _read(f):
    if isinstance(f, (bytes, bytearray, memoryview)):
        return bytes(f)
    if isinstance(f, str) or hasattr(f, "__fspath__"):
        with open(f, "rb") as source:
            return source.read()
    return f.read()


__all__ = ["load", "load_checkpoint", "save", "save_checkpoint"]
