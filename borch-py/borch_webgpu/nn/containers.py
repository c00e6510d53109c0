"""torch's containers for modules written in Python: ``Sequential``, ``ModuleList`` and
``ModuleDict`` made only of borch-ts modules are borch-ts's own (the core runs them); one that
holds a Python ``nn.Module`` subclass is one of these, whose children are called from Python."""

from collections import OrderedDict

from .. import _bridge as b
from .._classes import js_class
from .module import JsModule, Module


def _core(name):
    """borch-ts's container class of that name."""
    return js_class(b.bt.nn, name, __package__, JsModule)


class _Container(type):
    """``isinstance(m, nn.Sequential)`` holds for borch-ts's Sequential too."""

    def __instancecheck__(cls, obj):
        core = isinstance(obj, JsModule) and type(obj).__name__ == cls.__name__
        return core or type.__instancecheck__(cls, obj)


def _all_core(modules):
    return all(isinstance(m, JsModule) for m in modules)


def _check_module(owner, m, position):
    if not isinstance(m, Module):
        raise TypeError(f"{owner}(): argument {position} must be a Module, not {type(m).__name__}")


class Sequential(Module, metaclass=_Container):
    """torch's ``nn.Sequential(*modules)`` or ``nn.Sequential(OrderedDict)``."""

    def __new__(cls, *args):
        items = list(args[0].values()) if len(args) == 1 and isinstance(args[0], OrderedDict) else args
        if cls is Sequential and _all_core(items):
            return _core("Sequential")(*args)
        return super().__new__(cls)

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, m in args[0].items():
                _check_module("Sequential", m, key)
                self.add_module(key, m)
        else:
            for i, m in enumerate(args):
                _check_module("Sequential", m, i + 1)
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        values = list(self._modules.values())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        if not -len(values) <= idx < len(values):
            raise IndexError(f"index {idx} is out of range")
        return values[idx]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module, metaclass=_Container):
    """torch's ``nn.ModuleList(modules=None)``."""

    def __new__(cls, modules=None):
        items = list(modules) if modules is not None else []
        if cls is ModuleList and items and _all_core(items):
            return _core("ModuleList")(items)
        return super().__new__(cls)

    def __init__(self, modules=None):
        super().__init__()
        for m in modules or []:
            self.append(m)

    def append(self, module):
        _check_module("ModuleList.append", module, 1)
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, idx):
        values = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(values[idx])
        if not -len(values) <= idx < len(values):
            raise IndexError(f"index {idx} is out of range")
        return values[idx]


class ModuleDict(Module, metaclass=_Container):
    """torch's ``nn.ModuleDict(modules=None)``."""

    def __new__(cls, modules=None):
        items = dict(modules) if modules is not None else {}
        if cls is ModuleDict and items and _all_core(items.values()):
            return _core("ModuleDict")(items)
        return super().__new__(cls)

    def __init__(self, modules=None):
        super().__init__()
        for key, m in dict(modules or {}).items():
            self[key] = m

    def __setitem__(self, key, module):
        _check_module("ModuleDict", module, key)
        self.add_module(key, module)

    def __getitem__(self, key):
        if key not in self._modules:
            raise KeyError(key)
        return self._modules[key]

    def __contains__(self, key):
        return key in self._modules

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

