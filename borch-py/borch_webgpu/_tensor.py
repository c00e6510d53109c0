"""``Tensor``: a Python handle on a borch-ts Tensor. Every method forwards by name
(``__getattr__``: snake_case -> camelCase); operators map to torch's names through one table;
reads settle the JavaScript promise with ``run_sync``; subscripts go to the core's ``index``
(``index_async`` for a boolean mask, settled) and ``__setitem__`` (borch-ts's ``setitem``)."""

from . import _bridge as b
from . import _device
from ._grad import no_grad

# Python operator -> torch's name of the op (torch/_tensor.py defines the same correspondences).
OPERATORS = {
    "__add__": "add",
    "__radd__": "add",
    "__sub__": "sub",
    "__rsub__": "rsub",
    "__mul__": "mul",
    "__rmul__": "mul",
    "__truediv__": "div",
    "__floordiv__": "floor_divide",
    "__mod__": "remainder",
    "__matmul__": "matmul",
    "__pow__": "pow",
    "__eq__": "eq",
    "__ne__": "ne",
    "__lt__": "lt",
    "__le__": "le",
    "__gt__": "gt",
    "__ge__": "ge",
    "__neg__": "neg",
    "__abs__": "abs",
    "__invert__": "bitwise_not",
    "__and__": "bitwise_and",
    "__rand__": "bitwise_and",
    "__or__": "bitwise_or",
    "__ror__": "bitwise_or",
    "__xor__": "bitwise_xor",
    "__rxor__": "bitwise_xor",
}


