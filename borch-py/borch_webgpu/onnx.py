"""``torch.onnx``: ``export(model, args, f, input_names=, output_names=, dynamic_axes=,
opset_version=)`` forwards to borch-ts's ``onnx.exportOnnx`` (borch-onnx in the core: the
model's eval forward traced on ``args``, written as an ONNX opset 17 file) and writes the bytes
to ``f`` (a path on Pyodide's file system, or a binary file object). ``dynamic_axes`` is torch's
dict (``{"input": {0: "batch"}}`` or ``{"input": [0]}``); ``None`` makes dim 0 of every input
and of the output a dynamic ``batch``."""

from . import _bridge as b


def export(model, args, f, input_names=None, output_names=None, dynamic_axes=None,
           opset_version=None):
    options = {"input_names": input_names, "output_names": output_names,
               "dynamic_axes": dynamic_axes, "opset_version": opset_version}
    data = b.settle(lambda: b.bt.onnx.exportOnnx(model._js, b.to_js_value(args),
                                                 b.keywords(options)))
    _write(f, b.bytes_out(data))


def _write(f, data):
    if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
        with open(f, "wb") as out:
            out.write(data)
    else:
        f.write(data)


__all__ = ["export"]
