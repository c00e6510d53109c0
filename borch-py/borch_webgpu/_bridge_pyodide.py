"""The Pyodide side of ``_bridge`` (its docstring lists the interface): borch-ts through
Pyodide's JavaScript bridge: values (Python <-> JavaScript), errors (a JavaScript error's
``kind`` -> the Python exception torch raises) and reads (a promise settled with Pyodide's
``run_sync``). Nothing here computes a tensor op."""

import os
from inspect import isawaitable

import js
from pyodide.code import run_js
from pyodide.ffi import JsException, JsProxy, create_proxy, run_sync, to_js

from ._bridge import KINDS, camel, dtype

BACKEND = "pyodide"

__all__ = [
    "BACKEND", "JsException", "JsObject", "attribute", "bt", "bytes_in", "bytes_out", "call",
    "class_name", "cuda_notice", "forwarder", "from_js", "is_tensor", "iterable", "jsnull",
    "keywords", "operator", "proxy", "releasable", "reraise", "settle", "to_js_value",
]

try:
    from pyodide.ffi import can_run_sync
except ImportError:  # older Pyodide
    can_run_sync = None

try:
    from pyodide.ffi import jsnull  # JavaScript's null (a forward's None item)
except ImportError:  # older Pyodide: null converts to None
    jsnull = None



SYNC_MESSAGE = (
    "borch_webgpu reads tensors back from the GPU (item(), tolist(), float(), bool(), repr, "
    "print, and the ops whose result's shape depends on the values: nonzero, unique, t[mask]) "
    "without await, through pyodide.ffi.run_sync, which only works when the page entered "
    "Python with pyodide.runPythonAsync(...): this code was run with pyodide.runPython(...); "
    "use runPythonAsync"
)


LOAD_MESSAGE = (
    "import borch_webgpu imports borch-ts with JavaScript's import() and opens the WebGPU device "
    "(await init()), settled through pyodide.ffi.run_sync, which only works when the page entered "
    "Python with pyodide.runPythonAsync(...): this import was run with pyodide.runPython(...); "
    "use runPythonAsync (or register borch-ts as the JS module 'borch_ts' after init())"
)

# Where borch-ts is when the page did not register it: BORCH_TS_URL (an environment variable:
# loadPyodide({ env: { BORCH_TS_URL } }) or os.environ before the import), resolved against the
# page's URL; by default the page's node_modules/borch-ts (npm install borch-ts beside the page).
DEFAULT_BORCH_TS_URL = "node_modules/borch-ts/index.js"

# JavaScript's dynamic import() of a URL resolved against the page (or a worker's script), its
# failure an ImportError naming the URL and how to set it.
IMPORT_URL = run_js(
    """(url) => {
  const href = new URL(url, globalThis.document?.baseURI ?? globalThis.location.href).href;
  return import(href).catch((e) => {
    const err = new Error(`borch_webgpu could not import borch-ts from ${href} (${e.message}); `
      + 'set BORCH_TS_URL to the URL of its index.js: loadPyodide({ env: { BORCH_TS_URL } }) or '
      + 'os.environ["BORCH_TS_URL"] before the import');
    err.kind = 'ImportError';
    throw err;
  });
}"""
)


def load_borch_ts(url):
    """borch-ts imported from ``url`` (JavaScript's ``import()``) with its device opened
    (``init()``), both settled with ``run_sync``: what a page's ``registerJsModule('borch_ts',
    borch)`` after ``await init()`` does, done from Python."""
    module = settle(lambda: IMPORT_URL(url), LOAD_MESSAGE)
    settle(module.init, LOAD_MESSAGE)
    return module


def reraise(e):
    """Raise the Python exception named by a JavaScript error's ``kind`` (torch's class)."""
    err = getattr(e, "js_error", e)
    kind = getattr(err, "kind", None) or getattr(err, "name", None)
    message = getattr(err, "message", None) or str(e)
    raise KINDS.get(kind, RuntimeError)(message) from None


def call(fn, args, kwargs):
    """Call the JavaScript function ``fn``: arguments converted, keyword arguments as one trailing
    plain object (bound by the core's signature table), the result wrapped back. A Promise (an
    async entry of the catalog: nonzero, unique, a boolean mask subscript) is settled with
    ``run_sync``, so the call is synchronous as torch's."""
    js_args = [to_js_value(a) for a in args]
    # A dict given positionally is an argument (torch: "must be Tensor, not dict"), not the
    # keywords: the trailing object is, so one is sent whenever the last argument is a dict.
    if kwargs or (args and isinstance(args[-1], dict)):
        js_args.append(keywords(kwargs))
    try:
        result = fn(*js_args)
    except JsException as e:
        reraise(e)
    # Pyodide hands a returned Promise over as an awaitable (a PyodideFuture).
    if isawaitable(result):
        result = settle(lambda: result)
    return from_js(result)


def keywords(kwargs):
    return to_js(
        {k: to_js_value(v) for k, v in kwargs.items()},
        dict_converter=js.Object.fromEntries,
    )


def settle(make_promise, sync_message=SYNC_MESSAGE):
    """The value of the promise ``make_promise()`` returns, without await (``run_sync``)."""
    if can_run_sync is not None and not can_run_sync():
        raise RuntimeError(sync_message)
    try:
        return run_sync(make_promise())
    except JsException as e:
        reraise(e)
    except RuntimeError as e:
        if "stack switch" in str(e) or "synchronous" in str(e):
            raise RuntimeError(sync_message) from None
        raise


