"""The native side of ``_bridge`` (its docstring lists the interface): the extension module
``borch._native`` (the pyo3 crate borch-pyo3), whose objects answer borch-ts's names
(``t.logSoftmax``, ``module.namedParameters``, ``optimizer.zeroGrad``), so the shared Python layer
calls them as it calls borch-ts's. Arguments follow borch-ts's convention (a trailing dict holds
the keyword arguments); a core error arrives as ``NativeError(kind, message)`` and is raised as
torch's class (``KINDS``), the NativeError kept as ``__context__``. Reads return at once (the
device is waited for natively). Nothing here computes a tensor op."""

import functools
import sys

from . import _native
from ._bridge import KINDS, camel, dtype

BACKEND = "native"

__all__ = [
    "BACKEND", "JsException", "JsObject", "attribute", "bt", "bytes_in", "bytes_out", "call",
    "class_name", "cuda_notice", "forwarder", "from_js", "is_tensor", "iterable", "jsnull",
    "keywords", "operator", "proxy", "releasable", "reraise", "settle", "to_js_value",
]

# What a failed core call raises (the Pyodide side's JsException).
JsException = _native.NativeError
# borch-ts's null; natively None says the same.
jsnull = None

NATIVE_OBJECTS = (_native.Optimizer, _native.ParamGroup, _native.LRScheduler, _native.Scope,
                  _native.Dataset, _native.DataLoader, _native.Pass, _native.Generator,
                  _native.Sampler, _native.SamplerPass, _native.Transform, _native.Loaded,
                  _native.ChainDataset, _native.DatasetPass)


def reraise(e):
    """Raise the Python exception torch raises for the core error ``e`` (``NativeError(kind,
    message)``)."""
    kind, message = e.args if len(e.args) == 2 else ("RuntimeError", str(e))
    raise KINDS.get(kind, RuntimeError)(message) from None


def keywords(kwargs):
    return {k: to_js_value(v) for k, v in kwargs.items()}


# The types ``to_js_value`` returns as they are, looked up once per argument instead of its checks.
PASSED = frozenset({int, float, bool, str, type(None), _native.Tensor})


def call(fn, args, kwargs, *first):
    """Call the native function ``fn``: arguments converted, keyword arguments as one trailing
    dict (bound by the core's signature table), the result wrapped back. ``first``: native
    values passed before ``args`` as they are (a tensor method's tensor)."""
    native_args = [a if type(a) in PASSED else to_js_value(a) for a in args]
    # A dict given positionally is an argument, not the keywords: the trailing dict is, so one
    # is sent whenever the last argument is a dict (as borch-ts's trailing object).
    if kwargs or (args and isinstance(args[-1], dict)):
        native_args.append(keywords(kwargs))
    try:
        result = fn(*first, *native_args)
    except _native.NativeError as e:
        reraise(e)
    return from_js(result)


def settle(make, sync_message=None):
    """The value ``make()`` returns: natively a read returns at once."""
    try:
        return make()
    except _native.NativeError as e:
        reraise(e)


def to_js_value(x):
    """A Python argument as the native module takes it: wrappers -> their native object, lists,
    tuples and generators -> lists, dicts -> dicts, dtypes -> their name."""
    native = getattr(x, "_js", None)
    if native is not None:
        return native
    if isinstance(x, dtype):
        return x.js_name()
    if isinstance(x, (list, tuple)) or type(x).__name__ == "generator":
        return [to_js_value(i) for i in x]
    if isinstance(x, dict):
        return keywords(x)
    return x


def is_tensor(x):
    return isinstance(x, _native.Tensor)


def from_js(r):
    """A native result as Python: tensors -> Tensor, modules -> their nn class, tuples and lists ->
    tuples, dicts -> dicts, optimizers and schedulers -> a forwarding wrapper."""
    if type(r) is _native.Tensor:
        # Tensor(r), made as Tensor.__init__ makes it (its one slot set) without the call.
        tensor = new_object(Tensor)
        set_native(tensor, r)
        return tensor
    if isinstance(r, _native.Module):
        from .nn import wrap_module

        return wrap_module(r)
    if isinstance(r, (tuple, list)):
        return tuple(from_js(i) for i in r)
    if isinstance(r, dict):
        return {k: from_js(v) for k, v in r.items()}
    if isinstance(r, NATIVE_OBJECTS):
        return JsObject(r)
    return r


