"""``torch.optim.lr_scheduler``: every borch-ts scheduler (``StepLR``, ``CosineAnnealingLR``,
...) by name, from ``optim.lrScheduler``."""

from .. import _bridge as b
from .._classes import JsBacked, js_class


def __getattr__(name):
    schedulers = getattr(getattr(b.bt, "optim", None), "lrScheduler", None)
    return js_class(schedulers, name, __name__, JsBacked)
