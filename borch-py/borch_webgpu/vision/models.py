"""``torchvision.models``: ``resnet18``, ``resnet34``, ``resnet50`` (torchvision's keyword
arguments; ``weights`` must be None) and borch's ``cifar_resnet18``, forwarded to borch-ts's
``vision.models``; the result is an ``nn`` module."""

from .. import _bridge as b


def __getattr__(name):
    return b.attribute(None, b.bt.vision.models, name, f"module '{__name__}'")
