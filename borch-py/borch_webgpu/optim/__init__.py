"""``torch.optim``: every borch-ts optimizer (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``,
``Adagrad``) by name; ``step()``, ``zero_grad()``, ``state_dict()`` forward."""

from .. import _bridge as b
from .._classes import JsBacked, js_class
from . import lr_scheduler

__all__ = ["lr_scheduler"]


def __getattr__(name):
    return js_class(getattr(b.bt, "optim", None), name, __name__, JsBacked)
