"""``torch.nn.intrinsic`` (also ``torch.ao.nn.intrinsic``): borch-ts's ``nn.intrinsic`` classes
by name (``ConvReLU2d(conv, relu)``, ``ConvAdd2d(conv, torch.add)``, ...)."""

from .. import _bridge as b
from .._classes import js_class
from .module import JsModule


def __getattr__(name):
    """``nn.intrinsic.ConvReLU2d``, ... from borch-ts's ``nn.intrinsic``."""
    nn = getattr(b.bt, "nn", None)
    return js_class(getattr(nn, "intrinsic", None), name, __name__, JsModule)
