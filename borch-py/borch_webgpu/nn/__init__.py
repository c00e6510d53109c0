"""``torch.nn``: ``Module`` for subclassing in Python (registration of parameters and
submodules), ``Parameter``, the containers, and every borch-ts ``nn`` class (layers,
activations, losses) by name."""

from .. import _bridge as b
from .._classes import js_class
from .module import JsModule, Module, Parameter, wrap_module
from .containers import ModuleDict, ModuleList, Sequential
from . import functional, init, intrinsic, utils

__all__ = [
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "Sequential",
    "functional",
    "init",
    "intrinsic",
    "utils",
    "wrap_module",
]


def __getattr__(name):
    """``nn.Linear``, ``nn.ReLU``, ``nn.MSELoss``, ``nn.Sequential``, ... from borch-ts's ``nn``."""
    return js_class(getattr(b.bt, "nn", None), name, __name__, JsModule)
