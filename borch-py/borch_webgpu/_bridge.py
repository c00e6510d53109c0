"""The bridge to borch's core: one interface, two implementations, chosen at import.

In Pyodide (``sys.platform == "emscripten"``), ``_bridge_pyodide``: every call goes to the npm
package borch-ts through Pyodide's JavaScript bridge, reads settle promises with ``run_sync``.
Natively, ``_bridge_native``: every call goes to the extension module ``borch._native`` (the
wheel ``borch-wgpu``), whose objects answer the same borch-ts names, reads return at once. The
rest of the package is the same Python on both, and uses only this module's names:

- ``bt``: the core's namespace as borch-ts's (``bt.zeros``, ``bt.nn.Linear``, ``bt.optim.SGD``)
- ``call(fn, args, kwargs)``, ``settle(make)``, ``attribute(owner, obj, name, what)``: calls,
  reads and attribute forwarding, errors raised as torch's classes (``reraise``, ``KINDS``)
- ``to_js_value``, ``from_js``, ``keywords``, ``JsObject``, ``JsException``, ``jsnull``,
  ``is_tensor``, ``class_name``: values across the bridge
- ``operator(name)``: the function of a Tensor operator (``__add__``) for torch's op ``name``
- ``proxy(fn)``, ``releasable(fn)``, ``iterable(obj)``, ``bytes_in(data)``, ``bytes_out(result)``:
  callbacks (``releasable``: one the core keeps and releases, a checkpoint's), a Python iterable
  the core iterates (an IterableDataset's samples) and byte buffers
- ``BACKEND`` (``"pyodide"`` or ``"native"``), ``cuda_notice()``

Here also what is the same on both: names (snake_case -> camelCase), dtypes, ``Size``, the
error classes. Nothing here computes a tensor op."""

import sys

class ReleasedError(RuntimeError):
    """A tensor used after its memory scope released it."""


class DeviceError(RuntimeError):
    """WebGPU is missing, or the device was lost."""


KINDS = {
    "RuntimeError": RuntimeError,
    "IndexError": IndexError,
    "KeyError": KeyError,
    "TypeError": TypeError,
    "ValueError": ValueError,
    "NotImplementedError": NotImplementedError,
    "ReleasedError": ReleasedError,
    "DeviceError": DeviceError,
    "RangeError": IndexError,
    "ImportError": ImportError,
}


def camel(name):
    """``log_softmax`` -> ``logSoftmax``; trailing underscores (in-place ops) stay."""
    stem = name.rstrip("_")
    head, *rest = stem.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest) + name[len(stem):]



class dtype:
    """torch's dtype objects: ``torch.float32``, ``torch.int64``, ``torch.bool``."""

    def __init__(self, name, floating):
        self.name = name
        self.is_floating_point = floating

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (type(self), (self.name, self.is_floating_point))

    def js_name(self):
        """The name borch-ts takes (``"float32"``)."""
        return self.name


class MissingDtype(dtype):
    """A torch dtype borch does not have (``torch.float64``, ``torch.int32``, ...): it exists so that
    code naming it imports, and any use of it raises a TypeError naming the dtypes borch has."""

    def js_name(self):
        raise TypeError(
            f"borch has no dtype torch.{self.name}: its dtypes are torch.float32, torch.int64 and "
            "torch.bool (WebGPU has no 64-bit floats; use torch.float32 for floating point, "
            "torch.int64 for integers)"
        )


float32 = dtype("float32", True)
int64 = dtype("int64", False)
bool_ = dtype("bool", False)
DTYPES = {"float32": float32, "int64": int64, "bool": bool_}
# torch's other dtypes, each refused on use (MissingDtype.js_name).
float64 = MissingDtype("float64", True)
float16 = MissingDtype("float16", True)
bfloat16 = MissingDtype("bfloat16", True)
int32 = MissingDtype("int32", False)
int16 = MissingDtype("int16", False)
int8 = MissingDtype("int8", False)
uint8 = MissingDtype("uint8", False)


class Size(tuple):
    """torch's ``torch.Size``: a tuple of ints."""

    def __repr__(self):
        return f"torch.Size({list(self)!r})"


if sys.platform == "emscripten":
    from ._bridge_pyodide import *  # noqa: E402,F401,F403
else:
    from ._bridge_native import *  # noqa: E402,F401,F403

from ._tensor import OPERATORS, Tensor  # noqa: E402  (the Tensor class uses the helpers above)

# The operators come from the backend (natively each is one kept method call).
for _dunder, _name in OPERATORS.items():
    setattr(Tensor, _dunder, operator(_name))  # noqa: F405
