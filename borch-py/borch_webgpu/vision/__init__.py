"""``torchvision`` for borch_webgpu: ``vision.models`` forwards by name to borch-ts's
``vision.models`` (generated from borch-vision's model catalog). ``import borch_webgpu.vision as
torchvision`` then ``torchvision.models.resnet18(num_classes=10)`` reads as torchvision code."""

from . import models

__all__ = ["models"]