def forwarder(fn):
    def forward(*args, **kwargs):
        return call(fn, args, kwargs)

    return forward


MISSING = object()


def attribute(owner, native, name, what):
    """``owner.name`` forwarded: ``native[camel(name)]``, a method as a forwarding function (a
    tensor's: ``tensor_method``'s, bound)."""
    if type(native) is _native.Tensor and not name.startswith("__"):
        method = tensor_method(name)
        if method is not None:
            return method.__get__(owner)
    js_name = camel(name)
    value = MISSING if name.startswith("__") else getattr(native, js_name, MISSING)
    if value is MISSING:
        raise AttributeError(f"{what} has no attribute '{name}' — borch does not have '{js_name}'")
    if callable(value) and not is_tensor(value):
        forward = forwarder(value)
        forward.__name__ = name
        return forward
    return from_js(value)


def tensor_method(name):
    """The function ``Tensor.name`` of the op catalog's tensor method ``name`` (``log_softmax``),
    or None where ``t.name`` is not one (the native tensor's own attributes, ``requiresGrad``,
    ``item``, ..., come first, as ``getattr`` finds them). The catalog entry is found once
    (``_native.tensor_method``) and the function kept on the Tensor class, so that a later
    ``t.name(...)`` is an ordinary method call: no ``__getattr__``, no name converted or looked
    up."""
    if name in NOT_TENSOR_METHODS:
        return None
    js_name = camel(name)
    op = None if hasattr(_native.Tensor, js_name) else _native.tensor_method(js_name)
    if op is None:
        NOT_TENSOR_METHODS.add(name)
        return None

    fast = _native.FastMethod(op)

    def method(self, *args, **kwargs):
        # The call, its arguments and its result handled natively where nothing needs converting;
        # else call(op, args, kwargs, self._js) (the hooks installed below).
        return fast(self, args, kwargs)

    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    setattr(Tensor, name, method)
    return method


def operator(name):
    """``Tensor.__add__`` and the other operators: ``tensor_method``'s function of torch's op
    ``name`` (kept on the class after the first call, so an operator costs one method call)."""

    def op(self, *other):
        return getattr(self, name)(*other)

    return op


# Names tensor_method found no catalog method for (asked again, they go the general way at once).
NOT_TENSOR_METHODS = set()


class JsObject:
    """A native object (an optimizer, a scheduler, a param group): attributes forward by name."""

    def __init__(self, native):
        object.__setattr__(self, "_js", native)

    def __getattr__(self, name):
        return attribute(self, self._js, name, f"'{type(self).__name__}' object")

    def __getitem__(self, key):
        """``obj[key]``: the native ``at(index)`` (Sequential, ModuleList) or ``get(key)``."""
        return call(self._subscript("at") or self._subscript("get"), (key,), {})

    def __setitem__(self, key, value):
        call(self._subscript("set"), (key, value), {})

    def __len__(self):
        try:
            length = getattr(self._js, "length", MISSING)
        except _native.NativeError as e:
            reraise(e)
        if length is MISSING:
            raise TypeError(f"object of type '{type(self).__name__}' has no len()")
        return length

    def _subscript(self, method):
        found = getattr(self._js, method, None)
        if found is not None or method == "at":
            return found
        raise TypeError(f"'{type(self).__name__}' object does not support item access")


def proxy(fn):
    """A Python callable as the native side takes it: itself."""
    return fn


def iterable(obj):
    """A Python iterable as the native side takes it: itself (``iter`` each pass, ``len``)."""
    return obj


def releasable(fn):
    """A Python callable the core may call later (a checkpoint's recompute): itself, held by the
    core until it drops it."""
    return fn


def bytes_in(data):
    return bytes(data)


def bytes_out(result):
    return bytes(result)


def class_name(native):
    """The torch class name of a native module (``Linear``), or ``Module`` for a class that is not
    one of ``nn``'s (a torchvision model's ``ResNet``), as borch-ts gives such a module the base
    class."""
    name = native.className
    return name if hasattr(bt.nn, name) or hasattr(bt.nn.intrinsic, name) else "Module"


_CUDA_NOTICED = []


