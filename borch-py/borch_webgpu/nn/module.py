"""``nn.Module`` for subclassing in Python (registration of parameters, buffers and submodules,
torch's repr), ``Parameter``, and ``JsModule``, a borch-ts module as a Python one."""

from collections import namedtuple

from .. import _bridge as b
from .._classes import JsBacked, js_class
from .._device import requested_dtype
from .._tensor import Tensor
from .._grad import no_grad


class Parameter(Tensor):
    """torch's ``nn.Parameter(data, requires_grad=True)``: the same tensor, as a leaf that
    requires grad, registered by ``Module.__setattr__``."""

    __slots__ = ()

    def __init__(self, data, requires_grad=True):
        object.__setattr__(self, "_js", data.detach()._js)
        self.requires_grad_(requires_grad)


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; torch's repr when nothing is missing or unexpected."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


def _keys(result):
    """(missing, unexpected) of a Python child's IncompatibleKeys or of borch-ts's
    ``{missingKeys, unexpectedKeys}``."""
    if isinstance(result, IncompatibleKeys):
        return result
    return list(result["missingKeys"]), list(result["unexpectedKeys"])


def _quoted(keys):
    return ", ".join(f'"{k}"' for k in keys)


class Module:
    """torch's ``nn.Module`` for Python subclasses: ``forward``, ``model(x)``, registration of
    parameters and submodules on attribute assignment, ``parameters()``, ``named_parameters()``,
    ``train()``/``eval()``, ``zero_grad()``, ``state_dict()``."""

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign before Module.__init__() call")
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for table in ("_parameters", "_modules"):
            found = self.__dict__.get(table, {})
            if name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def named_children(self):
        return iter(self._modules.items())

    def children(self):
        return iter(self._modules.values())

    def named_parameters(self, prefix=""):
        out = [(prefix + name, p) for name, p in self._parameters.items()]
        for name, child in self._modules.items():
            out.extend(child.named_parameters(prefix + name + "."))
        return out

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def train(self, mode=True):
        object.__setattr__(self, "training", mode)
        for child in self._modules.values():
            child.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            p.grad = None if set_to_none else p.grad.zero_()

    def state_dict(self, prefix=""):
        out = {prefix + name: p.detach() for name, p in self._parameters.items()}
        for name, child in self._modules.items():
            out.update(child.state_dict(prefix + name + "."))
        return out

    def load_state_dict(self, state_dict, strict=True):
        """torch's ``load_state_dict``: this module's parameters copied in place (no grad), each
        child loading its part; torch's missing / unexpected / size-mismatch errors."""
        missing, errors = [], []
        for name, p in self._parameters.items():
            if name not in state_dict:
                missing.append(name)
            elif tuple(state_dict[name].shape) != tuple(p.shape):
                errors.append(f"size mismatch for {name}: copying a param with shape "
                              f"{state_dict[name].shape!r} from checkpoint, the shape in current "
                              f"model is {p.shape!r}.")
            else:
                with no_grad():
                    p.copy_(state_dict[name])
        for child_name, child in self._modules.items():
            prefix = child_name + "."
            part = {k[len(prefix):]: v for k, v in state_dict.items() if k.startswith(prefix)}
            try:
                keys = child.load_state_dict(part, strict=False)
            except RuntimeError as e:
                errors.extend(m.replace(" for ", " for " + prefix, 1) for m in str(e).split("\n\t")[1:])
                continue
            missing.extend(prefix + k for k in _keys(keys)[0])
        unexpected = [k for k in state_dict if k not in self.state_dict()]
        if strict and unexpected:
            errors.insert(0, f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
        if strict and missing:
            errors.insert(0, f"Missing key(s) in state_dict: {_quoted(missing)}. ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return IncompatibleKeys(missing, unexpected)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._modules[name] = module

    register_module = add_module

    def register_buffer(self, name, tensor, persistent=True):
        self.__dict__.setdefault("_buffers", {})[name] = tensor
        if not persistent:
            self.__dict__.setdefault("_non_persistent", set()).add(name)

    def named_buffers(self, prefix=""):
        out = [(prefix + n, t) for n, t in self.__dict__.get("_buffers", {}).items()]
        for name, child in self._modules.items():
            out.extend(child.named_buffers(prefix + name + "."))
        return out

    def buffers(self):
        return [t for _, t in self.named_buffers()]

    def named_modules(self, prefix=""):
        out = [(prefix, self)]
        for name, child in self._modules.items():
            out.extend(child.named_modules(prefix + ("." if prefix else "") + name))
        return out

    def modules(self):
        return [m for _, m in self.named_modules()]

    def apply(self, fn):
        for child in self._modules.values():
            child.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        """torch's ``module.to(device)`` / ``to(dtype)``: a device keeps the parameters where
        they are (borch's one device, WebGPU); a dtype other than float32 is refused."""
        wanted = requested_dtype(args, kwargs, b.dtype, Tensor)
        if wanted is not None and wanted is not b.float32:
            raise TypeError(
                "nn.Module.to only accepts floating point dtypes, and borch's parameters are "
                f"torch.float32, but got desired dtype={wanted!r}"
            )
        return self

    def float(self):
        return self

    def double(self):
        return self.to(b.float64)  # refused

    def half(self):
        return self.to(b.float16)  # refused

    def cpu(self):
        return self

    def cuda(self, device=None):
        return self

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def extra_repr(self):
        return ""

    def __repr__(self):
        """torch's ``repr(module)``: the class name, its ``extra_repr()`` and its children."""
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = []
        for key, module in self._modules.items():
            text = repr(module).split("\n")
            text = "\n".join([text[0]] + ["  " + line for line in text[1:]])
            child_lines.append(f"({key}): {text}")
        lines = extra_lines + child_lines
        main = type(self).__name__ + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


class JsModule(JsBacked, Module):
    """A borch-ts nn module (``nn.Linear(2, 1)``): the core module does the work; this class
    lets it sit inside a Python ``Module``."""

    def __init__(self, *args, **kwargs):
        JsBacked.__init__(self, *args, **kwargs)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})

    def __getattr__(self, name):
        return b.attribute(self, self._js, name, f"'{type(self).__name__}' object")

    def __setattr__(self, name, value):
        setattr(self._js, b.camel(name), b.to_js_value(value))

    def __call__(self, *args, **kwargs):
        """torch's ``module(*args, **kwargs)``: a Tensor, or a tuple (nested, ``None`` items) for a
        forward that returns one (LSTM's ``(output, (h_n, c_n))``)."""
        return b.call(self._js.call, args, kwargs)

    forward = __call__

    def named_parameters(self, prefix=""):
        return [(prefix + n, p) for n, p in b.call(self._js.namedParameters, (), {})]

    def parameters(self):
        return list(b.call(self._js.parameters, (), {}))

    def train(self, mode=True):
        b.call(self._js.train, (mode,), {})
        return self

    def eval(self):
        return self.train(False)

    @property
    def training(self):
        return self._js.training

    def zero_grad(self, set_to_none=True):
        b.call(self._js.zeroGrad, (set_to_none,), {})

    def state_dict(self, prefix=""):
        return {prefix + k: v for k, v in b.call(self._js.stateDict, (), {}).items()}

    def load_state_dict(self, state_dict, strict=True):
        """The core's ``loadStateDict``; its ``{missingKeys, unexpectedKeys}`` as torch's
        ``IncompatibleKeys``."""
        return IncompatibleKeys(*_keys(b.call(self._js.loadStateDict, (state_dict, strict), {})))

    def named_buffers(self, prefix=""):
        return [(prefix + n, t) for n, t in b.call(self._js.namedBuffers, (), {})]

    def named_modules(self, prefix=""):
        return [(prefix, self)]

    def __repr__(self):
        """torch's repr, formatted by the core (``Linear(in_features=2, out_features=1, bias=True)``)."""
        return str(self._js.toString())


def wrap_module(js_obj):
    """A borch-ts module object given back by borch-ts (``seq.at(0)``) as its Python class (an
    ``nn.intrinsic`` one, ``ConvReLU2d`` after ``fuse_for_eval``, from ``torch.nn.intrinsic``)."""
    name = b.class_name(js_obj)
    fused = getattr(b.bt.nn, "intrinsic", None)
    if not hasattr(b.bt.nn, name) and hasattr(fused, name):
        cls = js_class(fused, name, __package__ + ".intrinsic", JsModule)
    else:
        cls = js_class(b.bt.nn, name, __package__, JsModule)
    module = cls.__new__(cls)
    object.__setattr__(module, "_js", js_obj)
    object.__setattr__(module, "_parameters", {})
    object.__setattr__(module, "_modules", {})
    return module