class Tensor:
    """torch's ``Tensor``, forwarding to a borch-ts Tensor (``self._js``)."""

    __slots__ = ("_js",)
    __hash__ = object.__hash__

    def __init__(self, js_tensor):
        object.__setattr__(self, "_js", js_tensor)

    def __getattr__(self, name):
        return b.attribute(self, self._js, name, "'Tensor' object")

    def __setattr__(self, name, value):
        if isinstance(getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)  # a Python property's setter (t.data = ...)
            return
        try:
            setattr(self._js, b.camel(name), b.to_js_value(value))
        except b.JsException as e:  # t.requires_grad = True on an int tensor: torch's RuntimeError
            b.reraise(e)

    # Properties torch spells differently from a method call.
    @property
    def shape(self):
        return b.Size(self._js.shape)

    def size(self, *args, **kwargs):
        r = b.call(self._js.size, args, kwargs)
        return b.Size(r) if isinstance(r, tuple) else r

    @property
    def dtype(self):
        return b.DTYPES[self._js.dtype]

    @property
    def ndim(self):
        return self.dim()

    @property
    def T(self):
        return self.permute(*reversed(range(self.dim())))

    # Devices: borch has one, WebGPU (_device.py); torch's device idioms keep the tensor there.
    @property
    def device(self):
        return _device.WEBGPU

    def to(self, *args, **kwargs):
        """torch's ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(other)``: a device
        keeps the tensor where it is; a dtype is the core's ``to(dtype)``."""
        wanted = _device.requested_dtype(args, kwargs, b.dtype, Tensor)
        if wanted is None or wanted is self.dtype:
            return self
        return b.call(self._js.to, (wanted,), {})

    def cpu(self, memory_format=None):
        """The tensor itself: it stays on WebGPU, and its reads (item, tolist, numpy) work there."""
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """The tensor itself (borch's one device; ``torch.cuda.is_available()`` is False)."""
        return self

    def double(self, memory_format=None):
        return self.to(b.float64)  # refused: borch has no float64

    def half(self, memory_format=None):
        return self.to(b.float16)  # refused: borch has no float16

    @property
    def data(self):
        """torch's ``t.data``: the same storage, detached from autograd (the core's ``detach``)."""
        return self.detach()

    @data.setter
    def data(self, value):
        """torch's ``t.data = value`` (``p.data = p.data - lr * p.grad``): value's numbers copied
        into this tensor's storage outside autograd. torch also takes another shape (it rebinds
        the storage); borch refuses that."""
        if tuple(value.shape) != tuple(self.shape):
            raise RuntimeError(
                f"t.data = value: value's shape {tuple(value.shape)} is not the tensor's "
                f"{tuple(self.shape)} (borch copies into the tensor's storage; it cannot rebind it)"
            )
        with no_grad():
            self.copy_(value)

    @property
    def grad_fn(self):
        """torch's ``grad_fn``: None for a leaf (made by the user, or not requiring grad), else the
        node of the op that made it (``GradFn``; its name is the core's)."""
        return None if self._js.isLeaf else GradFn(self)

    # Reads: the promise settled with run_sync (the page must use runPythonAsync).
    def item(self):
        """A Python float for a float tensor (JavaScript's 1 is torch's 1.0), else int/bool."""
        value = b.settle(self._js.item)
        return float(value) if self._js.dtype == "float32" else value

    def tolist(self):
        r = b.settle(self._js.toArray)
        r = r.to_py() if hasattr(r, "to_py") else r
        return _floats(r) if self._js.dtype == "float32" else r

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __bool__(self):
        return bool(self.item())

    def __index__(self):
        return int(self.item())

    def __repr__(self):
        return b.settle(self._js.repr)

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        return iter(self.unbind(0))

    def backward(self, gradient=None, retain_graph=False):
        try:
            self._js.backward(b.to_js_value(gradient), retain_graph)
        except b.JsException as e:
            b.reraise(e)

    def numpy(self, *, force=False):
        """torch's ``numpy()``: the numbers read back (``tolist()``) as a numpy array of this dtype;
        needs numpy loaded in this Pyodide."""
        try:
            import numpy
        except ModuleNotFoundError:
            how = ("pip install numpy" if b.BACKEND == "native" else "this Pyodide has not "
                   "loaded it: await pyodide.loadPackage('numpy') or micropip.install('numpy')")
            raise RuntimeError(
                f"Tensor.numpy() needs numpy ({how}); tolist() reads the same numbers without it"
            ) from None
        if self._js.requiresGrad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return numpy.asarray(self.tolist(), dtype=self._js.dtype)

    def __array__(self, dtype=None, copy=None):
        """numpy's protocol (``numpy.asarray(t)``): ``numpy()``, as torch's ``__array__``."""
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    # Subscripts: the core's `index` interprets them (borch-tensor/src/ops/indexing.rs); a
    # boolean mask (t[mask]: the result's shape depends on its values) goes to `indexAsync`, whose
    # promise b.call settles with run_sync.
    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        masked = any(isinstance(i, Tensor) and i._js.dtype == "bool" for i in items)
        method = self._js.indexAsync if masked else self._js.index
        return b.call(method, ([subscript(i) for i in items],), {})

    # A repeats tensor is read back to size the result: borch-ts's `repeatInterleaveAsync`, whose
    # promise b.call settles with run_sync; an int repeats is `repeatInterleave`'s, synchronous.
    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        method = self._js.repeatInterleave if isinstance(repeats, int) else self._js.repeatInterleaveAsync
        return b.call(method, (repeats, dim), {"output_size": output_size} if output_size is not None else {})

    # t[key] = value: the catalog's __setitem__ (borch-ts's `setitem`), in place.
    def __setitem__(self, key, value):
        items = key if isinstance(key, tuple) else (key,)
        b.call(self._js.setitem, ([subscript(i) for i in items], value), {})


class GradFn:
    """A tensor's ``grad_fn``: the node of the op that made it. borch-ts does not hand the node
    itself to JavaScript; its name is the one the core prints (``grad_fn=<AddBackward0>`` in
    ``repr(tensor)``, read back on ``name()``/``repr``)."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def name(self):
        """The core's name of the op (``AddBackward0``), from the tensor's repr."""
        return repr(self._tensor).rpartition("grad_fn=<")[2].partition(">")[0]

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"


def subscript(item):
    """One subscript item in the core's encoding: a slice as [start, stop, step], ... as '...'."""
    if isinstance(item, slice):
        return [item.start, item.stop, item.step]
    if item is Ellipsis:
        return "..."
    return item



def _rtruediv(self, other):
    # torch/_tensor.py: __rtruediv__ is `self.reciprocal() * other`.
    return self.reciprocal() * other


def _rpow(self, other):
    # torch/_tensor.py: __rpow__ is `torch.pow(other, self)`.
    return b.call(b.bt.pow, (other, self), {})


Tensor.__rtruediv__ = _rtruediv
Tensor.__rpow__ = _rpow


def _floats(x):
    """Nested lists of JavaScript numbers as Python floats, as torch's ``tolist()`` gives them."""
    if isinstance(x, list):
        return [_floats(i) for i in x]
    return float(x)