def cuda_notice():
    """``torch.device('cuda')``: once per process, say which adapter it means."""
    if not _CUDA_NOTICED:
        _CUDA_NOTICED.append(True)
        print(
            f"borch: torch.device('cuda') means the default adapter, {_native.adapter()} "
            "(torch.cuda.is_available() is False: there is no CUDA)",
            file=sys.stderr,
        )


# ---- bt: the core's namespace under borch-ts's names ------------------------------------------


class Namespace:
    """Names -> values, looked up on first use: the native module's side of a borch-ts object
    (``bt``, ``bt.nn``, ``bt.optim``)."""

    def __init__(self, name, members=None, lookup=None):
        self._name = name
        self._members = members or {}
        self._lookup = lookup

    def __getattr__(self, js_name):
        if js_name.startswith("__"):
            raise AttributeError(js_name)
        value = self._members.get(js_name, MISSING)
        if value is MISSING and self._lookup is not None:
            value = self._lookup(js_name)
        if value is MISSING:
            raise AttributeError(f"borch has no '{self._name}.{js_name}'")
        setattr(self, js_name, value)
        return value


def functions(call_native, catalog):
    """A lookup of a catalog's functions by borch-ts name (``catalog``: ``torch``,
    ``nn.functional``, ``nn.utils``, ``autograd``, ``nn.Transformer``)."""
    names = dict(_native.function_names(catalog))

    def lookup(js_name):
        name = names.get(js_name)
        return MISSING if name is None else functools.partial(call_native, name)

    return lookup


class NativeClass:
    """A class of borch-ts (``nn.Linear``, ``optim.SGD``): ``new(*args)`` builds the native
    object (what ``_classes.JsBacked`` calls)."""

    def __init__(self, name, build, statics=None):
        self.name = name
        self.new = build
        self._statics = statics

    def __getattr__(self, js_name):
        """A static method (``nn.Transformer.generateSquareSubsequentMask``)."""
        found = MISSING if self._statics is None else self._statics(js_name)
        if found is MISSING:
            raise AttributeError(js_name)
        return found

    def __repr__(self):
        return f"<borch class {self.name}>"


def _no_module(*args):
    raise TypeError("nn.Module() is the base class: subclass it, or use one of nn's classes")


def module_class(names, stacks, fused):
    containers = {
        "Sequential": _native.new_sequential,
        "ModuleList": _native.new_module_list,
        "ModuleDict": _native.new_module_dict,
    }

    def lookup(name):
        if name in containers:
            return NativeClass(name, containers[name])
        if name in stacks:
            return NativeClass(name, functools.partial(_native.new_stack, name))
        if name in names:
            path = f"nn.{name}"
            statics = _native.function_names(path) and functions(
                functools.partial(_native.call_in, path), path)
            return NativeClass(name, functools.partial(_native.new_module, name), statics or None)
        return MISSING

    return lookup


def module_functions(path):
    """A lookup of a module-function catalog's functions (``nn.utils.fusion``) by borch-ts name."""
    names = dict(_native.module_function_names(path))

    def lookup(js_name):
        name = names.get(js_name)
        return MISSING if name is None else functools.partial(_native.call_with_modules, path, name)

    return lookup


def fused_class(names):
    def lookup(name):
        if name not in names:
            return MISSING
        return NativeClass(name, functools.partial(_native.new_fused, name))

    return lookup


def optim_namespace():
    optimizers, schedulers = _native.optim_names()

    def optimizer(name):
        if name not in optimizers:
            return MISSING
        return NativeClass(name, functools.partial(_native.new_optimizer, name))

    def scheduler(name):
        if name not in schedulers:
            return MISSING
        # ChainedScheduler takes its schedulers first and no optimizer (borch-ts's chainedClass).
        if name == "ChainedScheduler":
            return NativeClass(name, functools.partial(_native.new_scheduler, name, None))
        return NativeClass(name, functools.partial(_native.new_scheduler, name))

    return Namespace("optim", {"lrScheduler": Namespace("optim.lrScheduler", lookup=scheduler)},
                     lookup=optimizer)


