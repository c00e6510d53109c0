"""borch_webgpu: ``import borch_webgpu as torch`` in Pyodide. Every name forwards to the npm
package borch-ts (borch's Rust core on WebGPU): ``torch.zeros`` is ``borch_ts.zeros``,
``t.log_softmax(dim=1)`` is ``t.logSoftmax({dim: 1})``. Nothing is computed in Python."""

from . import _bridge
from ._bridge import DeviceError, ReleasedError, Size, dtype
from ._device import device
from ._grad import enable_grad, no_grad, scope, set_grad_enabled
from ._tensor import Tensor
from ._creation import tensor
from ._numpy import as_tensor, from_numpy
from ._compile import compile
from ._generator import Generator
from . import autograd, cuda, nn, onnx, optim
from . import ao
from .serialization import load, load_checkpoint, save, save_checkpoint
from . import vision
from . import utils

__version__ = "0.1.0"

float32 = _bridge.float32
float = _bridge.float32
int64 = _bridge.int64
long = _bridge.int64
bool = _bridge.bool_
# torch's other dtypes: importable, refused on use with a TypeError naming borch's three.
float64 = double = _bridge.float64
float16 = half = _bridge.float16
bfloat16 = _bridge.bfloat16
int32 = int = _bridge.int32
int16 = short = _bridge.int16
int8 = _bridge.int8
uint8 = _bridge.uint8

__all__ = [
    "DeviceError",
    "Generator",
    "ao",
    "autograd",
    "onnx",
    "compile",
    "ReleasedError",
    "Size",
    "Tensor",
    "cuda",
    "device",
    "dtype",
    "as_tensor",
    "enable_grad",
    "from_numpy",
    "load",
    "load_checkpoint",
    "nn",
    "no_grad",
    "optim",
    "save",
    "save_checkpoint",
    "scope",
    "set_grad_enabled",
    "tensor",
    "utils",
    "vision",
]


def __getattr__(name):
    """``torch.name`` forwarded to ``borch_ts[camel(name)]`` (creation functions, ops,
    ``manual_seed``, ``keep_alive``, ``memory``, ``pooled``, ``empty_cache``, ...)."""
    return _bridge.attribute(None, _bridge.bt, name, f"module '{__name__}'")