def to_js_value(x):
    """A Python argument as JavaScript: wrappers -> their JavaScript object, lists and tuples ->
    arrays, dicts -> plain objects, dtypes -> their name."""
    js_obj = getattr(x, "_js", None)
    if js_obj is not None:
        return js_obj
    if isinstance(x, dtype):
        return x.js_name()
    if isinstance(x, float) and x.is_integer():
        return bt.asFloat(x)
    if isinstance(x, (list, tuple)) or type(x).__name__ == "generator":
        return to_js([to_js_value(i) for i in x])
    if isinstance(x, dict):
        return keywords(x)
    return x


def is_tensor(x):
    return js.Reflect.has(x, "__borchId")


def from_js(r):
    """A JavaScript result as Python: null -> None, Tensor objects -> Tensor, arrays -> tuples,
    plain objects -> dicts, other objects (nn modules, optimizers) -> a forwarding wrapper."""
    # Pyodide's jsnull is not a JsProxy: look for it first.
    if jsnull is not None and r is jsnull:
        return None
    if not isinstance(r, JsProxy):
        return r
    if is_tensor(r):
        return Tensor(r)
    if js.Reflect.has(r, "__borchModule"):
        from .nn import wrap_module

        return wrap_module(r)
    if js.Array.isArray(r):
        return tuple(from_js(i) for i in r)
    if r.constructor == js.Object:
        return {k: from_js(v) for k, v in js.Object.entries(r)}
    if callable(r):
        return r
    return JsObject(r)


def forwarder(fn):
    def forward(*args, **kwargs):
        return call(fn, args, kwargs)

    return forward


def attribute(owner, js_obj, name, what):
    """``owner.name`` forwarded: ``js_obj[camel(name)]``, a method as a forwarding function."""
    js_name = camel(name)
    missing = name.startswith("__") or not js.Reflect.has(js_obj, js_name)
    if missing:
        raise AttributeError(
            f"{what} has no attribute '{name}' — borch-ts does not have '{js_name}'"
        )
    value = getattr(js_obj, js_name)
    if callable(value) and not is_tensor(value):
        forward = forwarder(value)
        forward.__name__ = name  # torch's: torch.add.__name__ is 'add'
        return forward
    return from_js(value)


def operator(name):
    """``Tensor.__add__`` and the other operators: borch-ts's method of torch's op ``name``."""
    js_name = camel(name)

    def op(self, *other):
        return call(getattr(self._js, js_name), other, {})

    return op


class JsObject:
    """A borch-ts object (an optimizer, a scheduler): attributes forward by name."""

    def __init__(self, js_obj):
        object.__setattr__(self, "_js", js_obj)

    def __getattr__(self, name):
        return attribute(self, self._js, name, f"'{type(self).__name__}' object")

    def __getitem__(self, key):
        """``obj[key]``: borch-ts's ``at(index)`` (Sequential, ModuleList) or ``get(key)``
        (ModuleDict, a param group)."""
        return call(self._subscript("at") or self._subscript("get"), (key,), {})

    def __setitem__(self, key, value):
        """``group[key] = value``: borch-ts's ``set(key, value)``."""
        call(self._subscript("set"), (key, value), {})

    def __len__(self):
        """``len(obj)``: borch-ts's ``length`` (a DataLoader's over an IterableDataset without
        ``__len__`` throws torch's TypeError)."""
        if not js.Reflect.has(self._js, "length"):
            raise TypeError(f"object of type '{type(self).__name__}' has no len()")
        try:
            return self._js.length
        except JsException as e:
            reraise(e)

    def _subscript(self, method):
        if js.Reflect.has(self._js, method):
            return getattr(self._js, method)
        if method == "at":
            return None
        raise TypeError(f"'{type(self).__name__}' object does not support item access")


def proxy(fn):
    """A Python callable as a JavaScript function (kept alive until destroyed)."""
    return create_proxy(fn)


def iterable(obj):
    """A Python iterable (``__iter__``, ``__len__``) as a JavaScript one: Pyodide's proxy has
    ``[Symbol.iterator]`` and a ``length`` that calls ``len`` (kept alive until destroyed)."""
    return create_proxy(obj)


# A JavaScript function over a callable's proxy whose ``borchRelease`` destroys the proxy: the
# core calls it when it drops the function (a checkpoint's, with its node).
_RELEASABLE = run_js(
    "(py) => Object.assign((...args) => py(...args), { borchRelease: () => py.destroy() })"
)


def releasable(fn):
    """A Python callable as a function the core may call later (a checkpoint's recompute in the
    backward), released when the core drops it."""
    return _RELEASABLE(create_proxy(fn))


def bytes_in(data):
    """Python bytes as the Uint8Array borch-ts takes."""
    return to_js(bytes(data))


def bytes_out(result):
    """A Uint8Array borch-ts returned, as Python bytes."""
    return result.to_bytes()


def class_name(js_obj):
    """The torch class name of a borch-ts module object (``Linear``)."""
    return js_obj.constructor.name


def cuda_notice():
    """``torch.device('cuda')`` means the WebGPU device; in a page nothing is printed."""


try:
    import borch_ts as bt  # registered by the page: pyodide.registerJsModule('borch_ts', module)
except ModuleNotFoundError:  # not registered: borch_webgpu imports it and opens the device itself
    bt = load_borch_ts(os.environ.get("BORCH_TS_URL", DEFAULT_BORCH_TS_URL))

from ._tensor import Tensor  # noqa: E402  (from_js wraps tensors)