bt = Namespace(
    "borch",
    {
        "setGradEnabled": _native.set_grad_enabled,
        "enterScope": _native.enter_scope,
        "keepAlive": _native.keep_alive,
        "manualSeed": _native.manual_seed,
        "memory": _native.memory,
        "pooled": _native.pooled,
        "emptyCache": _native.empty_cache,
        "dispatches": _native.dispatches,
        "submits": _native.submits,
        "adapter": _native.adapter,
        "asFloat": float,
        "compiled": _native.compiled,
        "onnx": Namespace("onnx", {"exportOnnx": _native.export_onnx}),
        "vision": Namespace("vision", {
            "transforms": Namespace("vision.transforms", {
                "Compose": _native.compose_transforms,
                "ToTensor": _native.to_tensor_transform,
                "PILToTensor": _native.pil_to_tensor_transform,
                **{name: functools.partial(_native.new_transform, name)
                   for name in _native.transform_names()},
            }),
            "catalogue": Namespace("vision.catalogue", {
                "load": _native.catalogue_load,
                "loadFrom": _native.catalogue_load_from,
            }),
            "datasets": Namespace("vision.datasets", {
                "CIFAR10": Namespace("CIFAR10", {"fromBytes": _native.cifar10_from_bytes}),
                "CIFAR100": Namespace("CIFAR100", {"fromBytes": _native.cifar100_from_bytes}),
                "MNIST": Namespace("MNIST", {"fromBytes": _native.mnist_from_bytes}),
                "FashionMNIST": Namespace("FashionMNIST",
                                          {"fromBytes": _native.fashion_mnist_from_bytes}),
                "Digits": Namespace("Digits", {"fromBytes": _native.digits_from_bytes}),
            }),
            "models": Namespace("vision.models", {
                js_name: functools.partial(_native.new_model, name)
                for js_name, name in _native.model_names()
            }),
        }),
        "save": _native.save,
        "saveCheckpoint": _native.save_checkpoint,
        "loadCheckpoint": _native.load_checkpoint,
        "load": _native.load,
        "nn": Namespace(
            "nn",
            {
                "Module": NativeClass("Module", _no_module),
                "functional": Namespace(
                    "nn.functional", lookup=functions(_native.call_functional, "nn.functional")),
                "intrinsic": Namespace("nn.intrinsic", lookup=fused_class(
                    set(_native.module_names()[2]))),
                "utils": Namespace(
                    "nn.utils",
                    {"fusion": Namespace("nn.utils.fusion", lookup=module_functions(
                        "nn.utils.fusion")),
                     "lora": Namespace("nn.utils.lora", lookup=module_functions(
                         "nn.utils.lora"))},
                    lookup=functions(functools.partial(_native.call_in, "nn.utils"), "nn.utils")),
            },
            lookup=module_class(*map(set, _native.module_names())),
        ),
        "optim": optim_namespace(),
        "utils": Namespace("utils", {
            "checkpoint": Namespace("utils.checkpoint", {"checkpoint": _native.checkpoint}),
        }),
        "data": Namespace("data", {
            "TensorDataset": NativeClass("TensorDataset", _native.new_tensor_dataset),
            "Subset": NativeClass("Subset", _native.new_subset),
            "ConcatDataset": NativeClass("ConcatDataset", _native.new_concat_dataset),
            "ChainDataset": NativeClass("ChainDataset", _native.new_chain_dataset),
            "DataLoader": NativeClass("DataLoader", _native.new_data_loader),
            "SequentialSampler": NativeClass("SequentialSampler", _native.new_sequential_sampler),
            "RandomSampler": NativeClass("RandomSampler", _native.new_random_sampler),
            "SubsetRandomSampler": NativeClass("SubsetRandomSampler",
                                               _native.new_subset_random_sampler),
            "WeightedRandomSampler": NativeClass("WeightedRandomSampler",
                                                 _native.new_weighted_random_sampler),
            "BatchSampler": NativeClass("BatchSampler", _native.new_batch_sampler),
            "randomSplit": _native.random_split,
            "defaultCollate": _native.default_collate,
        }),
        "Generator": NativeClass("Generator", _native.new_generator),
        "autograd": Namespace(
            "autograd", lookup=functions(functools.partial(_native.call_in, "autograd"),
                                         "autograd")),
    },
    lookup=functions(_native.call_function, "torch"),
)

from ._tensor import Tensor  # noqa: E402  (from_js wraps tensors)

new_object = object.__new__
set_native = Tensor._js.__set__
_native.install_fast_hooks(Tensor, call, from_js, reraise)
